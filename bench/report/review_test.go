package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseReview(t *testing.T) {
	line := func(objects, hooks, perSecond, load string) string {
		return "BenchmarkReviewThroughput/objects=" + objects + "/webhook=" + hooks + "-2 \t1\t5146852200 ns/op\t843.2 cpu-µs/object\t" +
			perSecond + " objects/s\t414.7 peak-rss-MiB\t" + load + " load1\n"
	}
	out := "goos: linux\npkg: github.com/admitkit/admit/review\n" +
		line("10000", "one", "1100", "2.5") + line("1000", "none", "600", "1.0") + "PASS\n" +
		line("10000", "one", "1300", "3.5") + line("10000", "one", "1200", "3.0")
	got, err := ParseReview([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := &Review{Variants: []ReviewVariant{
		{Objects: 1000, Webhook: "none", Runs: 1, ObjectsPerSecond: 600, CPUPerObject: 843.2, PeakRSS: 414.7, LoadMin: 1, LoadMax: 1, PerRun: []float64{600}},
		{Objects: 10000, Webhook: "one", Runs: 3, ObjectsPerSecond: 1200, CPUPerObject: 843.2, PeakRSS: 414.7, LoadMin: 2.5, LoadMax: 3.5, PerRun: []float64{1100, 1300, 1200}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ out, wantErr string }{
		{"PASS\n", "no BenchmarkReviewThroughput result line"},
		{"BenchmarkReviewThroughput/objects=10/webhook=none-2 1 3 ns/op 4\n", "value-unit pairs"},
		{"BenchmarkReviewThroughput/size=10-2 1 3 ns/op\n", "does not name objects=N/webhook=W"},
		{"BenchmarkReviewThroughput/objects=10/webhook=none-2 1 3 ns/op\n", "no objects/s metric"},
	} {
		if _, err := ParseReview([]byte(tc.out)); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseReview(%q) = %v, want an error containing %q", tc.out, err, tc.wantErr)
		}
	}
}
