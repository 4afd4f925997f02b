package report

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// auditLogOutput is auditlogbench's output for two logs, the larger's unsharded audit run twice.
const auditLogOutput = `goos: linux
goarch: amd64
cpu: Test CPU
BenchmarkAuditLogGenerate/writes=1000	1	5000000 ns/op	1000 writes	2000 reads	3000 lines	5.0 log-MiB	20 namespaces	1000 apps	6326 objects	400 request-response-events
BenchmarkLogShardPasses/writes=1000-2	       1	60000000 ns/op	      3000 lines	         0 owned-writes	     12000 scan-cpu-ns/line	     14000 skip-cpu-ns/line
BenchmarkAuditLogReplay/writes=1000/shard=all-2	1	2000000000 ns/op	2.000 cpu-s/op	150.0 peak-RSS-MiB	1000 own-writes	200 audited	10 newly-denied	150 newly-warned	1.00 load1
BenchmarkAuditLogReplay/writes=1000/shard=0of2-2	1	1500000000 ns/op	1.100 cpu-s/op	140.0 peak-RSS-MiB	500 own-writes	100 audited	5 newly-denied	75 newly-warned	1.50 load1
BenchmarkAuditLogReplay/writes=1000/shard=1of2-2	1	1500000000 ns/op	1.100 cpu-s/op	130.0 peak-RSS-MiB	500 own-writes	100 audited	5 newly-denied	75 newly-warned	2.00 load1
BenchmarkAuditLogGenerate/writes=100000	1	500000000 ns/op	100000 writes	200000 reads	300000 lines	500.0 log-MiB	20 namespaces	1000 apps	6326 objects	20000 request-response-events
BenchmarkLogShardPasses/writes=100000-2	       1	6000000000 ns/op	    300000 lines	         0 owned-writes	     10000 scan-cpu-ns/line	     10000 skip-cpu-ns/line
BenchmarkAuditLogReplay/writes=100000/shard=all-2	1	100000000000 ns/op	150.000 cpu-s/op	160.0 peak-RSS-MiB	100000 own-writes	20000 audited	800 newly-denied	15000 newly-warned	1.00 load1
BenchmarkAuditLogReplay/writes=100000/shard=0of2-2	1	60000000000 ns/op	80.000 cpu-s/op	150.0 peak-RSS-MiB	50000 own-writes	10000 audited	400 newly-denied	7500 newly-warned	2.00 load1
BenchmarkAuditLogReplay/writes=100000/shard=1of2-2	1	60000000000 ns/op	90.000 cpu-s/op	140.0 peak-RSS-MiB	50000 own-writes	10000 audited	400 newly-denied	7500 newly-warned	3.00 load1
BenchmarkAuditLogReplay/writes=100000/shard=all-2	1	120000000000 ns/op	160.000 cpu-s/op	170.0 peak-RSS-MiB	100000 own-writes	20000 audited	800 newly-denied	15000 newly-warned	4.00 load1
`

func TestParseAuditLog(t *testing.T) {
	got, err := ParseAuditLog([]byte(auditLogOutput))
	if err != nil {
		t.Fatal(err)
	}
	want := &AuditLog{Procs: 2, CPU: "Test CPU", Sizes: []AuditLogSize{
		{Writes: 1000, Reads: 2000, Lines: 3000, MiB: 5, ScanNsPerLine: 12000, SkipNsPerLine: 14000, Runs: []AuditLogRun{
			{Shard: "all", Wall: 2 * time.Second, CPUSeconds: 2, PeakRSS: 150, OwnWrites: 1000, Audited: 200, NewlyDenied: 10, NewlyWarned: 150, Loads: []float64{1}},
			{Shard: "0of2", Index: 0, Count: 2, Wall: 1500 * time.Millisecond, CPUSeconds: 1.1, PeakRSS: 140, OwnWrites: 500, Audited: 100, NewlyDenied: 5, NewlyWarned: 75, Loads: []float64{1.5}},
			{Shard: "1of2", Index: 1, Count: 2, Wall: 1500 * time.Millisecond, CPUSeconds: 1.1, PeakRSS: 130, OwnWrites: 500, Audited: 100, NewlyDenied: 5, NewlyWarned: 75, Loads: []float64{2}},
		}},
		{Writes: 100000, Reads: 200000, Lines: 300000, MiB: 500, ScanNsPerLine: 10000, SkipNsPerLine: 10000, Runs: []AuditLogRun{
			{Shard: "all", Wall: 110 * time.Second, CPUSeconds: 155, PeakRSS: 165, OwnWrites: 100000, Audited: 20000, NewlyDenied: 800, NewlyWarned: 15000, Loads: []float64{1, 4}},
			{Shard: "0of2", Index: 0, Count: 2, Wall: 60 * time.Second, CPUSeconds: 80, PeakRSS: 150, OwnWrites: 50000, Audited: 10000, NewlyDenied: 400, NewlyWarned: 7500, Loads: []float64{2}},
			{Shard: "1of2", Index: 1, Count: 2, Wall: 60 * time.Second, CPUSeconds: 90, PeakRSS: 140, OwnWrites: 50000, Audited: 10000, NewlyDenied: 400, NewlyWarned: 7500, Loads: []float64{3}},
		}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	rep := &Report{Sections: map[string]string{}}
	if err := auditLogSection(Input{AuditLog: got, ChartPath: "../bench/results/"}, rep); err != nil {
		t.Fatal(err)
	}
	section := rep.Sections[SectionAuditLog]
	// Unsharded 100,000 writes in 155 CPU-s: 645 a CPU-second; shard 0 625 (-3.1%), shard 1 556
	// (-13.9%). A replayed write 1550 µs, a skipped line 10 µs: 155×. A week at 100 writes a
	// second, 3 lines a write: 181 million lines of 20 µs, 1.01 CPU-hours of passes; the replay
	// 60.48 million writes of 1550 µs, 26.0 CPU-hours.
	for _, want := range []string{"2 rounds", "on 2 cores (`Test CPU`)", "[`bench/results/audit-log.txt`](../bench/results/audit-log.txt)",
		"| 100,000 | 300,000 | 500 MiB | unsharded | 100,000 | 155 CPU-s | 110 s | 645 | – | 165 MiB | 1.0–4.0 |",
		"| 100,000 | 300,000 | 500 MiB | shard 1/2 | 50,000 | 90.0 CPU-s | 60.0 s | 556 | -13.9% | 140 MiB | 3.0 |",
		"**missed** — -3.12%, -13.9%.",
		"at 100,000 writes at most 1.20× its peak at 1,000): **met** — unsharded 1.10×, shard 0/2 1.07×, shard 1/2 1.08×.",
		"**met** — 10.0 µs of CPU a skipped line, 1550 µs a replayed write (the unsharded audit's CPU over the log's writes): 155×.",
		"| 1,000 | 12.0 µs | 14.0 µs | 2000 µs |",
		"100 writes a second, 60.5 million a week, with 3.00 lines",
		"| 1 | 26.0 | 0 | 13.0 |", "| 2 | 14.0 | 1.01 | 7.52 |", "| 32 | 1.82 | 1.01 | 1.41 |",
		"in 2 shards: 83.5 CPU-s a shard; measured: 80.0, 90.0 CPU-s."} {
		if !strings.Contains(section, want) {
			t.Errorf("the audit log section lacks %q:\n%s", want, section)
		}
	}
	goals := goalsSection(rep.goals)
	for _, want := range []string{
		"| Audit-log shards: own writes per CPU-second, 100,000 writes | within 10.0% of unsharded | -3.12%, -13.9% | **missed** |",
		"| Audit-log shards: peak RSS at 100,000 writes over 1,000 | ≤ 1.20× | 1.10× | **met** |",
		"| Audit-log shards: a skipped line's CPU | ≥ 20.0× less than a replayed write's | 155× less | **met** |"} {
		if !strings.Contains(goals, want) {
			t.Errorf("the goals lack %q:\n%s", want, goals)
		}
	}

	for _, tc := range []struct{ out, wantErr string }{
		{"PASS\n", "no BenchmarkAuditLogReplay result line"},
		{"BenchmarkAuditLogReplay/writes=10/shard=all-2 1 3 ns/op 4\n", "value-unit pairs"},
		{"BenchmarkAuditLogReplay/shard=all-2 1 3 ns/op 4 cpu-s/op\n", "want a writes=N size"},
		{"BenchmarkAuditLogReplay/writes=10/shard=2of2-2 1 3 ns/op 4 cpu-s/op 5 own-writes\n", "want shard=all or shard=IofN"},
		{"BenchmarkAuditLogReplay/writes=10/shard=all-2 1 3 ns/op 5 own-writes\n", "want cpu-s/op and own-writes"},
		{"BenchmarkAuditLogReplay/writes=10/shard=all-2 1 3 ns/op 4 cpu-s/op 5 own-writes\n", "want the log's BenchmarkAuditLogGenerate line"},
		{"BenchmarkAuditLogGenerate/writes=10 1 3 ns/op 10 writes 30 lines\nBenchmarkAuditLogReplay/writes=10/shard=0of2-2 1 3 ns/op 4 cpu-s/op 5 own-writes\n", "no unsharded audit"},
		{"BenchmarkLogShardPasses/writes=10-2 1 3 ns/op 30 lines\n", "want scan-cpu-ns/line and skip-cpu-ns/line"},
	} {
		if _, err := ParseAuditLog([]byte(tc.out)); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("ParseAuditLog(%q) = %v, want an error containing %q", tc.out, err, tc.wantErr)
		}
	}
}

// Without the audit log's output, the section says so and its goals are not measured.
func TestAuditLogNotMeasured(t *testing.T) {
	rep := &Report{Sections: map[string]string{}}
	if err := auditLogSection(Input{}, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Sections[SectionAuditLog], "make bench-audit-log") || len(rep.goals) != 3 || rep.goals[0].status != "not measured" {
		t.Errorf("section %q, goals %+v", rep.Sections[SectionAuditLog], rep.goals)
	}
}
