package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admitkit/admit/bench/suite"
	"github.com/admitkit/admit/bench/usage"
)

// savedResults writes a results file like a run's into a fresh directory.
func savedResults(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r := suite.Results{Machine: usage.DescribeMachine(), Command: "make bench", Started: time.Now(), Rounds: 1, Config: suite.Full()}
	for _, server := range []string{"admit", "hand-written", "controller-runtime", "floor"} {
		r.Serving = append(r.Serving, suite.ServingSample{Server: server, Round: 1, Throughput: 1000, Requests: 100,
			PerRequest: usage.PerOp{CPU: 100 * time.Microsecond, Allocs: 10}, P50: time.Millisecond, P99: 2 * time.Millisecond})
	}
	for _, d := range []string{suite.DispatcherAdmit, suite.DispatcherAPIServer, suite.DispatcherInputCopy} {
		r.Dispatch = append(r.Dispatch, suite.DispatchSample{Dispatcher: d, Round: 1, Admissions: 10, Elapsed: time.Second,
			PerAdmission: usage.PerOp{CPU: time.Millisecond, Allocs: 100}})
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, resultsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The real docs page has every generated section's markers, and a report renders into it.
func TestReportOnlyRendersTheDocsPage(t *testing.T) {
	dir := savedResults(t)
	latency := filepath.Join(dir, "e2e-latency.txt")
	if err := os.WriteFile(latency, []byte("BenchmarkWebhookLatency-2 100 5000000 ns/op 2.0 mutating-p50-ms 3.0 mutating-p99-ms 1.5 none-p50-ms 2.5 none-p99-ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join("..", "..", "..", "docs", "benchmarks.md")
	before, err := os.ReadFile(docs)
	if err != nil {
		t.Fatal(err)
	}
	review := filepath.Join(dir, "review-throughput.txt")
	if err := os.WriteFile(review, []byte("BenchmarkReviewThroughput/objects=10000/webhook=none-2 1 5 ns/op 800 cpu-µs/object 2000 objects/s 400 peak-rss-MiB 1.5 load1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(dir, "audit-100k.txt")
	if err := os.WriteFile(audit, []byte("BenchmarkAudit100k-2 1 60000000000 ns/op 120 cpu-s/op 2.0 load1 100000 objects 1667 objects/s 150 peak-RSS-MiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	memory := filepath.Join(dir, "memory.txt")
	if err := os.WriteFile(memory, []byte("BenchmarkCommandMemory/review-json-2 1 5 ns/op 1.5 cpu-s/op 1000 objects 700 objects/s 120 peak-RSS-MiB\n"+
		"BenchmarkCommandMemory/review-json-2 1 5 ns/op 150 cpu-s/op 100000 objects 700 objects/s 150 peak-RSS-MiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	auditLog := filepath.Join(dir, "audit-log.txt")
	if err := os.WriteFile(auditLog, []byte("BenchmarkAuditLogGenerate/writes=1000 1 5 ns/op 1000 writes 2000 reads 3000 lines 5.0 log-MiB\n"+
		"BenchmarkAuditLogReplay/writes=1000/shard=all-2 1 2000000000 ns/op 2.0 cpu-s/op 150 peak-RSS-MiB 1000 own-writes 1.0 load1\n"+
		"BenchmarkAuditLogReplay/writes=1000/shard=0of2-2 1 1500000000 ns/op 1.0 cpu-s/op 140 peak-RSS-MiB 500 own-writes 1.0 load1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	anchors := filepath.Join(dir, "anchors.txt")
	if err := os.WriteFile(anchors, []byte("BenchmarkReviewAnchors/webhook=none-2 1 5 ns/op 1000 apiserver-cpu-µs/object 200 etcd-cpu-µs/object 480 kubectl-validate-cpu-µs/object 4800 objects 400 review-cpu-µs/object 0.4 review/apiserver\n"+
		"BenchmarkReviewAnchors/webhook=one-2 1 5 ns/op 1500 apiserver-cpu-µs/object 250 etcd-cpu-µs/object 4800 objects 600 review-cpu-µs/object 0.4 review/apiserver\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := filepath.Join(dir, "patch.txt")
	if err := os.WriteFile(patch, []byte("BenchmarkDiff/pod-sidecar/admit-2 100 50000 ns/op 3 ops 62000 B/op 31 allocs/op\n"+
		"BenchmarkDiff/pod-sidecar/gomodules-2 10 500000 ns/op 3 ops 250000 B/op 4434 allocs/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Any Go binary has the build information the size section reads: the test's own.
	binary, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "benchmarks.md")
	var stderr bytes.Buffer
	if err := run([]string{"-report-only", "-results", dir, "-docs", docs, "-docs-out", out, "-latency", latency, "-review", review, "-audit", audit, "-memory", memory, "-audit-log", auditLog, "-anchors", anchors, "-patch", patch, "-binary", binary}, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| admit | 1000 | 1.00× |", "| admit `dispatch` | 1000 µs |", "| mutating | 2.00 ms | 3.00 ms | +0.500 ms |", "## Patch generation",
		"| no webhook | 10000 | 2000 | 800 µs | 400 MiB |", "The release binary, `bin/linux/admit`",
		"| 100,000 | 120 CPU-s | 60.0 s | 1670 | 150 MiB |", "| `review-json` | 120 | 150 | 1.25× | 1.50 |",
		"| 1,000 | 3,000 | 5.00 MiB | shard 0/2 | 500 | 1.00 CPU-s | 1.50 s | 500 | 0% | 140 MiB | 1.0 |",
		"| no webhook | 1 | 4800 | 1000 µs | – | 200 µs | 400 µs | 0.400× | 480 µs | 0.0 |", "| Review CPU per object, one webhook over none | ≤ 1.30× | 1.50× | **missed** |", "| Diff | pod-sidecar | gomodules | 500 µs | 4434 | 244 KiB | 3 | 10.0× |"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	for _, chart := range []string{"serving-throughput.svg", "serving-cpu.svg", "serving-latency.svg", "dispatch-cpu.svg", "e2e-latency.svg", "review-throughput.svg", "review-memory.svg"} {
		if _, err := os.Stat(filepath.Join(dir, chart)); err != nil {
			t.Errorf("chart %s not written: %v", chart, err)
		}
	}
	after, err := os.ReadFile(docs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("-docs-out was given, yet the docs page itself changed")
	}
}

func TestBadInvocations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown flag", []string{"-rounds", "3"}, "flag provided but not defined"},
		{"stray argument", []string{"-report-only", "now"}, `unexpected arguments ["now"]`},
		{"no saved results", []string{"-report-only", "-results", t.TempDir()}, "reading the last results"},
		{"missing latency file", []string{"-report-only", "-results", savedResults(t), "-latency", "/nonexistent/e2e.txt"}, "reading the latency benchmark's output"},
		{"missing review file", []string{"-report-only", "-results", savedResults(t), "-review", "/nonexistent/review.txt"}, "reading the review benchmark's output"},
		{"missing audit file", []string{"-report-only", "-results", savedResults(t), "-audit", "/nonexistent/audit.txt"}, "reading the audit benchmark's output"},
		{"missing audit log file", []string{"-report-only", "-results", savedResults(t), "-audit-log", "/nonexistent/audit-log.txt"}, "reading the audit log benchmark's output"},
		{"missing anchors file", []string{"-report-only", "-results", savedResults(t), "-anchors", "/nonexistent/anchors.txt"}, "reading the anchors benchmark's output"},
		{"missing patch file", []string{"-report-only", "-results", savedResults(t), "-patch", "/nonexistent/patch.txt"}, "reading the patch benchmarks' output"},
		{"missing binary", []string{"-report-only", "-results", savedResults(t), "-binary", "/nonexistent/admit"}, "the release binary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if err := run(tc.args, &stderr); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
