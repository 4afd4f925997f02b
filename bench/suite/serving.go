package suite

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/bench/loadgen"
	"github.com/admitkit/admit/bench/servers"
	"github.com/admitkit/admit/bench/usage"
)

// servingTarget is one server under test and what is sent to it.
type servingTarget struct {
	child *child
	load  loadgen.Options
}

// RunServing measures every server in cfg.Rounds rounds and returns one sample per server per
// round. certDir receives the servers' certificate.
func RunServing(ctx context.Context, cfg Config, certDir string) ([]ServingSample, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	caPEM, err := servers.WriteTLS(certDir)
	if err != nil {
		return nil, err
	}
	clientTLS, err := servers.ClientTLS(caPEM)
	if err != nil {
		return nil, err
	}
	podJSON, err := bench.PodJSON()
	if err != nil {
		return nil, err
	}
	review, err := bench.AdmissionReview(bench.ReviewUID, podJSON)
	if err != nil {
		return nil, err
	}

	var targets []*servingTarget
	defer func() {
		for _, t := range targets {
			if err := t.child.stop(); err != nil {
				cfg.logf("%v", err)
			}
		}
	}()
	for _, kind := range servers.Kinds() {
		c, err := startChild(ctx, cfg.Executable, kind, certDir)
		if err != nil {
			return nil, err
		}
		t := &servingTarget{child: c, load: servingLoad(cfg.Serving, c.addrs.URL, review, clientTLS)}
		targets = append(targets, t)
		if err := checkServer(ctx, t.load, podJSON); err != nil {
			return nil, fmt.Errorf("%s server: %w", kind, err)
		}
	}

	for _, t := range targets {
		cfg.logf("serving: warming up %s for %s", t.child.kind, cfg.Serving.Warmup)
		warm := t.load
		warm.MaxDuration = cfg.Serving.Warmup
		if _, err := loadgen.Run(ctx, warm); err != nil {
			return nil, err
		}
	}

	var samples []ServingSample
	for round := range cfg.Rounds {
		for _, t := range rotated(targets, round) {
			s, err := measureServer(ctx, cfg.Serving, t)
			if err != nil {
				return samples, fmt.Errorf("round %d, %s: %w", round+1, t.child.kind, err)
			}
			s.Round = round + 1
			cfg.logf("serving round %d/%d %-18s %7.0f req/s  cpu %6.1fµs/req  %5.0f allocs/req  p50 %v p99 %v at %.0f/s  (load %.1f)",
				s.Round, cfg.Rounds, s.Server, s.Throughput, micros(s.PerRequest.CPU), s.PerRequest.Allocs,
				s.P50.Round(time.Microsecond), s.P99.Round(time.Microsecond), s.RateAchieved, s.Load1)
			samples = append(samples, s)
		}
	}

	if cfg.ProfileDir != "" {
		for _, t := range targets {
			path := filepath.Join(cfg.ProfileDir, "serving-"+string(t.child.kind)+".pprof")
			if err := profileServer(ctx, cfg.Serving, t, path); err != nil {
				return samples, err
			}
			cfg.logf("serving: CPU profile of %s under maximum load in %s", t.child.kind, path)
		}
	}
	return samples, nil
}

func servingLoad(cfg ServingConfig, baseURL string, review []byte, clientTLS *tls.Config) loadgen.Options {
	return loadgen.Options{
		URL:         baseURL + servers.MutatePath,
		Body:        review,
		TLS:         clientTLS,
		Connections: cfg.Connections,
		MaxRequests: cfg.MaxRequests,
		MaxDuration: cfg.MaxDuration,
		Check:       looksPatched,
	}
}

// looksPatched is the cheap check made on every answer while measuring: an allowed review with a
// patch. checkServer verified the full answer of each server beforehand.
func looksPatched(body []byte) error {
	if !bytes.Contains(body, []byte(`"allowed":true`)) || !bytes.Contains(body, []byte(`"patch":"`)) {
		return fmt.Errorf("not an allowed review with a patch: %.200s", body)
	}
	return nil
}

// checkServer sends one review and verifies the whole answer: the patch must produce exactly the
// Pod bench.Inject makes.
func checkServer(ctx context.Context, load loadgen.Options, podJSON []byte) error {
	var answer []byte
	load.Connections, load.MaxRequests, load.MaxDuration = 1, 1, 10*time.Second
	load.Check = func(body []byte) error {
		answer = bytes.Clone(body)
		return bench.CheckResponse(body, bench.ReviewUID, podJSON)
	}
	res, err := loadgen.Run(ctx, load)
	if err != nil {
		return err
	}
	if res.Completed != 1 {
		return fmt.Errorf("wrong answer to the benchmark review: %v\n%s", res.FirstError, answer)
	}
	return nil
}

// measureServer runs the maximum-throughput phase then the fixed-rate phase against one server.
func measureServer(ctx context.Context, cfg ServingConfig, t *servingTarget) (ServingSample, error) {
	s := ServingSample{Server: string(t.child.kind), Rate: cfg.Rate}
	if load, err := usage.LoadAverage(); err == nil {
		s.Load1 = load[0]
	}

	before, err := t.child.usage(ctx)
	if err != nil {
		return s, err
	}
	maxRun, err := loadgen.Run(ctx, t.load)
	if err != nil {
		return s, err
	}
	after, err := t.child.usage(ctx)
	if err != nil {
		return s, err
	}
	delta := after.Sub(before)
	s.Throughput, s.Requests = maxRun.Throughput(), maxRun.Completed
	s.PerRequest, s.GCs = delta.Per(maxRun.Completed), delta.GCs

	rated := t.load
	rated.Rate = cfg.Rate
	rated.MaxRequests = int(cfg.Rate * cfg.RateDuration.Seconds())
	// The schedule ends after RateDuration; the slack lets a slow server answer what it queued.
	rated.MaxDuration = cfg.RateDuration + cfg.RateDuration/2 + time.Second
	rateRun, err := loadgen.Run(ctx, rated)
	if err != nil {
		return s, err
	}
	final, err := t.child.usage(ctx)
	if err != nil {
		return s, err
	}
	s.RateAchieved = rateRun.Throughput()
	s.P50, s.P99 = rateRun.Percentile(0.50), rateRun.Percentile(0.99)
	s.RateCPU = final.Sub(after).Per(rateRun.Completed).CPU
	s.PeakRSS = final.PeakRSS
	s.Failed = maxRun.Failed + rateRun.Failed
	if s.Failed > 0 {
		return s, fmt.Errorf("%d requests failed; the first: %w", s.Failed, errors.Join(maxRun.FirstError, rateRun.FirstError))
	}
	if maxRun.Completed == 0 || rateRun.Completed == 0 {
		return s, errors.New("no request completed")
	}
	return s, nil
}

// profileServer records a CPU profile of one server while it is loaded at maximum throughput.
func profileServer(ctx context.Context, cfg ServingConfig, t *servingTarget, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	load := t.load
	load.MaxDuration = cfg.MaxDuration + 2*time.Second
	done := make(chan error, 1)
	go func() {
		_, err := loadgen.Run(ctx, load)
		done <- err
	}()
	profileErr := t.child.profile(ctx, cfg.MaxDuration, path)
	return errors.Join(profileErr, <-done)
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
