//go:build e2e

package e2e

import (
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// junitReport is what a CI system reads from admit test --junit.
type junitReport struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// runAdmitTest runs the built admit binary's test command from the repository root and reads
// its JUnit report.
func runAdmitTest(t *testing.T, args ...string) (int, string, junitReport) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "junit.xml")
	cmd := exec.Command(admitBinary(t), append(append([]string{"test"}, args...), "--junit", report)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var parsed junitReport
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no JUnit report: %v\n%s", err, out)
	}
	if err := xml.Unmarshal(data, &parsed); err != nil {
		t.Fatalf("the JUnit report is not XML: %v\n%s", err, data)
	}
	return code, string(out), parsed
}

// The examples' suites pass as committed: examples/testing starts the real admit serve with
// throwaway certificates and calls it over TLS through the Service the configurations name.
func TestAdmitTestExamplesPass(t *testing.T) {
	code, out, report := runAdmitTest(t, "examples/")
	if code != 0 {
		t.Fatalf("admit test examples/: exit %d\n%s", code, out)
	}
	if report.Tests < 8 || report.Failures != 0 || report.Errors != 0 || len(report.Suites) != 2 {
		t.Errorf("JUnit report %+v; want both example suites, every case passed\n%s", report, out)
	}
	if !strings.Contains(out, "built-in webhooks behind admit serve") {
		t.Errorf("examples/testing did not run:\n%s", out)
	}
}

// A suite with wrong expectations fails: exit 1 and a failure element per wrong case.
func TestAdmitTestFailingSuite(t *testing.T) {
	code, out, report := runAdmitTest(t, "test/e2e/testdata/failing.admit-test.yaml")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	if report.Tests != 3 || report.Failures != 2 || report.Errors != 0 {
		t.Fatalf("JUnit report %+v; want 3 cases, 2 failures\n%s", report, out)
	}
	failed := map[string]bool{}
	for _, c := range report.Suites[0].Cases {
		failed[c.Name] = c.Failure != nil
	}
	if !failed["the image is not mirrored (it is)"] || !failed["a labelled Deployment is refused (it is admitted)"] || failed["the server's namespace is exempt (it is)"] {
		t.Errorf("failures by case: %v\n%s", failed, out)
	}
	for _, want := range []string{
		`spec.containers[0].image is "mirror.local/hub/library/nginx:1.27", want "nginx:1.27"`,
		"admitted, want rejected",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}
