package report

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParsePatch(t *testing.T) {
	out := "# goos: linux, goarch: amd64, cpu: Test CPU (2 vCPU), go1.26.8\n" +
		"BenchmarkDiff/pod-label/admit-2   100  50000 ns/op  200.00 MB/s  1.000 ops  83.00 patch-B  59488 B/op  20 allocs/op\n" +
		"BenchmarkDiff/pod-label/gomodules-2  10  500000 ns/op  20.00 MB/s  1.000 ops  83.00 patch-B  244401 B/op  4277 allocs/op\n" +
		"BenchmarkLossless/noop-2  100  19000 ns/op  2 B/op  1 allocs/op\n" +
		"PASS\n" +
		"BenchmarkDiff/pod-label/admit-2   100  40000 ns/op  200.00 MB/s  1.000 ops  83.00 patch-B  59488 B/op  20 allocs/op\n" +
		"BenchmarkDiff/pod-label/gomodules-2  10  700000 ns/op  20.00 MB/s  2.000 ops  83.00 patch-B  244401 B/op  4275 allocs/op\n" +
		"BenchmarkDiff/pod-label/admit-2   100  60000 ns/op  200.00 MB/s  1.000 ops  83.00 patch-B  59488 B/op  20 allocs/op\n"
	got, err := ParsePatch([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := &Patch{CPU: "Test CPU (2 vCPU)", Runs: 3, Cases: []PatchCase{
		{Benchmark: "Diff", Case: "pod-label", Library: "admit", Time: 50 * time.Microsecond, Allocs: 20, Bytes: 59488, Ops: 1},
		{Benchmark: "Diff", Case: "pod-label", Library: "gomodules", Time: 600 * time.Microsecond, Allocs: 4276, Bytes: 244401, Ops: 1.5},
		{Benchmark: "Lossless", Case: "noop", Library: "admit", Time: 19 * time.Microsecond, Allocs: 1, Bytes: 2},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	rep := &Report{Sections: map[string]string{}}
	if err := patchSection(Input{Patch: got, ChartPath: "../bench/results/"}, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Medians of 3 runs", "on `Test CPU (2 vCPU)`",
		"| Diff | pod-label | admit | 50.0 µs | 20 | 58.1 KiB | 1 |  |",
		"| Diff | pod-label | gomodules | 600 µs | 4276 | 239 KiB | 1.5 ✗ | 12.0× |",
		"| Lossless | noop | admit | 19.0 µs | 1 | 2 B | 0 |  |"} {
		if !strings.Contains(rep.Sections[SectionPatch], want) {
			t.Errorf("the patch section lacks %q:\n%s", want, rep.Sections[SectionPatch])
		}
	}

	for _, tc := range []struct{ out, wantErr string }{
		{"PASS\n", "no patch benchmark result line"},
		{"BenchmarkDiff/a/admit-2 1 3 ns/op 4\n", "value-unit pairs"},
		{"BenchmarkDiff-2 1 3 ns/op 4 allocs/op\n", "is not Benchmark<name>/<case>[/<library>]"},
		{"BenchmarkDiff/a/admit-2 1 3 ns/op\n", "run with -benchmem"},
	} {
		if _, err := ParsePatch([]byte(tc.out)); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParsePatch(%q) = %v, want an error containing %q", tc.out, err, tc.wantErr)
		}
	}
}
