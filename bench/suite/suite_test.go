package suite_test

import (
	"context"
	"os"
	"testing"

	"github.com/admitkit/admit/bench/servers"
	"github.com/admitkit/admit/bench/suite"
)

// TestMain lets the test binary act as the harness executable: started with suite.ChildArgs, it
// serves instead of testing.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(suite.ChildMain(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestSmokeRun runs every phase at the smoke size, with child processes, and checks that every
// server and dispatcher was measured with sensible counts — not how fast they were.
func TestSmokeRun(t *testing.T) {
	cfg := suite.Smoke()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Executable = exe
	cfg.ProfileDir = t.TempDir()
	cfg.Logf = t.Logf
	res, err := suite.Run(context.Background(), cfg, "go test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Machine.CPUs < 1 || res.Machine.GoVersion == "" {
		t.Errorf("machine not described: %+v", res.Machine)
	}

	servingSeen := map[string]int{}
	for _, s := range res.Serving {
		servingSeen[s.Server]++
		if s.Requests < 1 || s.Throughput <= 0 || s.Failed != 0 {
			t.Errorf("%s: %d requests at %.0f/s with %d failures", s.Server, s.Requests, s.Throughput, s.Failed)
		}
		if s.PerRequest.CPU <= 0 || s.PerRequest.Allocs <= 0 || s.PeakRSS <= 0 {
			t.Errorf("%s: consumption not measured: %+v, peak RSS %d", s.Server, s.PerRequest, s.PeakRSS)
		}
		if s.P50 <= 0 || s.P99 < s.P50 {
			t.Errorf("%s: latency percentiles p50 %v, p99 %v", s.Server, s.P50, s.P99)
		}
	}
	for _, kind := range servers.Kinds() {
		if servingSeen[string(kind)] != cfg.Rounds {
			t.Errorf("server %s measured %d times, want %d", kind, servingSeen[string(kind)], cfg.Rounds)
		}
	}

	dispatchSeen := map[string]int{}
	for _, s := range res.Dispatch {
		dispatchSeen[s.Dispatcher]++
		if s.Admissions != cfg.Dispatch.Admissions || s.PerAdmission.Allocs <= 0 {
			t.Errorf("%s: %d admissions with %.0f allocations each", s.Dispatcher, s.Admissions, s.PerAdmission.Allocs)
		}
		if s.Dispatcher != suite.DispatcherInputCopy && s.WebhookCPU <= 0 {
			t.Errorf("%s: the webhook server's CPU was not measured", s.Dispatcher)
		}
	}
	for _, name := range []string{suite.DispatcherAdmit, suite.DispatcherAPIServer, suite.DispatcherInputCopy} {
		if dispatchSeen[name] != cfg.Rounds {
			t.Errorf("dispatcher %s measured %d times, want %d", name, dispatchSeen[name], cfg.Rounds)
		}
	}

	profiles, err := os.ReadDir(cfg.ProfileDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(profiles) != len(servers.Kinds())+2 {
		t.Errorf("%d profiles written, want one per server and per dispatcher: %v", len(profiles), profiles)
	}
}
