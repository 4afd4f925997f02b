package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCasesAreAdmittedTogetherAcrossBatches runs more cases than a batch holds, whose answers
// depend on a Namespace that only the last case creates: the cases are admitted a batch at a
// time, and as if applied together, so the first batch's ConfigMaps already see its label.
func TestCasesAreAdmittedTogetherAcrossBatches(t *testing.T) {
	const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label}
spec:
  failurePolicy: Fail
  matchConstraints:
    namespaceSelector: {matchLabels: {enforce: "true"}}
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: "a team label is needed"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label}
spec: {policyName: team-label, validationActions: [Deny]}
`
	var cases strings.Builder
	want := map[string]string{}
	n := 2*batchSize + 10
	for i := range n {
		name := fmt.Sprintf("configmap %d in strict is denied", i)
		fmt.Fprintf(&cases, "- name: %s\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm-%d, namespace: strict}}\n  expect: {allowed: false, message: 'configmaps \"cm-%d\" is forbidden: ValidatingAdmissionPolicy ''team-label'' with binding ''team-label'' denied request: a team label is needed'}\n", name, i, i)
		want[name] = "passed"
	}
	cases.WriteString("- name: configmap in lax is admitted\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: lax}}\n  expect: {allowed: true, outcomes: {team-label: skipped}}\n")
	want["configmap in lax is admitted"] = "passed"
	cases.WriteString("- name: the strict namespace\n  tests: []\n  object: {apiVersion: v1, kind: Namespace, metadata: {name: strict, labels: {enforce: \"true\"}}}\n  expect: {allowed: true}\n")
	want["the strict namespace"] = "passed"

	dir := t.TempDir()
	path := filepath.Join(dir, "admit-test.yaml")
	suite := "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\nwebhooks: [policy.yaml]\ncases:\n" + cases.String()
	if err := os.WriteFile(path, []byte(suite), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	report := RunFile(context.Background(), path, Options{})
	if report.Error != "" {
		t.Fatalf("the file's error: %s", report.Error)
	}
	got := map[string]string{}
	for _, c := range casesOf(t, report) {
		got[c.Name] = "passed"
		if !c.Passed || c.Error != "" {
			got[c.Name] = strings.Join(append(c.Failures, c.Error), "|")
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
}
