package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/testsuite"
)

// runTestCommand runs `admit test` in-process and returns its exit code and output.
func runTestCommand(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), append([]string{"test"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

// durations in the text output vary from run to run.
var caseDuration = regexp.MustCompile(`\(\d+(\.\d+)?(µs|ms|s)\)`)

// demoDeployment is the README's object: the built-in webhooks mirror both images and warn.
const suiteOnBuiltinWebhooks = `apiVersion: admit.dev/v1alpha1
kind: TestSuite
name: built-in webhooks
cases:
- name: images are mirrored with a warning each
  object: ../../../builtin/demo/deployment.yaml
  expect:
    allowed: true
    warnings:
    - image "nginx:1.27" rewritten to "mirror.local/hub/library/nginx:1.27"
    - image "quay.io/prometheus/node-exporter:v1.8.0" rewritten to "mirror.local/quay/prometheus/node-exporter:v1.8.0"
    called: [deployments.apps.image-mirrors.admit.dev]
    fields:
      spec.template.spec.containers[0].image: mirror.local/hub/library/nginx:1.27
- name: a Deployment in kube-system is left alone
  namespace: kube-system
  object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: dns}, spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: nginx:1.27}]}}}}
  expect:
    allowed: true
    called: []
    outcomes: {deployments.apps.image-mirrors.admit.dev: skipped}
`

// writeTestFile writes a test file where relative paths reach the repository's examples and
// built-in webhooks' demo objects.
func writeTestFile(t *testing.T, name, content string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "a", "b", "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The suites name ../../../examples and ../../../builtin: link the repository's there.
	for _, name := range []string{"examples", "builtin"} {
		target, err := filepath.Abs(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, "..", "..", "..", name)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAdmitTestPasses(t *testing.T) {
	file := writeTestFile(t, "admit-test.yaml", suiteOnBuiltinWebhooks)
	code, out, errOut := runTestCommand(t, filepath.Dir(file))
	if code != ExitOK {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	want := file + ": built-in webhooks\n" +
		"  ok    images are mirrored with a warning each ()\n" +
		"  ok    a Deployment in kube-system is left alone ()\n" +
		"2 cases in 1 file: 2 passed, 0 failed\n"
	if diff := cmp.Diff(want, caseDuration.ReplaceAllString(out, "()")); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestAdmitTestFailsAndUpdates(t *testing.T) {
	wrong := strings.NewReplacer(
		"allowed: true\n    warnings", "allowed: false\n    warnings",
		`called: []`, `called: [deployments.apps.image-mirrors.admit.dev]`,
	).Replace(suiteOnBuiltinWebhooks)
	file := writeTestFile(t, "admit-test.yaml", wrong)
	junitFile := filepath.Join(t.TempDir(), "report.xml")

	code, out, _ := runTestCommand(t, file, "--junit", junitFile)
	if code != ExitRejected {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"  FAIL  images are mirrored with a warning each",
		"        admitted, want rejected",
		"  FAIL  a Deployment in kube-system is left alone",
		`        called none, want ["deployments.apps.image-mirrors.admit.dev"]`,
		"2 cases in 1 file: 0 passed, 2 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	var report struct {
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junitFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &report); err != nil {
		t.Fatalf("--junit wrote no XML: %v\n%s", err, data)
	}
	if report.Failures != 2 || len(report.Suites) != 1 || len(report.Suites[0].Cases) != 2 || report.Suites[0].Cases[0].Failure == nil ||
		report.Suites[0].Cases[0].Failure.Message != "admitted, want rejected" {
		t.Errorf("JUnit report: %+v\n%s", report, data)
	}

	// --update records what happened; the file then passes as it is.
	if code, out, _ := runTestCommand(t, file, "--update"); code != ExitOK || !strings.Contains(out, "expectations rewritten in "+file) {
		t.Fatalf("--update: exit %d\n%s", code, out)
	}
	updated, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runTestCommand(t, file); code != ExitOK {
		t.Fatalf("after --update: exit %d\n%s\nthe file:\n%s", code, out, updated)
	}
	if !strings.Contains(string(updated), "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\nname: built-in webhooks\n") {
		t.Errorf("--update changed more than the expectations:\n%s", updated)
	}
}

func TestAdmitTestBadInput(t *testing.T) {
	tests := []struct {
		name, file string
		args       []string
		want       string
	}{
		{name: "an invalid file", file: "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\ncases:\n- name: x\n  object: missing.yaml\n  expect: {allowed: true}\n",
			want: `admit-test.yaml:5: case "x": object: open `},
		{name: "a case that cannot be built", file: "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\ncases:\n- name: x\n  object: {apiVersion: v1, kind: Widget, metadata: {name: c}}\n  expect: {allowed: true}\n",
			want: "ERROR x\n        " + "admit-test.yaml:5:1: no resource for kind \"Widget\""},
		{name: "an UPDATE without old", file: "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\ncases:\n- name: x\n  operation: UPDATE\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n",
			want: `admit-test.yaml:4: case "x": an UPDATE needs the existing object: give old`},
		{name: "a server that exits", file: "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\nserver: {command: [sh, -c, 'echo no certificate; exit 3'], ready: 'tcp://127.0.0.1:$(PORT)'}\ncases:\n- name: x\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n",
			want: "admit-test.yaml:3: the server sh -c echo no certificate; exit 3: exited before it was ready (exit status 3); its output:\n          no certificate"},
		{name: "an unknown variable", file: "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\nresolve: ['a/b=127.0.0.1:$(PROT)']\ncases:\n- name: x\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n",
			want: `resolve: "a/b=127.0.0.1:$(PROT)": unknown variable $(PROT) (known: $(ADMIT), $(PORT), $(SUITE_DIR))`},
		{name: "a bad --run", args: []string{"--run", "("}, file: suiteOnBuiltinWebhooks, want: "--run: error parsing regexp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeTestFile(t, "admit-test.yaml", tt.file)
			code, out, errOut := runTestCommand(t, append([]string{file}, tt.args...)...)
			if code != ExitBadInput {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
			}
			if got := strings.ReplaceAll(out+errOut, filepath.Dir(file)+string(filepath.Separator), ""); !strings.Contains(got, tt.want) {
				t.Errorf("the output lacks %q:\n%s", tt.want, got)
			}
		})
	}
}

func TestAdmitTestRunFilterAndJSON(t *testing.T) {
	file := writeTestFile(t, "mine.admit-test.yaml", suiteOnBuiltinWebhooks)
	code, out, errOut := runTestCommand(t, file, "--run", "kube-system", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var report testsuite.Results
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	cases := casesOf(t, &report)
	if len(report.Suites) != 1 || len(cases) != 1 || cases[0].Name != "a Deployment in kube-system is left alone" ||
		!cases[0].Passed || report.Passed != 1 || report.Failed != 0 {
		t.Errorf("report: %s", out)
	}
}

// The examples' suites that need no server pass as committed (examples/testing starts admit
// serve: the e2e suite runs it with the built binary).
func TestAdmitTestExamples(t *testing.T) {
	code, out, errOut := runTestCommand(t, filepath.Join("..", "..", "examples", "policies"))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

// --run that selects nothing is an error that lists the cases: "0 cases" would pass a CI job
// whose pattern has a typo.
func TestAdmitTestRunSelectingNothing(t *testing.T) {
	file := writeTestFile(t, "admit-test.yaml", suiteOnBuiltinWebhooks)
	code, out, errOut := runTestCommand(t, file, "--run", "kube-sytem")
	want := "admit: --run \"kube-sytem\" selects no case; the cases are:\n  " + file + `: "images are mirrored with a warning each", "a Deployment in kube-system is left alone"` + "\n"
	if code != ExitBadInput || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant 2, nothing and:\n%s", code, out, errOut, want)
	}
}

// What admit test adds to the checks of field paths: the warnings and every webhook's outcome
// in -o json (skipped ones, not called, apart from called ones), partial documents and whole
// objects as expectations, reused anchors, and --update keeping the comments it rewrites.
const suiteOfDocuments = `apiVersion: admit.dev/v1alpha1
kind: TestSuite
name: documents
cases:
- name: a partial document
  object: ../../../builtin/demo/deployment.yaml
  expect: &mirrored
    allowed: true  # both images mirrored
    object:
      spec:
        template:
          spec:
            containers:
            - image: mirror.local/hub/library/nginx:1.27
            - image: mirror.local/quay/prometheus/node-exporter:v1.8.0
- name: the same, through the anchor
  object: ../../../builtin/demo/deployment.yaml
  expect: *mirrored
- name: a ConfigMap is not sent to the image mirrors
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {team: a}}}
  expect:
    allowed: true
    outcomes: {deployments.apps.image-mirrors.admit.dev: skipped}
`

func TestAdmitTestDocumentsAndOutcomes(t *testing.T) {
	file := writeTestFile(t, "admit-test.yaml", suiteOfDocuments)
	code, out, errOut := runTestCommand(t, file, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var report testsuite.Results
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatal(err)
	}
	cases := casesOf(t, &report)
	if len(cases) != 3 || len(cases[0].Warnings) != 2 || !strings.HasPrefix(cases[0].Warnings[0], `image "nginx:1.27" rewritten`) {
		t.Fatalf("-o json lacks the warnings:\n%s", out)
	}
	var mirror []string
	for _, c := range cases {
		for _, w := range c.Webhooks {
			if w.Name == "deployments.apps.image-mirrors.admit.dev" {
				mirror = append(mirror, w.Outcome)
			}
		}
	}
	if diff := cmp.Diff([]string{"patched", "patched", "skipped"}, mirror); diff != "" {
		t.Errorf("the image mirror's outcomes in -o json (-want +got):\n%s", diff)
	}

	// Wrong expectations: what differs, and why a webhook expected was not called.
	wrong := strings.NewReplacer("nginx:1.27\n", "nginx:1.28\n", ": skipped}", ": patched}").Replace(suiteOfDocuments)
	if err := os.WriteFile(file, []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runTestCommand(t, file)
	for _, want := range []string{
		`  FAIL  a partial document`,
		`        object: spec.template.spec.containers[0].image is "mirror.local/hub/library/nginx:1.27", want "mirror.local/hub/library/nginx:1.28"`,
		`  FAIL  the same, through the anchor`,
		`        deployments.apps.image-mirrors.admit.dev: skipped, not called (`,
	} {
		if code != ExitRejected || !strings.Contains(out, want) {
			t.Errorf("exit %d; the output lacks %q:\n%s", code, want, out)
		}
	}

	// --update: the expectations pass again, the comment stays, the anchor too.
	if code, out, _ := runTestCommand(t, file, "--update"); code != ExitOK {
		t.Fatalf("--update: exit %d\n%s", code, out)
	}
	updated, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  expect: &mirrored\n", "# both images mirrored\n", "- image: mirror.local/hub/library/nginx:1.27\n"} {
		if !strings.Contains(string(updated), want) {
			t.Errorf("--update lost %q:\n%s", want, updated)
		}
	}
	if code, out, _ := runTestCommand(t, file); code != ExitOK {
		t.Errorf("after --update: exit %d\n%s\n%s", code, out, updated)
	}
}

// A file whose webhooks do not read could not run: its cases are not counted as failed, and the
// YAML error names its line once.
func TestAdmitTestUnreadableWebhooks(t *testing.T) {
	file := writeTestFile(t, "admit-test.yaml", "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\nwebhooks: [hooks.yaml]\ncases:\n- name: x\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n")
	hooks := filepath.Join(filepath.Dir(file), "hooks.yaml")
	if err := os.WriteFile(hooks, []byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runTestCommand(t, file)
	if code != ExitBadInput || !strings.Contains(out, hooks+":3: yaml: did not find expected node content\n") || strings.Contains(out, "line 3") ||
		strings.Contains(out, "FAIL") || !strings.HasSuffix(out, "0 cases in 1 file: 0 passed, 0 failed, 1 could not run\n") {
		t.Errorf("exit %d, output:\n%s\nwant 2, the error at %s:3 and no case run", code, out, hooks)
	}
}

// --coverage adds the table after the results; -o json holds it in the report.
func TestAdmitTestCoverage(t *testing.T) {
	suite := filepath.Join("..", "..", "examples", "policies")
	code, out, errOut := runTestCommand(t, suite, "--coverage")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"3 cases in 1 file: 3 passed, 0 failed\n\ncoverage: 6 of 7 units (85.7%)\n",
		"  default-tier                        MutatingAdmissionPolicy           2/3    \"a Deployment within its tier's limit gets the default tier\", \"a Deployment over its tier's limit is refused\"\n    not matchCondition no-tier false\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runTestCommand(t, suite, "--coverage", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var report struct {
		Coverage struct {
			Units, Hit int
			Percent    float64
			Items      []struct {
				Kind, Name, File string
				Line             int
				Units            []struct {
					Part, Branch, Expression string
					Index, Line              int
					Hit                      bool
					Cases                    []string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	c := report.Coverage
	if c.Units != 7 || c.Hit != 6 || c.Percent != 85.7 || len(c.Items) != 4 {
		t.Fatalf("coverage: %+v", c)
	}
	vap := c.Items[2]
	failed := vap.Units[1]
	if vap.Kind != "ValidatingAdmissionPolicy" || vap.File != filepath.Join(suite, "policies.yaml") || vap.Line != 31 ||
		failed.Part != "validation" || failed.Branch != "failed" || failed.Line != 47 || !failed.Hit ||
		failed.Expression != "object.spec.replicas <= int(params.data.maxReplicas)" ||
		!cmp.Equal(failed.Cases, []string{"a Deployment over its tier's limit is refused", "an UPDATE that scales past the limit is refused too"}) {
		t.Errorf("the policy replica-limit: %+v", vap)
	}
}

// --min-coverage fails the run below it, saying so; a percentage out of range is bad input.
func TestAdmitTestMinCoverage(t *testing.T) {
	suite := filepath.Join("..", "..", "examples", "policies")
	for _, tc := range []struct {
		min     string
		code    int
		message string
	}{
		{"85.7", ExitOK, ""},
		{"90", ExitRejected, "admit: coverage 85.7% is below --min-coverage 90%\n"},
		{"101", ExitBadInput, "admit: --min-coverage 101: a percentage, from 0 to 100\n"},
	} {
		code, out, errOut := runTestCommand(t, suite, "--min-coverage", tc.min)
		if code != tc.code || errOut != tc.message {
			t.Errorf("--min-coverage %s: exit %d, %q; want %d, %q\n%s", tc.min, code, errOut, tc.code, tc.message, out)
		}
		if tc.code != ExitBadInput && !strings.Contains(out, "coverage: 6 of 7 units (85.7%)") {
			t.Errorf("--min-coverage %s does not show the coverage:\n%s", tc.min, out)
		}
	}
}

// The coverage page, opened in a real browser: each line of a unit marked by what of it was hit
// — here the MutatingAdmissionPolicy's lines not hit (the UPDATE case does not reach it), the
// validation's partly (it failed, never held), the binding's hit — with titles naming the units
// and cases, in their colours; nothing fetched from elsewhere.
func TestAdmitTestCoverageHTMLInBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	page := filepath.Join(t.TempDir(), "coverage.html")
	code, out, errOut := runTestCommand(t, filepath.Join("..", "..", "examples", "policies"), "--run", "UPDATE", "--coverage-html", page)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	source, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if links := regexp.MustCompile(`(?:src|href)=|url\(|https?://|<script`).FindAllString(string(source), -1); len(links) > 0 {
		t.Errorf("the page refers to something outside itself or runs a script: %q", links)
	}

	dom := string(headless(t, chromium, page, "--dump-dom"))
	marked := regexp.MustCompile(`<span class="line (\w+)" data-line="(\d+)"`).FindAllStringSubmatch(dom, -1)
	var got []string
	for _, m := range marked {
		got = append(got, m[2]+"="+m[1])
	}
	// policies.yaml: the MutatingAdmissionPolicy's matchCondition (16), its mutation's expression
	// (20, its block 21), its binding (29); the validation (47) and its binding (56).
	if want := "16=miss 20=miss 21=miss 29=miss 47=part 56=hit"; strings.Join(got, " ") != want {
		t.Errorf("marked lines %q, want %q", strings.Join(got, " "), want)
	}
	for _, want := range []string{
		`<p class="meta" id="total">2 of 7 units hit (28.6%)</p>`,
		`<tr class="part"><td>replica-limit</td><td>ValidatingAdmissionPolicy</td><td class="n">1/2</td><td>../../examples/policies/policies.yaml:31</td><td>"an UPDATE that scales past the limit is refused too"</td></tr>`,
		`title="ValidatingAdmissionPolicy replica-limit: validation[0] held: not hit` + "\n" +
			`ValidatingAdmissionPolicy replica-limit: validation[0] failed: hit by &quot;an UPDATE that scales past the limit is refused too&quot;"><span class="ln">47</span>  - expression: "object.spec.replicas &lt;= int(params.data.maxReplicas)"</span>`,
		`title="MutatingAdmissionPolicyBinding default-tier: matched: not hit"><span class="ln">29</span>  policyName: default-tier</span>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}

	shot := filepath.Join(t.TempDir(), "coverage.png")
	headless(t, chromium, page, "--window-size=1200,1600", "--hide-scrollbars", "--screenshot="+shot)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// Each class's colour fills whole lines and rows: more pixels of it than its legend's swatch.
	for class, c := range map[string]color.RGBA{"hit": {0xb7, 0xf0, 0xb1, 0xff}, "miss": {0xf8, 0xb4, 0xb4, 0xff}, "part": {0xf9, 0xe0, 0xa0, 0xff}} {
		if n := countColour(img, c); n < 15000 {
			t.Errorf("%d pixels of %s's colour in the screenshot: its lines were not drawn", n, class)
		}
	}
}

// casesOf are the case reports of the first file of results read back from -o json.
func casesOf(t *testing.T, r *testsuite.Results) []*testsuite.CaseReport {
	t.Helper()
	if len(r.Suites) == 0 {
		return nil
	}
	cases, err := r.Suites[0].Cases()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestAdmitTestOfManyCases runs a suite of more cases than a report holds in memory: the file
// is read a case at a time and the reports are kept in a temporary file, and every output still
// has every case, in the file's order, and the counts.
func TestAdmitTestOfManyCases(t *testing.T) {
	const n = 600
	dir := t.TempDir()
	suite := testSuiteOf(dir, n)
	junitPath := filepath.Join(dir, "report.xml")
	code, out, errOut := runTestCommand(t, suite, "-o", "json", "--junit", junitPath)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var results testsuite.Results
	if err := json.Unmarshal([]byte(out), &results); err != nil {
		t.Fatal(err)
	}
	cases := casesOf(t, &results)
	if results.Passed != n || len(cases) != n {
		t.Fatalf("%d passed, %d case reports; want %d", results.Passed, len(cases), n)
	}
	for i, c := range cases {
		if want := fmt.Sprintf("configmap %d is admitted", i); c.Name != want || !c.Passed {
			t.Fatalf("case report %d: %q passed %v; want %q passed", i, c.Name, c.Passed, want)
		}
	}
	xml, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(xml), "<testcase "); got != n || !strings.Contains(string(xml), fmt.Sprintf(`<testsuites tests="%d" failures="0" errors="0"`, n)) {
		t.Errorf("JUnit: %d test cases; want %d, and the totals first:\n%.300s", got, n, xml)
	}
	leftover, err := filepath.Glob(filepath.Join(os.TempDir(), "admit-test-reports-*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range leftover {
		if info, err := os.Stat(f); err == nil && time.Since(info.ModTime()) < time.Minute {
			t.Errorf("the reports' temporary file %s is left after the run", f)
		}
	}
}
