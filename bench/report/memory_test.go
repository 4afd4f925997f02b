package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMemory(t *testing.T) {
	line := func(command, objects, cpu, rss string) string {
		return "BenchmarkCommandMemory/" + command + "-2   \t1\t1000000000 ns/op\t" + cpu + " cpu-s/op\t1.0 load1\t" + objects + " objects\t500 objects/s\t" + rss + " peak-RSS-MiB\n"
	}
	out := "goos: linux\ncpu: Test CPU\n" +
		line("review-json", "100000", "90", "130") + "PASS\n" +
		line("review-json", "1000", "1.5", "120") +
		line("lint", "1000", "0.1", "80") +
		line("lint", "100000", "5", "400") +
		line("review-json", "1000", "1.6", "121") + // measured again: the last run counts
		"BenchmarkCommandMemory/test-2 some log line\n"
	got, err := ParseMemory([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := &Memory{CPU: "Test CPU", Commands: []MemoryCommand{
		{Name: "review-json", Sizes: []MemorySize{{Objects: 1000, PeakRSS: 121, CPUSeconds: 1.6, ObjectsPerSecond: 500}, {Objects: 100000, PeakRSS: 130, CPUSeconds: 90, ObjectsPerSecond: 500}}},
		{Name: "lint", Sizes: []MemorySize{{Objects: 1000, PeakRSS: 80, CPUSeconds: 0.1, ObjectsPerSecond: 500}, {Objects: 100000, PeakRSS: 400, CPUSeconds: 5, ObjectsPerSecond: 500}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}

	rep := &Report{Sections: map[string]string{}}
	audit := &Audit{Sizes: []AuditSize{{Objects: 1000, PeakRSS: 160, CPUSeconds: 2}, {Objects: 100000, PeakRSS: 170, CPUSeconds: 150}}}
	if err := memorySection(Input{Memory: got, Audit: audit, ChartPath: "../bench/results/"}, rep); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"| `review-json` | 121 | 130 | 1.07× | 0.900 |",
		"| `lint` | 80.0 | 400 | 5.00× | 0.0500 |",
		"| `audit` | 160 | 170 | 1.06× | 1.50 |",
	} {
		if !strings.Contains(rep.Sections[SectionMemory], row) {
			t.Errorf("the section lacks the row %q:\n%s", row, rep.Sections[SectionMemory])
		}
	}
	var statuses []string
	for _, g := range rep.goals {
		statuses = append(statuses, g.what+": "+g.status)
	}
	wantStatuses := []string{
		"Peak RSS of `review-json` at 100,000 objects over 1,000: met",
		"Peak RSS of `lint` at 100,000 objects over 1,000: missed",
		"Peak RSS of `audit` at 100,000 objects over 1,000: met",
	}
	if diff := cmp.Diff(wantStatuses, statuses); diff != "" {
		t.Errorf("goals (-want +got):\n%s", diff)
	}
}

func TestParseMemoryRefusesAnOutputWithoutResults(t *testing.T) {
	for _, out := range []string{"", "PASS\n", "BenchmarkCommandMemory/lint-2 \t1\t5 ns/op\t1000 objects\n"} {
		if _, err := ParseMemory([]byte(out)); err == nil {
			t.Errorf("ParseMemory(%q) gave no error", out)
		}
	}
}
