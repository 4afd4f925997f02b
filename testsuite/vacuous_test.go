package testsuite

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// vacuousPolicies are two ValidatingAdmissionPolicies on ConfigMaps: team-label denies one
// without a team label, no-secrets one with a key "password".
const vacuousPolicies = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label}
spec:
  failurePolicy: Fail
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  validations: [{expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: "a team label is needed"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label}
spec: {policyName: team-label, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-secrets}
spec:
  failurePolicy: Fail
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  validations: [{expression: "!has(object.data) || !('password' in object.data)", message: "no passwords in ConfigMaps"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-secrets}
spec: {policyName: no-secrets, validationActions: [Deny]}
`

// runVacuousSuite runs a suite of cases over vacuousPolicies and returns each case's failures
// (or error) by name, and the file's error.
func runVacuousSuite(t *testing.T, cases string) (map[string]string, string) {
	t.Helper()
	path := writeSuiteWith(t, t.TempDir(), "policies.yaml", vacuousPolicies, cases)
	report := RunFile(context.Background(), path, Options{})
	got := map[string]string{}
	for _, c := range casesOf(t, report) {
		got[c.Name] = strings.Join(append(c.Failures, c.Error), "|")
	}
	return got, report.Error
}

func TestVacuousCasesFail(t *testing.T) {
	got, fileErr := runVacuousSuite(t, `- name: denied by a policy of the file
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: default}}
  expect: {allowed: false}
- name: denied by the apiserver, whatever the policies do
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: Bad_Name, namespace: default, labels: {team: a}}}
  expect: {allowed: false}
- name: admitted, and no policy had to say so
  object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: default}, spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
  expect: {allowed: true}
- name: admitted, with the policy that must not apply named
  object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: default}, spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}
  expect: {allowed: true, called: []}
- name: admitted with its label, what team-label decides
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: default, labels: {team: a}}}
  expect: {allowed: true, outcomes: {team-label: allowed}}
- name: denied, but by another policy than the one it tests
  tests: [team-label]
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: default, labels: {team: a}}, data: {password: x}}
  expect: {allowed: false}
- name: kube-apiserver's own answer, said to be
  tests: []
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: Bad_Name, namespace: default, labels: {team: a}}}
  expect: {allowed: false, code: 422}
- name: denied by the policy it tests
  tests: [no-secrets]
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: d, namespace: default, labels: {team: a}}, data: {password: x}}
  expect: {allowed: false}
`)
	const advice = ", so it cannot fail whatever they do: expect what only they decide — who is called (called), what each does (outcomes, skipped for one that must not apply), a message of theirs|"
	want := map[string]string{
		"denied by a policy of the file": "",
		"denied by the apiserver, whatever the policies do": "vacuous: it passes without the file's webhooks and policies too (rejected by the registry's validation: " +
			`ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))` + advice,
		"admitted, and no policy had to say so":               "vacuous: it passes without the file's webhooks and policies too (admitted)" + advice,
		"admitted, with the policy that must not apply named": "vacuous: it passes without the file's webhooks and policies too (admitted)" + advice,
		"admitted with its label, what team-label decides":    "",
		"denied, but by another policy than the one it tests": `vacuous: it passes without "team-label" too (rejected by the ValidatingAdmissionPolicy "no-secrets")` + advice,
		"denied by the policy it tests":                       "",
		"kube-apiserver's own answer, said to be":             "",
	}
	if diff := cmp.Diff(want, got); diff != "" || fileErr != "" {
		t.Errorf("case failures (-want +got):\n%s\nfile error: %s", diff, fileErr)
	}
}

func TestTestsNamingNothingIsTheFilesError(t *testing.T) {
	_, fileErr := runVacuousSuite(t, `- name: names a policy the file lacks
  tests: [team-labels]
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: default}}
  expect: {allowed: false}
`)
	if !strings.Contains(fileErr, `case "names a policy the file lacks": tests: no webhook, webhook configuration, admission policy or binding of the file is named "team-labels"`) {
		t.Errorf("file error %q", fileErr)
	}
}
