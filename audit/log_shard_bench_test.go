//go:build unix

package audit

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// BenchmarkLogShardPasses measures what every shard of an audit of the log ADMIT_AUDIT_LOG pays
// for each of its lines whatever the shard, the two passes over the whole log: the state pass
// (Log.Scan, a line's head decoded, the state's events in full), and the writes pass of a shard
// that owns none of the log's objects, so that every line takes the path another shard's line
// takes in Log.Writes — read, its head decoded, its key hashed, skipped. `make bench-audit-log`
// (bench/cmd/auditlogbench) runs it on its generated log, in a process of its own, and compares
// the cost of a line with that of a replayed write.
//
// The time of each pass is the process's CPU time (getrusage), which other work on the machine
// does not change as it does the wall time; the log is read once beforehand, so that both passes
// find it in the page cache, as the second pass of a real audit does. It is the build tag's
// reason: getrusage is Unix's.
func BenchmarkLogShardPasses(b *testing.B) {
	path := os.Getenv("ADMIT_AUDIT_LOG")
	if path == "" {
		b.Skip("ADMIT_AUDIT_LOG names the audit log to measure (make bench-audit-log generates one)")
	}
	log := &Log{Path: path}
	var lines int64
	if err := log.lines(func(*logLine) error { lines++; return nil }); err != nil {
		b.Fatal(err)
	}
	mapper, err := resources.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	// Shard 0 of 2^40: the 64-bit hash of no key of a real log falls in it (the sink counts any
	// that would), so Log.Writes skips every line.
	sink := &skippingSink{shard: Shard{Index: 0, Count: 1 << 40}, matcher: NewMatcher(nil, mapper)}
	var scan, skip time.Duration
	for b.Loop() {
		start := processCPU(b)
		if _, err := log.Scan(context.Background(), ScanOptions{State: true}); err != nil {
			b.Fatal(err)
		}
		middle := processCPU(b)
		if err := log.Writes(context.Background(), sink); err != nil {
			b.Fatal(err)
		}
		scan += middle - start
		skip += processCPU(b) - middle
	}
	perLine := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(lines) / float64(b.N) }
	b.ReportMetric(float64(lines), "lines")
	b.ReportMetric(perLine(scan), "scan-cpu-ns/line")
	b.ReportMetric(perLine(skip), "skip-cpu-ns/line")
	b.ReportMetric(float64(sink.owned)/float64(b.N), "owned-writes")
}

// processCPU is the CPU time the process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		b.Fatal(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// skippingSink is the Sink of a shard that should own nothing: it counts what it is given.
type skippingSink struct {
	shard   Shard
	matcher *Matcher
	owned   int
}

func (s *skippingSink) Add(Write) error                            { s.owned++; return nil }
func (s *skippingSink) AddStored(review.Input, int64) error        { s.owned++; return nil }
func (s *skippingSink) Skip(Skipped)                               { s.owned++ }
func (s *skippingSink) Unaffected()                                { s.owned++ }
func (s *skippingSink) Shard() Shard                               { return s.shard }
func (s *skippingSink) KeyOf(*unstructured.Unstructured) ObjectKey { return ObjectKey{} }
func (s *skippingSink) Note(string)                                {}
func (s *skippingSink) Matcher() *Matcher                          { return s.matcher }
func (s *skippingSink) Operation() string                          { return "UPDATE" }
func (s *skippingSink) DryRun() bool                               { return true }
func (s *skippingSink) Namespace() string                          { return "" }
