package report_test

import (
	"fmt"

	"github.com/admitkit/admit/bench/report"
)

// Splice rewrites what lies between a section's markers and keeps the rest of the page.
func ExampleSplice() {
	page := []byte("# Benchmarks\n<!-- admitbench:begin serving -->\nold table\n<!-- admitbench:end serving -->\nAnalysis.\n")
	out, err := report.Splice(page, map[string]string{"serving": "| new | table |"})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// # Benchmarks
	// <!-- admitbench:begin serving -->
	// | new | table |
	// <!-- admitbench:end serving -->
	// Analysis.
}

// ParseLatency reads the end-to-end benchmark's output.
func ExampleParseLatency() {
	out := []byte("BenchmarkWebhookLatency-2  2000  6000000 ns/op  2.3 mutating-p50-ms  4.0 mutating-p99-ms  1.6 none-p50-ms  2.7 none-p99-ms\n")
	lat, err := report.ParseLatency(out)
	if err != nil {
		panic(err)
	}
	for _, v := range lat.Variants {
		fmt.Printf("%s: p50 %.1f ms, p99 %.1f ms\n", v.Name, v.P50, v.P99)
	}
	// Output:
	// mutating: p50 2.3 ms, p99 4.0 ms
	// none: p50 1.6 ms, p99 2.7 ms
}
