package suite

import (
	"time"

	"github.com/admitkit/admit/bench/usage"
)

// Results are every measurement of one run, as saved in bench/results/*.json.
type Results struct {
	Machine usage.Machine `json:"machine"`
	// Command reproduces the run.
	Command string    `json:"command"`
	Started time.Time `json:"started"`
	// Load is the 1-minute load average when the run started and ended.
	LoadStart float64 `json:"loadStart"`
	LoadEnd   float64 `json:"loadEnd"`
	Rounds    int     `json:"rounds"`

	Serving  []ServingSample  `json:"serving,omitempty"`
	Dispatch []DispatchSample `json:"dispatch,omitempty"`
	// Config is what the run was sized with.
	Config Config `json:"config"`
}

// ServingSample is one server's measurements in one round.
type ServingSample struct {
	Server string `json:"server"`
	Round  int    `json:"round"`
	// Load1 is the 1-minute load average when the round measured this server.
	Load1 float64 `json:"load1"`

	// Maximum-throughput phase.
	Throughput float64 `json:"throughput"`
	Requests   int     `json:"requests"`
	// PerRequest is the server process's CPU time and allocations divided by Requests.
	PerRequest usage.PerOp `json:"perRequest"`
	GCs        uint32      `json:"gcs"`

	// Fixed-rate phase.
	Rate         float64       `json:"rate"`
	RateAchieved float64       `json:"rateAchieved"`
	P50          time.Duration `json:"p50Nanoseconds"`
	P99          time.Duration `json:"p99Nanoseconds"`
	// RateCPU is the server's CPU time per request at the fixed rate.
	RateCPU time.Duration `json:"rateCPUNanoseconds"`

	// PeakRSS is the server process's largest resident set so far.
	PeakRSS int64 `json:"peakRSSBytes"`
	// Failed counts requests that got a wrong answer or none, in both phases.
	Failed int `json:"failed"`
}

// DispatchSample is one dispatcher's measurements in one round.
type DispatchSample struct {
	Dispatcher string  `json:"dispatcher"`
	Round      int     `json:"round"`
	Load1      float64 `json:"load1"`
	Admissions int     `json:"admissions"`
	// Elapsed is wall time for the phase, with Concurrency admissions in flight.
	Elapsed time.Duration `json:"elapsedNanoseconds"`
	// PerAdmission is this process's CPU time and allocations divided by Admissions.
	PerAdmission usage.PerOp `json:"perAdmission"`
	// WebhookCPU is the webhook server's CPU time per admission (three calls), in its own process.
	WebhookCPU time.Duration `json:"webhookCPUNanoseconds"`
}
