package extension_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/admitkit/admit/extension"
)

// BenchmarkCall measures one call over TLS on loopback, with metrics on a real Prometheus
// registry.
func BenchmarkCall(b *testing.B) {
	ca := newTestCA(b)
	base := ca.serve(b, success(0)).URL
	caller := newCaller(b, register(b, urlExtension("ok", base, ca, failPolicy)), extension.Options{Metrics: prometheus.NewRegistry()})
	benchmarkCalls(b, caller)
}

// BenchmarkCallBlockedMetricsSink is BenchmarkCall with a metrics sink that never returns:
// the numbers match BenchmarkCall's, since observations are queued (then dropped), never waited for.
func BenchmarkCallBlockedMetricsSink(b *testing.B) {
	ca := newTestCA(b)
	base := ca.serve(b, success(0)).URL
	release := make(chan struct{})
	caller, err := extension.NewCallerWithSink(register(b, urlExtension("ok", base, ca, failPolicy)),
		extension.Options{Metrics: prometheus.NewRegistry()}, func() { <-release })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(caller.Close)
	b.Cleanup(func() { close(release) }) // cleanups run last-in first-out: release, then Close
	benchmarkCalls(b, caller)
}

func benchmarkCalls(b *testing.B, caller *extension.Caller) {
	req := extension.Request{Hook: upgradeHook(), Body: upgradeRequest{Version: "v1.36.0"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := extension.Call[upgradeResponse](ctx, caller, "ok", req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallAll measures fanning out to n extensions behind one server.
func BenchmarkCallAll(b *testing.B) {
	ca := newTestCA(b)
	mux := http.NewServeMux()
	mux.Handle("/ok", success(3))
	mux.Handle("/no", failure("no", 0))
	base := ca.serve(b, mux).URL
	for _, n := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("extensions=%d", n), func(b *testing.B) {
			var exts []extension.Extension
			for i := range n {
				path := "/ok"
				if i%4 == 3 {
					path = "/no"
				}
				exts = append(exts, urlExtension(fmt.Sprintf("ext-%02d", i), base+path, ca, failPolicy))
			}
			caller := newCaller(b, register(b, exts...), extension.Options{})
			req := extension.Request{Hook: upgradeHook(), Body: upgradeRequest{Version: "v1.36.0"}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := extension.CallAll[upgradeResponse](context.Background(), caller, req); err != nil && n < 4 {
					b.Fatal(err)
				}
			}
		})
	}
}
