package suite

import (
	"errors"
	"fmt"
	"time"
)

// Config sizes a run. Full and Smoke return the two sizes the Makefile uses.
type Config struct {
	// Executable is the harness binary, re-executed with ChildArgs to run each server.
	Executable string `json:"-"`
	// Rounds repeats every measurement; the report takes medians over rounds.
	Rounds   int
	Serving  ServingConfig
	Dispatch DispatchConfig
	// ProfileDir, when set, receives CPU profiles (pprof) recorded after the measurements.
	ProfileDir string `json:"-"`
	// Logf receives progress; nil discards it.
	Logf func(format string, args ...any) `json:"-"`
}

// ServingConfig sizes the serving comparison.
type ServingConfig struct {
	// Connections is the number of keep-alive TLS connections the load generator uses.
	Connections int
	// Warmup is a maximum-throughput run per server before the first round, not measured.
	Warmup time.Duration
	// MaxDuration and MaxRequests bound each maximum-throughput phase.
	MaxDuration time.Duration
	MaxRequests int
	// Rate is the fixed rate, in requests per second, at which latency is measured; RateDuration
	// how long it is held (Rate × RateDuration requests).
	Rate         float64
	RateDuration time.Duration
}

// DispatchConfig sizes the dispatcher comparison.
type DispatchConfig struct {
	// Concurrency is the number of admissions in flight, as concurrent writes to an apiserver.
	Concurrency int
	// Warmup admissions per dispatcher before the first round, not measured.
	Warmup int
	// Admissions per phase, bounded by MaxDuration.
	Admissions  int
	MaxDuration time.Duration
}

// Full is the configuration of `make bench`: five rounds of five-second phases.
func Full() Config {
	return Config{
		Rounds: 5,
		Serving: ServingConfig{
			Connections:  8,
			Warmup:       3 * time.Second,
			MaxDuration:  5 * time.Second,
			MaxRequests:  200_000,
			Rate:         1000,
			RateDuration: 5 * time.Second,
		},
		Dispatch: DispatchConfig{Concurrency: 8, Warmup: 500, Admissions: 3000, MaxDuration: 60 * time.Second},
	}
}

// Smoke is the configuration of `make bench-smoke`: every phase runs, briefly, so the harness is
// known to work; its numbers mean nothing.
func Smoke() Config {
	return Config{
		Rounds: 1,
		Serving: ServingConfig{
			Connections:  2,
			Warmup:       100 * time.Millisecond,
			MaxDuration:  300 * time.Millisecond,
			MaxRequests:  200,
			Rate:         100,
			RateDuration: 300 * time.Millisecond,
		},
		Dispatch: DispatchConfig{Concurrency: 2, Warmup: 5, Admissions: 20, MaxDuration: 10 * time.Second},
	}
}

func (c Config) validate() error {
	switch {
	case c.Executable == "":
		return errors.New("suite: the harness executable is required to start the servers")
	case c.Rounds < 1:
		return fmt.Errorf("suite: %d rounds: at least one is required", c.Rounds)
	case c.Serving.Connections < 1 || c.Dispatch.Concurrency < 1:
		return errors.New("suite: connections and concurrency must be at least 1")
	case c.Serving.MaxDuration <= 0 || c.Serving.MaxRequests < 1 || c.Serving.RateDuration <= 0 || c.Serving.Rate <= 0:
		return errors.New("suite: every serving phase must be bounded in time and requests, at a positive rate")
	case c.Dispatch.Admissions < 1 || c.Dispatch.MaxDuration <= 0:
		return errors.New("suite: every dispatch phase must be bounded in admissions and time")
	}
	return nil
}

func (c Config) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// rotated returns items starting at offset i, so each round measures them in another order and
// none always runs first (on a warming machine) or last.
func rotated[T any](items []T, i int) []T {
	n := len(items)
	out := make([]T, 0, n)
	for j := range n {
		out = append(out, items[(i+j)%n])
	}
	return out
}
