package cli

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/audit"
)

// -o yaml reads back as the JSON report of the same audit, whole, and exits as it does.
func TestAuditYAML(t *testing.T) {
	f := newAuditFixture(t)
	args := []string{"-f", f.dump, "--webhooks", f.proposal}
	jsonOut, jsonErr, jsonCode := runAudit(t, context.Background(), append(args, "-o", "json")...)
	yamlOut, yamlErr, yamlCode := runAudit(t, context.Background(), append(args, "-o", "yaml")...)
	// Without --baseline, the proposal's legacy webhook newly refuses ops/legacy too: 3 denials.
	if jsonCode != ExitRejected || yamlCode != ExitRejected {
		t.Fatalf("exit %d (json) and %d (yaml), want %d (new denials)\nstderr (json): %s\nstderr (yaml): %s", jsonCode, yamlCode, ExitRejected, jsonErr, yamlErr)
	}
	if jsonErr != yamlErr {
		t.Errorf("stderr differs:\njson: %s\nyaml: %s", jsonErr, yamlErr)
	}
	if !strings.HasPrefix(yamlOut, "apiVersion: admit.dev/v1alpha1\n") {
		t.Errorf("-o yaml does not start with the report's apiVersion:\n%.300s", yamlOut)
	}
	var fromJSON, fromYAML audit.Report
	if err := json.Unmarshal([]byte(jsonOut), &fromJSON); err != nil {
		t.Fatalf("the JSON report: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(yamlOut), &fromYAML); err != nil {
		t.Fatalf("the YAML report: %v", err)
	}
	if fromJSON.Totals.Read != 10 || fromJSON.Totals.NewlyDenied != 3 || len(fromJSON.Objects) == 0 {
		t.Fatalf("the JSON report is not the audit's: totals %+v, %d objects", fromJSON.Totals, len(fromJSON.Objects))
	}
	// Two runs take their own time, and have their own moment; everything else is the same audit. A Change's rules are
	// not written: neither report holds them. A patch's values are JSON, indented in the JSON
	// report and compact in the YAML one: they compare by value.
	opts := cmp.Options{
		cmpopts.IgnoreFields(audit.Report{}, "DurationSeconds", "Time"),
		cmpopts.IgnoreUnexported(audit.Change{}),
		cmp.Transformer("jsonValue", func(raw json.RawMessage) any {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return string(raw)
			}
			return v
		}),
	}
	if diff := cmp.Diff(fromJSON, fromYAML, opts); diff != "" {
		t.Errorf("the YAML report reads back otherwise than the JSON one (-json +yaml):\n%s", diff)
	}
}

// junitReport is the JUnit XML read back, times left out (they are the run's).
type junitReport struct {
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Failure *junitProblem `xml:"failure"`
	Error   *junitProblem `xml:"error"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// --junit writes a case per changed step, failed where it newly denies or fails; the run exits
// as the thresholds say.
func TestAuditJUnit(t *testing.T) {
	f := newAuditFixture(t)
	junitFile := filepath.Join(f.dir, "audit.xml")
	_, stderr, code := runAudit(t, context.Background(), "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "--junit", junitFile)
	if code != ExitRejected {
		t.Fatalf("exit %d, want %d (new denials)\nstderr: %s", code, ExitRejected, stderr)
	}
	data, err := os.ReadFile(junitFile)
	if err != nil {
		t.Fatal(err)
	}
	var got junitReport
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatalf("the JUnit report: %v\n%s", err, data)
	}
	class := "admit audit " + f.dump
	failed := func(message string) *junitProblem { return &junitProblem{Message: message, Text: message + "\n"} }
	want := junitReport{Tests: 5, Failures: 3, Suites: []junitSuite{{Name: "admit audit", Tests: 5, Failures: 3, Cases: []junitCase{
		{Name: "ValidatingAdmissionPolicy replica-cap", Class: class, Failure: failed(`newly denies 1 write, e.g. UPDATE Deployment shop/big: ` +
			`deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replica-cap' with binding 'replica-cap' denied request: at most 5 replicas`)},
		{Name: "validating webhook flaky.example.com (ValidatingWebhookConfiguration flaky)", Class: class, Failure: failed(`newly fails on 1 write, e.g. UPDATE Deployment ops/small: ` +
			`failed calling webhook "flaky.example.com": failed to call webhook: an error on the server ("webhook internal server error") has prevented the request from succeeding`)},
		{Name: "validating webhook team-pods.example.com (ValidatingWebhookConfiguration team-pods)", Class: class, Failure: failed(`newly denies 1 write, e.g. UPDATE Pod shop/web-1: ` +
			`admission webhook "team-pods.example.com" denied the request: pods need a team label`)},
		{Name: "validating webhook ports.example.com (ValidatingWebhookConfiguration ports)", Class: class},
		{Name: "mutating webhook owner.example.com (MutatingWebhookConfiguration owner)", Class: class},
	}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the JUnit report (-want +got):\n%s", diff)
	}
}
