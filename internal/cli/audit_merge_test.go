package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/audit"
)

// withoutTimes is a report's JSON without its time and duration, which differ from run to run.
func withoutTimes(t *testing.T, report string) string {
	t.Helper()
	var r audit.Report
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("%v\n%s", err, report)
	}
	r.DurationSeconds = 0
	r.Time = r.Time.AddDate(-r.Time.Year()+1, 0, 0).Truncate(1 << 62)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// admit audit --shard I/N writes a shard's report and succeeds whatever it found; admit audit
// merge adds the shards up to the whole audit's report and its exit code.
func TestAuditMerge(t *testing.T) {
	f := newAuditFixture(t)
	args := []string{"-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline}
	whole, stderr, wholeCode := runAudit(t, context.Background(), append(args, "-o", "json")...)
	if wholeCode != ExitRejected {
		t.Fatalf("the whole audit: exit %d, want 1\n%s", wholeCode, stderr)
	}
	dir := t.TempDir()
	var shards []string
	for i := range 3 {
		out, stderr, code := runAudit(t, context.Background(), append(args, "-o", "json", "--shard", fmt.Sprintf("%d/3", i))...)
		if code != ExitOK {
			t.Fatalf("shard %d/3: exit %d, want 0 (the verdict is the merge's)\n%s", i, code, stderr)
		}
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, path)
	}
	merged, stderr, code := runAudit(t, context.Background(), append([]string{"merge", "-o", "json"}, shards...)...)
	if code != wholeCode {
		t.Errorf("merge: exit %d, the whole audit's %d\n%s", code, wholeCode, stderr)
	}
	if diff := cmp.Diff(withoutTimes(t, whole), withoutTimes(t, merged)); diff != "" {
		t.Errorf("merged shards (-whole +merged):\n%s", diff)
	}
	// The directory of the reports reads as its files; thresholds apply to the merged counts.
	if _, stderr, code := runAudit(t, context.Background(), "merge", dir, "--max-new-denials", "-1", "--max-new-failures", "-1"); code != ExitOK {
		t.Errorf("merge of the directory with no thresholds: exit %d\n%s", code, stderr)
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"a shard missing", []string{"merge", shards[0], shards[2]}, "shard 1/3 is missing: the merge of 2 reports would not be the whole audit"},
		{"a shard twice", []string{"merge", shards[0], shards[1], shards[2], shards[1]}, "shard 1/3 is given twice: " + shards[1] + " and " + shards[1]},
		{"not a report", []string{"merge", f.dump}, f.dump + ": not an audit report of this version of admit"},
		{"a whole report", []string{"merge", writeTemp(t, dir, "whole.txt", whole)}, "not a shard's report (admit audit --shard writes one)"},
		{"a text shard", append(args, "--shard", "0/2"), "shard 0/2: a shard's report is for admit audit merge to read: give -o json or -o yaml"},
		{"a shard out of range", append(args, "-o", "json", "--shard", "2/2"), "--shard: shard 2/2: the index must be from 0 to 1"},
		{"no count", append(args, "-o", "json", "--shard", "1"), `--shard: shard "1": give INDEX/COUNT, as 0/4 for the first of four shards`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runAudit(t, context.Background(), tt.args...)
			if code != ExitBadInput || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q:\n%s", code, tt.want, stderr)
			}
		})
	}
}

// In a pod of an Indexed Job, the shard is the pod's completion index of the count the Job's
// manifest sets.
func TestAuditShardFromTheJob(t *testing.T) {
	f := newAuditFixture(t)
	args := []string{"audit", "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "-o", "json"}
	run := func(env map[string]string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, Getenv: func(k string) string { return env[k] }})
		return out.String(), errOut.String(), code
	}
	out, stderr, code := run(map[string]string{audit.EnvCompletionIndex: "1", audit.EnvShardCount: "2"})
	var report audit.Report
	if code != ExitOK || json.Unmarshal([]byte(out), &report) != nil || report.Shard == nil || report.Shard.Index != 1 || report.Shard.Count != 2 {
		t.Errorf("exit %d, want shard 1/2's report:\n%s\n%s", code, stderr, out)
	}
	if _, stderr, code := run(map[string]string{audit.EnvCompletionIndex: "1"}); code != ExitBadInput || !strings.Contains(stderr, "ADMIT_AUDIT_SHARDS is not set") {
		t.Errorf("without the count: exit %d\n%s", code, stderr)
	}
}

// An audit log is read from standard input, or from a directory of its rotated files, the
// oldest first whatever their names, gzipped or not: the same report as the one file.
func TestAuditLogSources(t *testing.T) {
	dir := t.TempDir()
	path := auditLog(t, dir)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	proposal := writeTemp(t, dir, "proposal.yaml", noBobPolicy)
	totals := func(stdout, stderr string, code int) audit.Totals {
		t.Helper()
		var r audit.Report
		if code != ExitRejected || json.Unmarshal([]byte(stdout), &r) != nil {
			t.Fatalf("exit %d\n%s\n%s", code, stderr, stdout)
		}
		return r.Totals
	}
	want := totals(runAudit(t, context.Background(), "--audit-log", path, "--webhooks", proposal, "-o", "json"))

	// Rotated: the live file holds the newest lines, audit.log.1 older ones, audit.log.2.gz the oldest.
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	rotated := filepath.Join(dir, "rotated")
	if err := os.Mkdir(rotated, 0o700); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(strings.Join(lines[:3], "")))
	w.Close()
	writeTemp(t, rotated, "audit.log.2.gz", gz.String())
	writeTemp(t, rotated, "audit.log.1", strings.Join(lines[3:6], ""))
	writeTemp(t, rotated, "audit.log", strings.Join(lines[6:], ""))
	if got := totals(runAudit(t, context.Background(), "--audit-log", rotated, "--webhooks", proposal, "-o", "json")); got != want {
		t.Errorf("rotated files: totals %+v, the one file's %+v", got, want)
	}

	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"audit", "--audit-log", "-", "--webhooks", proposal, "-o", "json"}, Streams{In: bytes.NewReader(data), Out: &out, Err: &errOut})
	if got := totals(out.String(), errOut.String(), code); got != want {
		t.Errorf("standard input: totals %+v, the one file's %+v", got, want)
	}
	if !strings.Contains(out.String(), `"source": "standard input"`) {
		t.Errorf("the report does not name standard input:\n%s", out.String())
	}
}

func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
