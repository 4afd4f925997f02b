package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLatency(t *testing.T) {
	header := "goos: linux\ngoarch: amd64\npkg: github.com/admitkit/admit/test/e2e\n"
	line := func(none, mutating string) string {
		return "BenchmarkWebhookLatency-2   \t2000\t7072797 ns/op\t" + mutating + " mutating-p50-ms\t4.0 mutating-p99-ms\t" + none + " none-p50-ms\t2.5 none-p99-ms\n"
	}
	for _, tc := range []struct {
		name    string
		out     string
		want    *Latency
		wantErr string
	}{
		{
			name: "one run", out: header + line("1.5", "2.25") + "PASS\nok  \tgithub.com/admitkit/admit/test/e2e\t60s\n",
			want: &Latency{Creates: 2000, Runs: 1, Variants: []LatencyVariant{{Name: "mutating", P50: 2.25, P99: 4}, {Name: "none", P50: 1.5, P99: 2.5}}},
		},
		{
			name: "medians of three runs", out: header + line("1.5", "2.0") + line("1.7", "2.4") + line("1.6", "9.0"),
			want: &Latency{Creates: 2000, Runs: 3, Variants: []LatencyVariant{{Name: "mutating", P50: 2.4, P99: 4}, {Name: "none", P50: 1.6, P99: 2.5}}},
		},
		{name: "no result", out: header + "FAIL\n", wantErr: "no BenchmarkWebhookLatency result line"},
		{name: "broken pair", out: "BenchmarkWebhookLatency-2 2000 12 ns/op 3.0\n", wantErr: "value-unit pairs"},
		{name: "bad number", out: "BenchmarkWebhookLatency-2 2000 x none-p50-ms\n", wantErr: "metric none-p50-ms"},
		{name: "no variant", out: "BenchmarkWebhookLatency-2 2000 12 ns/op\n", wantErr: "no <variant>-p50-ms metric"},
		{name: "log line ignored", out: "BenchmarkWebhookLatency: starting\n" + line("1", "2"),
			want: &Latency{Creates: 2000, Runs: 1, Variants: []LatencyVariant{{Name: "mutating", P50: 2, P99: 4}, {Name: "none", P50: 1, P99: 2.5}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLatency([]byte(tc.out))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
