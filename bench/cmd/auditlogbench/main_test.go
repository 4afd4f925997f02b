package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadInvocations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no admit", []string{"-dir", t.TempDir()}, "-admit and -dir are required"},
		{"bad sizes", []string{"-admit", "admit", "-dir", t.TempDir(), "-writes", "100,x"}, "want positive counts"},
		{"one shard", []string{"-admit", "admit", "-dir", t.TempDir(), "-shards", "1"}, "-shards must be 2 or more"},
		{"stray argument", []string{"-admit", "admit", "-dir", t.TempDir(), "now"}, `unexpected arguments ["now"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if err := run(context.Background(), tc.args, &bytes.Buffer{}, &stderr); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestSameCounts(t *testing.T) {
	if err := sameCounts(map[string]int{"read": 10, "audited": 4}, map[string]int{"read": 10, "audited": 4}); err != nil {
		t.Error(err)
	}
	err := sameCounts(map[string]int{"read": 10, "audited": 4}, map[string]int{"read": 9, "audited": 4, "skipped": 1})
	if err == nil || err.Error() != "read 10 unsharded, 9 in shards; skipped 0 unsharded, 1 in shards" {
		t.Errorf("got %v", err)
	}
}

// The harness on a small log with the admit binary make's test-binaries builds (ADMIT_BINARY),
// for `make bench-smoke`: a few seconds. The harness itself fails unless the shards add up to the
// whole audit.
func TestSmoke(t *testing.T) {
	admit := os.Getenv("ADMIT_BINARY")
	if _, err := os.Stat(admit); admit == "" || err != nil {
		t.Skip("ADMIT_BINARY names no admit binary (make test-binaries builds one)")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "audit-log.txt")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-admit", admit, "-dir", dir, "-o", out, "-writes", "1000"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nBenchmarkAuditLogGenerate/writes=1000\t1\t", "\t1000 writes\t", "\nBenchmarkAuditLogReplay/writes=1000/shard=all-",
		"\t1000 own-writes\t", "\nBenchmarkAuditLogReplay/writes=1000/shard=0of2-", "\nBenchmarkAuditLogReplay/writes=1000/shard=1of2-", " peak-RSS-MiB\t"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the results lack %q:\n%s", want, data)
		}
	}
	if logs, _ := filepath.Glob(filepath.Join(dir, "*.log")); len(logs) > 0 {
		t.Errorf("logs left behind: %q", logs)
	}
}
