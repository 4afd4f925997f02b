package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Answers that were green by accident, each now an error or said loudly, seen from the command
// line: its exit code and its output.

// writeTree writes files under dir, by relative name.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func runAdmit(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

// A policy's misspelt field is refused as kubectl refuses it, by lint and review alike.
func TestMisspeltPolicyFieldIsRefused(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"policy.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  matchConstraints: {resourceRules: [{apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}\n  validations:\n  - expression: \"true\"\n    messageExpresion: \"'no'\"\n",
		"pod.yaml":    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}]}\n",
	})
	want := `policy.yaml:8: ValidatingAdmissionPolicy "p": unknown field "spec.validations[0].messageExpresion"`
	for _, args := range [][]string{{"lint", filepath.Join(dir, "policy.yaml")}, {"review", "-f", filepath.Join(dir, "pod.yaml"), "--webhooks", filepath.Join(dir, "policy.yaml")}} {
		if code, _, stderr := runAdmit(args...); code != ExitBadInput || !strings.Contains(stderr, want) {
			t.Errorf("admit %s: exit %d, stderr %q; want 2 and %q", args[0], code, stderr, want)
		}
	}
}

// A custom resource with several schema errors prints one output, run after run.
func TestSchemaErrorsPrintOneOutput(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"crd.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, maximum: 10}, color: {type: string, enum: [red, blue]}}}}}}
`,
		"widget.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 99, color: green}\n",
	})
	var first string
	for i := range 10 {
		code, stdout, stderr := runAdmit("review", "-f", dir, "--summary", "--color", "never")
		if code != ExitRejected {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		stdout = durations.ReplaceAllString(stdout, "T")
		if i == 0 {
			first = stdout
			if !strings.Contains(stdout, `spec.color: Unsupported value: "green": supported values: "red", "blue", spec.size: Invalid value: 99`) {
				t.Errorf("the causes are not in their order:\n%s", stdout)
			}
		} else if stdout != first {
			t.Fatalf("run %d printed another output:\n%s\nthe first:\n%s", i, stdout, first)
		}
	}
}

// A test file's case whose object file is missing is that case's error; the others run. An
// expectation that a misspelt field is absent is an error, not a pass; a case that passes without
// the file's policies too fails.
func TestTestCasesCannotPassByAccident(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"admit-test.yaml": `apiVersion: admit.dev/v1alpha1
kind: TestSuite
webhooks: [policy.yaml]
cases:
- name: missing object
  object: missing.yaml
  expect: {allowed: true}
- name: misspelt absent field
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
  expect: {allowed: true, fields: {metadata.lables.tier: null}}
- name: fine
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}
  expect: {allowed: true, outcomes: {p: allowed}}
- name: vacuous
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  expect: {allowed: true}
`, "policy.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  validations: [{expression: "true"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p, validationActions: [Deny]}
`})
	code, stdout, _ := runAdmit("test", dir)
	for _, want := range []string{
		"ERROR missing object", "object: open " + filepath.Join(dir, "missing.yaml") + ": no such file or directory",
		"ERROR misspelt absent field", "expected absent, which it always is: metadata.lables.tier: ConfigMap (v1) has no field metadata.lables",
		"ok    fine", "FAIL  vacuous", "vacuous: it passes without the file's webhooks and policies too (admitted)",
		"4 cases in 1 file: 1 passed, 1 failed, 2 could not run",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
	if code != ExitBadInput {
		t.Errorf("exit %d, want 2", code)
	}
}

// A policy that errors under failurePolicy Ignore admits, and a test case can expect that it
// failed open: the outcome the apiserver counts only in a metric.
func TestTestCasesExpectPoliciesThatFailOpen(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"admit-test.yaml": `apiVersion: admit.dev/v1alpha1
kind: TestSuite
webhooks: [policy.yaml]
cases:
- name: the misspelt field fails open
  object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop}, spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
  expect: {allowed: true, outcomes: {replicas: failed-open}}
`, "policy.yaml": failOpenPolicy})
	if code, stdout, stderr := runAdmit("test", dir); code != ExitOK || !strings.Contains(stdout, "1 passed") {
		t.Errorf("exit %d, want 0 and the case passed\n%s%s", code, stdout, stderr)
	}
}

// failOpenPolicy is a ValidatingAdmissionPolicy whose expression errors on every Deployment (a
// misspelt field) under failurePolicy Ignore, with its binding: it fails open.
const failOpenPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  failurePolicy: Ignore
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicaz <= 5"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [Deny]}
`
