package extension_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/admitkit/admit/extension"
)

// fourExtensions serves one extension of each kind: success, failure, a calling error under
// Fail and one under Ignore.
func fourExtensions(t *testing.T) *extension.Registry {
	ca := newTestCA(t)
	mux := http.NewServeMux()
	mux.Handle("/ok", success(0))
	mux.Handle("/no", failure("blocked by policy", 0))
	mux.Handle("/broken", raw(http.StatusBadGateway, "upstream down"))
	mux.Handle("/garbled", raw(http.StatusOK, "{"))
	base := ca.serve(t, mux).URL
	return register(t,
		urlExtension("ok", base+"/ok", ca, failPolicy),
		urlExtension("no", base+"/no", ca, failPolicy),
		urlExtension("broken", base+"/broken", ca, failPolicy),
		urlExtension("garbled", base+"/garbled", ca, ignore),
	)
}

func TestMetrics(t *testing.T) {
	checkNoGoroutineLeak(t)
	reg := prometheus.NewPedanticRegistry()
	caller, err := extension.NewCaller(fourExtensions(t), extension.Options{Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, _ = extension.CallAll[upgradeResponse](context.Background(), caller, extension.Request{Hook: upgradeHook()})
	}
	caller.Close() // flushes the metrics queue

	const hook = "hooks.test.admitkit.io/v1alpha1/BeforeUpgrade"
	want := `
# HELP admit_extension_requests_total Calls to extensions by extension, hook and outcome (success, failure, error, ignored).
# TYPE admit_extension_requests_total counter
admit_extension_requests_total{extension="broken",hook="` + hook + `",outcome="error"} 2
admit_extension_requests_total{extension="garbled",hook="` + hook + `",outcome="ignored"} 2
admit_extension_requests_total{extension="no",hook="` + hook + `",outcome="failure"} 2
admit_extension_requests_total{extension="ok",hook="` + hook + `",outcome="success"} 2
# HELP admit_extension_calling_errors_total Calling errors (transport, timeout, non-200, undecodable) by extension, hook, reason and failure policy; Ignore ones were swallowed.
# TYPE admit_extension_calling_errors_total counter
admit_extension_calling_errors_total{extension="broken",failure_policy="Fail",hook="` + hook + `",reason="http_status"} 2
admit_extension_calling_errors_total{extension="garbled",failure_policy="Ignore",hook="` + hook + `",reason="decode"} 2
# HELP admit_extension_metrics_dropped_total Call observations dropped because the metrics queue was full; non-zero means the other admit_extension_ metrics undercount.
# TYPE admit_extension_metrics_dropped_total counter
admit_extension_metrics_dropped_total 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"admit_extension_requests_total", "admit_extension_calling_errors_total", "admit_extension_metrics_dropped_total"); err != nil {
		t.Error(err)
	}
	if got := testutil.CollectAndCount(reg, "admit_extension_request_duration_seconds"); got != 4 {
		t.Errorf("duration histogram has %d series, want 4 (one per extension and outcome)", got)
	}
}

func TestNewCallerRefusesToRegisterMetricsTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	newCaller(t, extension.NewRegistry(), extension.Options{Metrics: reg})
	_, err := extension.NewCaller(extension.NewRegistry(), extension.Options{Metrics: reg})
	if err == nil || !strings.Contains(err.Error(), "registering extension metrics (use prometheus.WrapRegistererWith") {
		t.Errorf("error = %v, want a metrics registration error with a hint", err)
	}
}

// TestBlockedMetricsSinkNeverBlocksCalls: with the sink stuck on the first observation and a
// queue of 4, ten more calls all return and six observations are dropped and counted.
func TestBlockedMetricsSinkNeverBlocksCalls(t *testing.T) {
	checkNoGoroutineLeak(t)
	ca := newTestCA(t)
	base := ca.serve(t, success(0)).URL
	registry := register(t, urlExtension("ok", base, ca, failPolicy))

	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	sink := func() {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
	}
	reg := prometheus.NewRegistry()
	caller, err := extension.NewCallerWithSink(registry, extension.Options{Metrics: reg, MetricsQueueSize: 4}, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	defer close(release) // runs before Close, which waits for the sink

	if _, err := callOne(t, caller, "ok", ""); err != nil {
		t.Fatal(err)
	}
	<-entered // the sink now holds the first observation and blocks

	done := make(chan error, 1)
	go func() {
		for range 10 {
			if _, err := callOne(t, caller, "ok", ""); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second): // a guard against hanging, not a timing assertion
		t.Fatal("calls blocked behind the metrics sink")
	}
	dropped, err := testutil.GatherAndCount(reg, "admit_extension_metrics_dropped_total")
	if err != nil || dropped != 1 {
		t.Fatalf("dropped counter: %d series, %v", dropped, err)
	}
	if got := droppedValue(t, reg); got != 6 {
		t.Errorf("admit_extension_metrics_dropped_total = %v, want 6 (10 calls, queue of 4)", got)
	}
}

func droppedValue(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "admit_extension_metrics_dropped_total" {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatal("admit_extension_metrics_dropped_total not registered")
	return 0
}
