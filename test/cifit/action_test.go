//go:build !e2e

package cifit

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/admitkit/admit/lint/sarif"
)

// actionCase is one use of the action in a job, and what it must do.
type actionCase struct {
	name string
	with map[string]string
	// exitCode is the action's exit-code output; "" when admit did not run.
	exitCode string
	// failedStep is the step the action fails at, "" when it passes.
	failedStep string
	// summary and log are texts the job summary, and the steps' output, must hold.
	summary, log []string
	check        func(t *testing.T, run *Run)
}

// sourceJob is the job that the tests using the action as this checkout's workflows would
// (`uses: ./`, the workspace the checkout, version: source) share, as one job whose steps use
// the action again and again: its first use builds admit, the others find it. TestMain removes
// its directory.
var sourceJob struct {
	sync.Mutex
	job  *Job
	root string
}

func sharedSourceJob(t *testing.T) *Job {
	t.Helper()
	sourceJob.Lock()
	defer sourceJob.Unlock()
	if sourceJob.job == nil {
		root, err := os.MkdirTemp("", "cifit-job-")
		if err != nil {
			t.Fatal(err)
		}
		sourceJob.root = root
		if sourceJob.job, err = NewJob(repoRoot(t), root); err != nil {
			t.Fatal(err)
		}
	}
	return sourceJob.job
}

// TestActionInAJob uses the repository's action in the shared job, one use after the other:
// the first builds admit from the checkout (version: source), the later ones find it installed.
// Each use must give the exit code, report and summary its command and inputs call for, and fail
// the workflow's step exactly when admit failed.
func TestActionInAJob(t *testing.T) {
	action, err := LoadAction(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	job := sharedSourceJob(t)
	dir := filepath.Join(job.Temp, "admit-action", "source")
	for _, tc := range actionCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			_, err := os.Stat(filepath.Join(dir, "admit"))
			installed := err == nil
			run, err := job.Run(ctx, action, tc.with)
			if err != nil {
				t.Fatal(err)
			}
			install := run.Step("install")
			if !installed && !strings.Contains(install.Output, "admit: building") {
				t.Errorf("the job's first use did not build admit from the checkout:\n%s", install.Output)
			}
			if installed && !strings.Contains(install.Output, "installed by an earlier step of this job") {
				t.Errorf("a later use of the job installed admit again:\n%s", install.Output)
			}
			checkRun(t, run, tc)
		})
	}
	if len(job.path) != 1 || job.path[0] != dir {
		t.Errorf("PATH additions for the job's later steps = %q, want [%s]", job.path, dir)
	}
}

func actionCases(t *testing.T) []actionCase {
	report := filepath.Join(t.TempDir(), "reports", "lint.sarif")
	return []actionCase{
		{name: "test passes", with: map[string]string{"command": "test", "args": "examples/policies"}, exitCode: "0",
			summary: []string{"### admit test: passed (exit code 0)\n\n### ✅ admit test\n", "3 cases in 1 file: 3 passed, 0 failed\n"},
			check:   junitCounts(3, 0)},
		{name: "test fails", with: map[string]string{"command": "test", "args": "test/cifit/testdata/failing.admit-test.yaml"}, exitCode: "1",
			failedStep: "Fail as admit did",
			summary:    []string{"### admit test: failed: a case failed (exit code 1)", "admitted, want rejected"},
			log:        []string{"::error title=admit test::admit test exited with 1"},
			check:      junitCounts(1, 1)},
		{name: "args are split as a shell splits them", with: map[string]string{"command": "test", "args": `examples/policies --run "an UPDATE that 'scales'|scales past"`}, exitCode: "0",
			summary: []string{"1 case in 1 file: 1 passed"}},
		{name: "the working directory", with: map[string]string{"command": "test", "working-directory": "examples/policies"}, exitCode: "0",
			summary: []string{"### ✅ admit test", "3 cases in 1 file: 3 passed"}},
		{name: "lint passes, its SARIF uploaded", with: map[string]string{"command": "lint", "args": "examples/policies/policies.yaml examples/testing/webhooks.yaml examples/audit/webhook-safe.yaml"}, exitCode: "0",
			summary: []string{"### admit lint: passed (exit code 0)", "no findings"},
			check:   sarifUpload(nil, "admit-lint")},
		{name: "lint finds, its SARIF uploaded", with: map[string]string{"command": "lint", "args": "examples/policies/broken/policies.yaml", "report": report, "sarif-category": "policies"}, exitCode: "1",
			failedStep: "Fail as admit did",
			summary:    []string{"### admit lint: failed: findings (exit code 1)", "| `F05` policy-type-check |"},
			check: func(t *testing.T, run *Run) {
				if run.Outputs["report"] != report {
					t.Errorf("report = %q, want the one asked for, %s", run.Outputs["report"], report)
				}
				sarifUpload([]string{"F03", "F05", "F01"}, "policies")(t, run)
			}},
		{name: "lint without upload", with: map[string]string{"command": "lint", "args": "examples/policies/policies.yaml", "upload-sarif": "false", "summary": "false"}, exitCode: "0",
			check: func(t *testing.T, run *Run) {
				if !run.Step("Upload SARIF to code scanning").Skipped {
					t.Error("the SARIF was uploaded with upload-sarif: false")
				}
				if run.Summary != "" {
					t.Errorf("summary: false wrote a summary:\n%s", run.Summary)
				}
			}},
		{name: "lint of no configuration is bad input", with: map[string]string{"command": "lint", "args": "examples/testing/pod.yaml"}, exitCode: "2",
			failedStep: "Fail as admit did",
			summary:    []string{"### admit lint: failed: bad input (exit code 2)", "admit: nothing to lint"}},
		{name: "audit within its thresholds", with: map[string]string{"command": "audit", "args": "-f examples/audit/dump.yaml --baseline examples/audit/current --webhooks examples/audit/deny.yaml --max-new-denials 2"}, exitCode: "0",
			summary: []string{"### admit audit: passed (exit code 0)", "2 newly denied"},
			check:   junitCounts(1, 1)},
		{name: "audit beyond its thresholds", with: map[string]string{"command": "audit", "args": "-f examples/audit/dump.yaml --baseline examples/audit/current --webhooks examples/audit/deny.yaml"}, exitCode: "1",
			failedStep: "Fail as admit did",
			summary:    []string{"### admit audit: failed: new effects beyond the thresholds (exit code 1)", "| UPDATE Deployment shop/api |", "admit: 2 newly denied writes (more than 0)"},
			check:      junitCounts(1, 1)},
		{name: "an unknown command", with: map[string]string{"command": "review", "args": "-f x.yaml"}, failedStep: "run",
			log: []string{`::error title=admit::command "review" is not test, lint or audit`}},
		{name: "unbalanced quotes", with: map[string]string{"command": "test", "args": `--run "a case`}, failedStep: "run",
			log: []string{"::error title=admit::args: unbalanced quotes"}},
	}
}

// checkRun checks a use of the action against its case: the exit code, the step it fails at
// (the last, with admit's exit code, when admit failed), the summary and the log.
func checkRun(t *testing.T, run *Run, tc actionCase) {
	t.Helper()
	if got := run.Outputs["exit-code"]; got != tc.exitCode {
		t.Errorf("exit-code = %q, want %q", got, tc.exitCode)
	}
	var failed, log string
	for _, s := range run.Steps {
		log += s.Output
		if s.ExitCode != 0 && failed == "" {
			failed = s.Label
			if want, _ := strconv.Atoi(tc.exitCode); s.Label == "Fail as admit did" && s.ExitCode != want {
				t.Errorf("the action's last step exited with %d, not admit's %d", s.ExitCode, want)
			}
		}
	}
	if failed != tc.failedStep || run.Failed != (tc.failedStep != "") {
		t.Errorf("failed at %q (action failed: %v), want %q", failed, run.Failed, tc.failedStep)
	}
	for _, want := range tc.summary {
		if !strings.Contains(run.Summary, want) {
			t.Errorf("the job summary lacks %q:\n%s", want, run.Summary)
		}
	}
	for _, want := range tc.log {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if t.Failed() {
		t.Logf("steps' output:\n%s", log)
	}
	if tc.check != nil && !t.Failed() {
		tc.check(t, run)
	}
}

// junitCounts checks the run's report as JUnit XML with these test and failure counts in all
// (tests < 0: any number).
func junitCounts(tests, failures int) func(*testing.T, *Run) {
	return func(t *testing.T, run *Run) {
		t.Helper()
		data, err := os.ReadFile(run.Outputs["report"])
		if err != nil {
			t.Fatalf("the report output: %v", err)
		}
		var suites struct {
			XMLName xml.Name `xml:"testsuites"`
			Suites  []struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(data, &suites); err != nil {
			t.Fatalf("the report is not JUnit XML: %v\n%s", err, data)
		}
		var n, failed int
		for _, s := range suites.Suites {
			n, failed = n+s.Tests, failed+s.Failures
		}
		if (tests >= 0 && n != tests) || failed != failures || n == 0 {
			t.Errorf("JUnit: %d tests, %d failures; want %d, %d\n%s", n, failed, tests, failures, data)
		}
	}
}

// sarifUpload checks the run's report as SARIF 2.1.0 with results of these rules, each at a file
// of the workspace (as code scanning resolves them), and the upload step given it.
func sarifUpload(rules []string, category string) func(*testing.T, *Run) {
	return func(t *testing.T, run *Run) {
		t.Helper()
		path := run.Outputs["report"]
		log := readSARIF(t, path)
		var got []string
		for _, r := range log.Runs[0].Results {
			got = append(got, r.RuleID)
			for _, l := range r.Locations {
				if l.PhysicalLocation == nil {
					continue
				}
				if _, err := os.Stat(filepath.Join(repoRoot(t), filepath.FromSlash(l.PhysicalLocation.ArtifactLocation.URI))); err != nil {
					t.Errorf("result %s: its file is not the workspace's: %v", r.RuleID, err)
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(rules, " ") {
			t.Errorf("SARIF results of rules %q, want %q", got, rules)
		}
		upload := run.Step("Upload SARIF to code scanning")
		if upload.Skipped || upload.With["sarif_file"] != path || upload.With["category"] != category {
			t.Errorf("upload-sarif: skipped %v, with %v; want sarif_file %s, category %s", upload.Skipped, upload.With, path, category)
		}
		if !strings.HasPrefix(upload.Uses, "github/codeql-action/upload-sarif@") || len(strings.TrimPrefix(upload.Uses, "github/codeql-action/upload-sarif@")) != 40 {
			t.Errorf("uses %s: pin upload-sarif by its commit", upload.Uses)
		}
	}
}

// readSARIF decodes a SARIF log as lint/sarif writes it, strictly, and checks what the SARIF
// 2.1.0 schema requires of it: the version, one run with its tool's name, and results whose
// rules are the driver's, by id and index.
func readSARIF(t *testing.T, path string) *sarif.Log {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the report output: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var log sarif.Log
	if err := dec.Decode(&log); err != nil {
		t.Fatalf("%s is not lint's SARIF: %v", path, err)
	}
	if log.Version != sarif.Version || log.Schema != sarif.Schema || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name == "" {
		t.Fatalf("%s: version %q, schema %q, %d runs: not a SARIF 2.1.0 log of one run", path, log.Version, log.Schema, len(log.Runs))
	}
	rules := log.Runs[0].Tool.Driver.Rules
	for _, r := range log.Runs[0].Results {
		if r.RuleIndex < 0 || r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID || r.Message.Text == "" {
			t.Errorf("result %s: rule index %d, message %q", r.RuleID, r.RuleIndex, r.Message.Text)
		}
	}
	return &log
}
