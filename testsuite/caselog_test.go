package testsuite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/admitkit/admit/internal/junit"
	"github.com/admitkit/admit/internal/structured"
)

// loggedCases are cases of every kind a report holds: passed, failed, vacuous (failed by the
// control run), and could not run.
const loggedCases = `- name: denied by a policy of the file
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: default}}
  expect: {allowed: false, message: "configmaps \"a\" is forbidden: ValidatingAdmissionPolicy 'team-label' with binding 'team-label' denied request: a team label is needed"}
- name: admitted, and no policy had to say so
  object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: default}, spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
  expect: {allowed: true}
- name: expects a denial <& "quoted"> that does not come, with a name long enough to fold where a YAML emitter folds
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: default, labels: {team: a}}}
  expect: {allowed: false, warnings: []}
- name: its object file is missing
  object: missing.yaml
  expect: {allowed: true}
- name: admitted with its label, what team-label decides
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: default, labels: {team: a}}}
  expect: {allowed: true, outcomes: {team-label: allowed}}
`

// runLogged runs loggedCases in dir holding hold reports at most, with coverage.
func runLogged(t *testing.T, dir string, hold int) *Report {
	t.Helper()
	s, err := Load(writeSuiteWith(t, dir, "policies.yaml", vacuousPolicies, loggedCases))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range s.Cases {
		names = append(names, c.Name)
	}
	report := runCases(context.Background(), s, heldCases(s.Cases), names, Options{Coverage: true}, hold)
	if report.Error != "" {
		t.Fatal(report.Error)
	}
	return report
}

// TestReportsKeptInAFileAreTheHeldOnes runs the same cases with their reports held and with
// them kept in a temporary file from the first: the reports read back, the control run's
// verdicts and the counts are the same, and Close removes the file.
func TestReportsKeptInAFileAreTheHeldOnes(t *testing.T) {
	dir := t.TempDir()
	held, spilled := runLogged(t, dir, holdAtMost), runLogged(t, dir, 1)
	if held.cases.spool != nil || spilled.cases.spool == nil {
		t.Fatalf("spooled: held %v, spilled %v", held.cases.spool != nil, spilled.cases.spool != nil)
	}
	spool := spilled.cases.spool.Name()
	timing := cmpopts.IgnoreFields(CaseReport{}, "Took", "DurationSeconds")
	if diff := cmp.Diff(casesOf(t, held), casesOf(t, spilled), timing, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("case reports (-held +spilled):\n%s", diff)
	}
	var verdicts []string
	for _, c := range casesOf(t, spilled) {
		verdicts = append(verdicts, fmt.Sprintf("passed %v: %s", c.Passed, strings.Join(append(c.Failures, c.Error), "|")))
	}
	if len(verdicts) != 5 || verdicts[0] != "passed true: " || !strings.HasPrefix(verdicts[1], "passed false: vacuous: ") ||
		verdicts[2] != "passed false: admitted, want rejected|" || !strings.Contains(verdicts[3], "passed false: ") ||
		!strings.Contains(verdicts[3], "missing.yaml") || verdicts[4] != "passed true: " {
		t.Errorf("verdicts: %q", verdicts)
	}
	for _, r := range []*Report{held, spilled} {
		if p, f, e := r.Counts(); p != 2 || f != 2 || e != 1 {
			t.Errorf("counts %d passed, %d failed, %d errors; want 2, 2, 1", p, f, e)
		}
	}
	if err := spilled.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spool); !os.IsNotExist(err) {
		t.Errorf("the spool %s is left after Close: %v", spool, err)
	}
}

// todaysReport and todaysResults are the reports' JSON as a list held whole encodes it: what
// the streaming writers must write, byte for byte.
type todaysReport struct {
	Name     string        `json:"name"`
	File     string        `json:"file"`
	Error    string        `json:"error,omitempty"`
	Cases    []*CaseReport `json:"cases"`
	Updated  bool          `json:"updated,omitempty"`
	Coverage *Coverage     `json:"coverage,omitempty"`
}

type todaysResults struct {
	Suites   []*todaysReport `json:"suites"`
	Passed   int             `json:"passed"`
	Failed   int             `json:"failed"`
	Errors   int             `json:"errors"`
	Coverage *Coverage       `json:"coverage,omitempty"`
}

// spilledReport is a report of cases kept in a temporary file from the first.
func spilledReport(t *testing.T, name, file string, cases []*CaseReport) *Report {
	t.Helper()
	r := &Report{Name: name, File: file, cases: newCaseLog(0)}
	t.Cleanup(func() { r.Close() })
	for _, cr := range cases {
		if err := r.cases.add(cr); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestStreamedOutputIsTodaysBytes writes results of every shape — a file's cases kept in a
// temporary file, a file that could not run, one whose filter selected nothing, an empty list —
// with the streaming writers, and compares them with the whole results encoded at once.
func TestStreamedOutputIsTodaysBytes(t *testing.T) {
	run := runLogged(t, t.TempDir(), holdAtMost)
	cases := casesOf(t, run)
	for _, c := range cases {
		c.Took, c.DurationSeconds = 1234567*time.Nanosecond, 0.001234567
	}
	first := spilledReport(t, "logged", "a/admit-test.yaml", cases)
	first.Updated, first.Coverage = true, run.Coverage
	results := &Results{
		Suites: []*Report{first, {Name: "broken", File: "b/admit-test.yaml", Error: "b/admit-test.yaml:3: webhooks: open hooks.yaml: no such file"},
			{Name: "none selected", File: "c/admit-test.yaml", Names: []string{"x"}}, NewReport("empty", "d/admit-test.yaml", []*CaseReport{})},
		Passed: 2, Failed: 2, Errors: 2, Coverage: run.Coverage,
	}
	todays := todaysResults{Passed: 2, Failed: 2, Errors: 2, Coverage: run.Coverage, Suites: []*todaysReport{
		{Name: "logged", File: "a/admit-test.yaml", Cases: cases, Updated: true, Coverage: run.Coverage},
		{Name: "broken", File: "b/admit-test.yaml", Error: "b/admit-test.yaml:3: webhooks: open hooks.yaml: no such file"},
		{Name: "none selected", File: "c/admit-test.yaml"}, {Name: "empty", File: "d/admit-test.yaml", Cases: []*CaseReport{}},
	}}
	for _, format := range []string{structured.JSON, structured.YAML} {
		var want, streamed, whole bytes.Buffer
		if err := structured.Write(&want, format, todays); err != nil {
			t.Fatal(err)
		}
		if err := WriteStructured(&streamed, format, results); err != nil {
			t.Fatal(err)
		}
		if err := structured.Write(&whole, format, results); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), streamed.String()); diff != "" {
			t.Errorf("%s streamed (-today +streamed):\n%s", format, diff)
		}
		if diff := cmp.Diff(want.String(), whole.String()); diff != "" {
			t.Errorf("%s encoded whole (-today +whole):\n%s", format, diff)
		}
	}
	var read Results
	var again bytes.Buffer
	if err := WriteStructured(&again, structured.JSON, results); err != nil {
		t.Fatal(err)
	}
	if err := read.UnmarshalJSON(again.Bytes()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cases, casesOf(t, read.Suites[0]), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("-o json read back (-written +read):\n%s", diff)
	}

	var junitWant, junitStreamed bytes.Buffer
	suites := []junit.Suite{{Name: "logged"}, {Name: "broken", Cases: []junit.Case{{Name: "(the test file)", Class: "b/admit-test.yaml", Error: results.Suites[1].Error}}}, {Name: "none selected"}, {Name: "empty"}}
	for _, c := range cases {
		suites[0].Cases = append(suites[0].Cases, junit.Case{Name: c.Name, Class: "a/admit-test.yaml", Duration: c.Took, Failures: c.Failures, Error: c.Error})
	}
	if err := junit.Write(&junitWant, suites); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(&junitStreamed, results); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(junitWant.String(), junitStreamed.String()); diff != "" {
		t.Errorf("JUnit (-whole +streamed):\n%s", diff)
	}

	var textHeld, textSpilled bytes.Buffer
	heldResults := *results
	heldResults.Suites = append([]*Report{NewReport("logged", "a/admit-test.yaml", cases)}, results.Suites[1:]...)
	heldResults.Suites[0].Updated, heldResults.Suites[0].Coverage = true, run.Coverage
	if err := WriteText(&textHeld, &heldResults); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&textSpilled, results); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(textHeld.String(), textSpilled.String()); diff != "" || !strings.Contains(textHeld.String(), "FAIL  admitted, and no policy") {
		t.Errorf("text (-held +spilled):\n%s\n%s", diff, textHeld.String())
	}
}
