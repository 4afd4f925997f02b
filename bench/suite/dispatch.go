package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/bench/dispatchers"
	"github.com/admitkit/admit/bench/servers"
	"github.com/admitkit/admit/bench/usage"
	"github.com/admitkit/admit/webhook"
)

// Names of the dispatchers in DispatchSample.
const (
	DispatcherAdmit     = "admit"
	DispatcherAPIServer = "apiserver"
	// DispatcherInputCopy is the apiserver loop's DeepCopy of the input Pod alone, measured so
	// that the report can subtract it from DispatcherAPIServer.
	DispatcherInputCopy = "input-copy"
)

type namedDispatcher struct {
	name string
	d    dispatchers.Dispatcher
}

// RunDispatch measures both dispatchers calling admit's benchmark webhooks, served by a child
// process, in cfg.Rounds rounds. certDir receives the webhooks' certificate.
func RunDispatch(ctx context.Context, cfg Config, certDir string) ([]DispatchSample, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	caPEM, err := servers.WriteTLS(certDir)
	if err != nil {
		return nil, err
	}
	hooksServer, err := startChild(ctx, cfg.Executable, servers.Admit, certDir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := hooksServer.stop(); err != nil {
			cfg.logf("%v", err)
		}
	}()
	registry, err := servers.AdmitRegistry(webhook.HTTPOptions{})
	if err != nil {
		return nil, err
	}
	hooks, err := dispatchers.NewWebhooks(registry, hooksServer.addrs.URL, caPEM)
	if err != nil {
		return nil, err
	}
	pod, err := bench.Pod()
	if err != nil {
		return nil, err
	}
	podJSON, err := bench.PodJSON()
	if err != nil {
		return nil, err
	}
	admit, err := dispatchers.NewAdmit(hooks, podJSON)
	if err != nil {
		return nil, err
	}
	defer admit.Close()
	apiserver, err := dispatchers.NewAPIServer(hooks, pod, caPEM)
	if err != nil {
		return nil, err
	}
	defer apiserver.Close()
	all := []namedDispatcher{
		{DispatcherAdmit, admit},
		{DispatcherAPIServer, apiserver},
		{DispatcherInputCopy, dispatchers.InputCopy{Pod: pod}},
	}
	if err := checkAndWarmUp(ctx, cfg.Dispatch, all); err != nil {
		return nil, err
	}
	samples, err := measureRounds(ctx, cfg, all, hooksServer)
	if err != nil {
		return samples, err
	}
	if cfg.ProfileDir != "" {
		for _, nd := range all[:2] {
			path := filepath.Join(cfg.ProfileDir, "dispatch-"+nd.name+".pprof")
			if err := profileDispatcher(ctx, cfg.Dispatch, nd.d, path); err != nil {
				return samples, err
			}
			cfg.logf("dispatch: CPU profile of %s in %s", nd.name, path)
		}
	}
	return samples, nil
}

// checkAndWarmUp checks that every dispatcher gets the expected answer, then runs cfg.Warmup
// admissions through it, so that no measured phase pays for first calls and connections.
func checkAndWarmUp(ctx context.Context, cfg DispatchConfig, all []namedDispatcher) error {
	for _, nd := range all {
		if err := nd.d.Check(ctx); err != nil {
			return fmt.Errorf("%s: %w", nd.name, err)
		}
		warm := cfg
		warm.Admissions = cfg.Warmup
		if _, _, err := admitMany(ctx, warm, nd.d); err != nil {
			return fmt.Errorf("warming up %s: %w", nd.name, err)
		}
	}
	return nil
}

// measureRounds measures every dispatcher once per round, in an order rotated each round. On an
// error it returns the samples of the phases before it.
func measureRounds(ctx context.Context, cfg Config, all []namedDispatcher, hooksServer *child) ([]DispatchSample, error) {
	var samples []DispatchSample
	for round := range cfg.Rounds {
		for _, nd := range rotated(all, round) {
			s, err := measureDispatcher(ctx, cfg.Dispatch, nd, hooksServer)
			if err != nil {
				return samples, fmt.Errorf("round %d, %s: %w", round+1, nd.name, err)
			}
			s.Round = round + 1
			cfg.logf("dispatch round %d/%d %-10s cpu %7.1fµs/admission  %6.0f allocs  %6.1f KiB  webhooks %6.1fµs  (load %.1f)",
				s.Round, cfg.Rounds, s.Dispatcher, micros(s.PerAdmission.CPU), s.PerAdmission.Allocs,
				s.PerAdmission.AllocBytes/1024, micros(s.WebhookCPU), s.Load1)
			samples = append(samples, s)
		}
	}
	return samples, nil
}

// measureDispatcher runs one phase and charges this process's consumption to the dispatcher.
func measureDispatcher(ctx context.Context, cfg DispatchConfig, nd namedDispatcher, hooksServer *child) (DispatchSample, error) {
	s := DispatchSample{Dispatcher: nd.name}
	if load, err := usage.LoadAverage(); err == nil {
		s.Load1 = load[0]
	}
	// Collect the previous phase's garbage now, so that this phase pays only for its own.
	runtime.GC()
	hooksBefore, err := hooksServer.usage(ctx)
	if err != nil {
		return s, err
	}
	before, err := usage.Self()
	if err != nil {
		return s, err
	}
	n, elapsed, err := admitMany(ctx, cfg, nd.d)
	if err != nil {
		return s, err
	}
	after, err := usage.Self()
	if err != nil {
		return s, err
	}
	hooksAfter, err := hooksServer.usage(ctx)
	if err != nil {
		return s, err
	}
	s.Admissions, s.Elapsed = n, elapsed
	s.PerAdmission = after.Sub(before).Per(n)
	if nd.name != DispatcherInputCopy {
		s.WebhookCPU = hooksAfter.Sub(hooksBefore).Per(n).CPU
	}
	return s, nil
}

// admitMany runs cfg.Admissions admissions, cfg.Concurrency at a time, within cfg.MaxDuration.
// It returns how many completed; any failed admission is an error.
func admitMany(ctx context.Context, cfg DispatchConfig, d dispatchers.Dispatcher) (int, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxDuration)
	defer cancel()
	var (
		next, done atomic.Int64
		wg         sync.WaitGroup
		errOnce    sync.Once
		firstErr   error
	)
	start := time.Now()
	for range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(cfg.Admissions) && ctx.Err() == nil {
				if err := d.Admit(ctx); err != nil {
					if ctx.Err() == nil {
						errOnce.Do(func() { firstErr = err; cancel() })
					}
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return int(done.Load()), elapsed, firstErr
	}
	if done.Load() == 0 {
		return 0, elapsed, errors.New("no admission completed within the time limit")
	}
	return int(done.Load()), elapsed, nil
}

// profileDispatcher records a CPU profile of this process while d runs one phase.
func profileDispatcher(ctx context.Context, cfg DispatchConfig, d dispatchers.Dispatcher, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("profiling: %w", err)
	}
	_, _, runErr := admitMany(ctx, cfg, d)
	pprof.StopCPUProfile()
	return errors.Join(runErr, f.Close())
}
