package report

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseAudit(t *testing.T) {
	line := func(ns, cpu, load, objects, perSecond, rss string) string {
		return "BenchmarkAudit100k-2   \t1\t" + ns + " ns/op\t" + cpu + " cpu-s/op\t" + load + " load1\t" + objects + " objects\t" +
			perSecond + " objects/s\t" + rss + " peak-RSS-MiB\n"
	}
	out := "goos: linux\npkg: github.com/admitkit/admit/internal/cli\ncpu: Test CPU\n" +
		line("60000000000", "120", "2.0", "100000", "1667", "150") + "PASS\n" +
		line("1000000000", "1.5", "1.0", "1000", "1000", "120") +
		line("80000000000", "130", "3.0", "100000", "1250", "170") +
		line("70000000000", "125", "2.5", "100000", "1429", "160")
	got, err := ParseAudit([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := &Audit{Procs: 2, CPU: "Test CPU", Sizes: []AuditSize{
		{Objects: 1000, Wall: time.Second, ObjectsPerSecond: 1000, CPUSeconds: 1.5, PeakRSS: 120,
			Runs: []AuditRun{{Wall: time.Second, ObjectsPerSecond: 1000, CPUSeconds: 1.5, PeakRSS: 120, Load: 1}}},
		{Objects: 100000, Wall: 70 * time.Second, ObjectsPerSecond: 1429, CPUSeconds: 125, PeakRSS: 160, Runs: []AuditRun{
			{Wall: 60 * time.Second, ObjectsPerSecond: 1667, CPUSeconds: 120, PeakRSS: 150, Load: 2},
			{Wall: 80 * time.Second, ObjectsPerSecond: 1250, CPUSeconds: 130, PeakRSS: 170, Load: 3},
			{Wall: 70 * time.Second, ObjectsPerSecond: 1429, CPUSeconds: 125, PeakRSS: 160, Load: 2.5},
		}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	rep := &Report{Sections: map[string]string{}}
	if err := auditSection(Input{Audit: got, ChartPath: "../bench/results/"}, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 rounds", "on 2 cores (`Test CPU`)", "[`bench/results/audit-100k.txt`](../bench/results/audit-100k.txt)",
		"| 100,000 | 125 CPU-s | 70.0 s | 1430 | 160 MiB | 120, 130, 125 CPU-s | 60.0, 80.0, 70.0 s | 150, 170, 160 MiB | 2.0–3.0 |",
		"- 100,000 objects: 125 CPU-seconds, at least 62.5 s of wall time on 2 cores of its own."} {
		if !strings.Contains(rep.Sections[SectionAudit], want) {
			t.Errorf("the audit section lacks %q:\n%s", want, rep.Sections[SectionAudit])
		}
	}

	for _, tc := range []struct{ out, wantErr string }{
		{"PASS\n", "no BenchmarkAudit100k result line"},
		{"BenchmarkAudit100k-2 1 3 ns/op 4\n", "value-unit pairs"},
		{"BenchmarkAudit100k-2 1 3 ns/op 5 objects/s 1.2 cpu-s/op\n", "want objects, objects/s and cpu-s/op"},
		{"BenchmarkAudit100k-2 1 3 ns/op x objects\n", "metric objects"},
	} {
		if _, err := ParseAudit([]byte(tc.out)); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseAudit(%q) = %v, want an error containing %q", tc.out, err, tc.wantErr)
		}
	}
}
