package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// coverageConfigs are a ValidatingAdmissionPolicy of two validations, a MutatingAdmissionPolicy
// with a matchCondition, a policy on Secrets no case reaches, and a validating webhook with a
// matchCondition whose server does not answer (it fails open).
const coverageConfigs = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: cm-rules}
spec:
  failurePolicy: Fail
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  validations:
  - expression: "!has(object.data) || !('password' in object.data)"
    message: no passwords in ConfigMaps
  - expression: "object.metadata.name.size() <= 10"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: cm-rules}
spec: {policyName: cm-rules, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: team}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  matchConditions:
  - name: no-team
    expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"team": "none"}}}'
  reinvocationPolicy: Never
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: team}
spec: {policyName: team}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: secrets}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [secrets]}]}
  validations:
  - expression: "false"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: secrets}
spec: {policyName: secrets, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hooks}
webhooks:
- name: cm.hooks.admit.dev
  clientConfig: {url: "https://127.0.0.1:1/validate"}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  matchConditions:
  - name: not-skipped
    expression: "object.metadata.name != 'skip-me'"
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 1
`

const coverageCases = `- name: plain
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: plain, namespace: default}, data: {a: b}}
  expect: {allowed: true, fields: {metadata.labels.team: none}}
- name: password
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: password, namespace: default}, data: {password: x}}
  expect: {allowed: false, messageRegexp: no passwords}
- name: long name
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a-very-long-name, namespace: default}}
  expect: {allowed: false, messageRegexp: size}
- name: labelled
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: skip-me, namespace: default, labels: {team: a}}}
  expect: {allowed: true, outcomes: {cm.hooks.admit.dev: skipped}}
`

// runCoverageSuite runs cases over coverageConfigs with coverage, and returns the report.
func runCoverageSuite(t *testing.T, cases string) *Report {
	t.Helper()
	return runCoverageFile(t, writeCoverageSuite(t, cases), Options{Coverage: true})
}

// writeCoverageSuite writes a suite of cases over coverageConfigs, and returns its path.
func writeCoverageSuite(t *testing.T, cases string) string {
	t.Helper()
	return writeSuiteWith(t, t.TempDir(), "configs.yaml", coverageConfigs, cases)
}

// writeSuiteWith writes, in dir, a suite of cases over the configurations in the file webhooks
// (which it writes too), and returns its path.
func writeSuiteWith(t *testing.T, dir, webhooks, configs, cases string) string {
	t.Helper()
	path := filepath.Join(dir, "admit-test.yaml")
	suite := "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\nwebhooks: [" + webhooks + "]\ncases:\n" + cases
	if err := os.WriteFile(path, []byte(suite), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, webhooks), []byte(configs), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runCoverageFile runs a suite that must pass.
func runCoverageFile(t *testing.T, path string, opts Options) *Report {
	t.Helper()
	report := RunFile(context.Background(), path, opts)
	if report.Error != "" {
		t.Fatal(report.Error)
	}
	for _, c := range casesOf(t, report) {
		if !c.Passed {
			t.Errorf("case %q: %s %s", c.Name, c.Error, strings.Join(c.Failures, "; "))
		}
	}
	return report
}

func TestCoverage(t *testing.T) {
	report := runCoverageSuite(t, coverageCases)
	c := report.Coverage
	var got []string
	for _, item := range c.Items {
		for _, u := range item.Units {
			got = append(got, fmt.Sprintf("%s %s: %s line %d %v", item.Kind, item.Name, u, u.Line, u.Cases))
		}
	}
	want := []string{
		"ValidatingWebhook cm.hooks.admit.dev: called line 53 [plain]",
		"ValidatingWebhook cm.hooks.admit.dev: matchCondition not-skipped true line 58 [plain]",
		"ValidatingWebhook cm.hooks.admit.dev: matchCondition not-skipped false line 58 [labelled]",
		// The first validation held where the second failed; after the first failed, whether
		// the second held is not known.
		"ValidatingAdmissionPolicy cm-rules: validation[0] held line 8 [plain long name labelled]",
		"ValidatingAdmissionPolicy cm-rules: validation[0] failed line 8 [password]",
		"ValidatingAdmissionPolicy cm-rules: validation[1] held line 10 [plain labelled]",
		"ValidatingAdmissionPolicy cm-rules: validation[1] failed line 10 [long name]",
		"ValidatingAdmissionPolicyBinding cm-rules: matched line 15 [plain password long name]",
		// A false matchCondition of a policy admits as a policy that changes nothing does.
		"MutatingAdmissionPolicy team: matchCondition no-team true line 24 [plain password long name]",
		"MutatingAdmissionPolicy team: matchCondition no-team false line 24 []",
		"MutatingAdmissionPolicy team: mutation[0] applied line 28 [plain password long name]",
		"MutatingAdmissionPolicyBinding team: matched line 34 [plain password long name]",
		"ValidatingAdmissionPolicy secrets: validation[0] held line 42 []",
		"ValidatingAdmissionPolicy secrets: validation[0] failed line 42 []",
		"ValidatingAdmissionPolicyBinding secrets: matched line 47 []",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	if c.Units != 15 || c.Hit != 11 || c.Percent != 73.3 {
		t.Errorf("totals: %d of %d units, %v%%; want 11 of 15, 73.3%%", c.Hit, c.Units, c.Percent)
	}
	if n := c.Items[2].Units[0].Count; n != 4 {
		t.Errorf("the binding cm-rules was matched by %d cases, want 4", n)
	}
}

// Two runs over the same configurations add up: a unit is hit where either hit it.
func TestMergeCoverage(t *testing.T) {
	path := writeCoverageSuite(t, coverageCases)
	plain := runCoverageFile(t, path, Options{Coverage: true, Filter: regexp.MustCompile("^plain$")})
	password := runCoverageFile(t, path, Options{Coverage: true, Filter: regexp.MustCompile("^password$")})
	merged := MergeCoverage(plain.Coverage, nil, password.Coverage)
	if len(merged.Items) != len(plain.Coverage.Items) {
		t.Fatalf("%d items merged, want %d", len(merged.Items), len(plain.Coverage.Items))
	}
	// plain: called, true; validations 0 and 1 held; 2 bindings matched; true and applied.
	// password: the bindings, true and applied again, and validation 0 failed.
	if merged.Hit != 9 || plain.Coverage.Hit != 8 || password.Coverage.Hit != 5 {
		t.Errorf("hit %d merged, %d and %d apart; want 9, 8 and 5", merged.Hit, plain.Coverage.Hit, password.Coverage.Hit)
	}
	binding := merged.Items[2]
	if u := binding.Units[0]; u.Count != 2 || !cmp.Equal(u.Cases, []string{"plain", "password"}) {
		t.Errorf("the binding's unit: %d cases %q; want plain and password", u.Count, u.Cases)
	}
	if plain.Coverage.Items[2].Units[0].Count != 1 {
		t.Error("merging changed what it merged")
	}
	if MergeCoverage(nil, nil) != nil {
		t.Error("no coverage merged is not nil")
	}
}

// The text names each item with its units hit and cases, and each unit it misses.
func TestCoverageText(t *testing.T) {
	report := runCoverageSuite(t, coverageCases)
	var b strings.Builder
	if err := report.Coverage.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `coverage: 11 of 15 units (73.3%)
  ITEM                                KIND                              UNITS  CASES
  cm.hooks.admit.dev (hooks)          ValidatingWebhook                 3/3    "plain", "labelled"
  cm-rules                            ValidatingAdmissionPolicy         4/4    "plain", "password", "long name" and 1 more
  cm-rules (of cm-rules)              ValidatingAdmissionPolicyBinding  1/1    "plain", "password", "long name" and 1 more
  team                                MutatingAdmissionPolicy           2/3    "plain", "password", "long name"
    not matchCondition no-team false
  team (of team)                      MutatingAdmissionPolicyBinding    1/1    "plain", "password", "long name" and 1 more
  secrets                             ValidatingAdmissionPolicy         0/2    -
    not validation[0] held
    not validation[0] failed
  secrets (of secrets)                ValidatingAdmissionPolicyBinding  0/1    -
    not matched
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// The page escapes what comes from the files and the cases, and marks each unit's line.
func TestCoverageHTML(t *testing.T) {
	report := runCoverageSuite(t, `- name: <b>"plain" & simple</b>
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: plain, namespace: default}, data: {a: b}}
  expect: {allowed: true, fields: {metadata.labels.team: none}}
`)
	var b strings.Builder
	if err := report.Coverage.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<p class="meta" id="total">8 of 15 units hit (53.3%)</p>`,
		`<span class="line part" data-line="10" title="ValidatingAdmissionPolicy cm-rules: validation[1] held: hit by &#34;&lt;b&gt;\&#34;plain\&#34; &amp; simple&lt;/b&gt;&#34;` + "\n" +
			`ValidatingAdmissionPolicy cm-rules: validation[1] failed: not hit"><span class="ln">10</span>  - expression: &#34;object.metadata.name.size() &lt;= 10&#34;</span>`,
		`<span class="line part" data-line="24"`,
		`<span class="line miss" data-line="42"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s\n%s", want, page)
		}
	}
	if strings.Contains(page, "<b>") {
		t.Error("the page holds a case's name unescaped")
	}
}
