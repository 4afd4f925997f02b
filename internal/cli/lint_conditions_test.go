package cli

import (
	"strings"
	"testing"
)

// misspeltCondition is a fail-open pod webhook whose only problem is its matchCondition, which
// reads a field pods do not have: at runtime it fails on every pod, and the webhook is skipped.
const misspeltCondition = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: pods}
webhooks:
- name: pods.example.com
  clientConfig: {url: "https://pods.example.com/validate"}
  rules:
  - {apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE, UPDATE]}
  matchConditions:
  - name: has-containers
    expression: "object.spec.containerz.size() > 0"
  failurePolicy: Ignore
  timeoutSeconds: 2
  sideEffects: None
  admissionReviewVersions: [v1]
`

// admit lint type-checks match conditions of webhook configurations alone (no admission
// policy in the input): the finding is a warning, so it fails the default threshold and passes
// --severity error.
func TestLintMatchConditionTypes(t *testing.T) {
	tests := []struct {
		name       string
		stdin      string
		args       []string
		want       int
		wantStdout []string
	}{
		{"misspelt field", misspeltCondition, []string{"-"}, ExitRejected, []string{
			`ValidatingWebhookConfiguration "pods"  <stdin>:1`,
			`warning C06 match-condition-type-check: webhooks[0].matchConditions[0].expression (webhook "pods.example.com")`,
			"undefined field 'containerz'",
			"1 warning",
		}},
		{"below the threshold", misspeltCondition, []string{"--severity", "error", "-"}, ExitOK, []string{"no findings (1 below error)"}},
		{"the field pods have", strings.Replace(misspeltCondition, "containerz", "containers", 1), []string{"-"}, ExitOK, []string{"no findings"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runLint(t, tc.stdin, tc.args...)
			if code != tc.want {
				t.Errorf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, stdout, stderr)
			}
			for _, want := range tc.wantStdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}
