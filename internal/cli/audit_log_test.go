package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/audit"
)

// auditLog is the audit package's test log: a ConfigMap created, updated (by bob), patched, and
// deleted, at Request level.
func auditLog(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "audit", "testdata", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An audit log replayed through the baseline and the proposal: a policy that refuses one user's
// ConfigMap writes newly denies those writes, and only those.
func TestAuditLog(t *testing.T) {
	dir := t.TempDir()
	path := auditLog(t, dir)
	proposal := writeTemp(t, dir, "proposal.yaml", noBobPolicy)
	stdout, stderr, code := runAudit(t, context.Background(), "--audit-log", path, "--webhooks", proposal, "-o", "json")
	if code != ExitRejected {
		t.Fatalf("exit %d\n%s\n%s", code, stderr, stdout)
	}
	var report audit.Report
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(audit.Totals{Read: 6, Audited: 5, Skipped: 1, NewlyDenied: 1}, report.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	if len(report.Objects) != 1 || !strings.HasPrefix(report.Objects[0].Origin, path+":4: update configmaps settings in shop by bob, answered 200") {
		t.Errorf("objects: %+v", report.Objects)
	}
	if !strings.Contains(strings.Join(report.Notes, "\n"), "1 write not replayed: a delete of an object the log does not show before") {
		t.Errorf("notes: %q", report.Notes)
	}
}

// noBobPolicy refuses every ConfigMap write of one user, bob.
const noBobPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-bob}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: ["*"], resources: [configmaps]}]
  matchConditions: [{name: bob, expression: "request.userInfo.username == 'bob'"}]
  validations: [{expression: "false", message: "bob may not write ConfigMaps"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-bob}
spec: {policyName: no-bob, validationActions: [Deny]}
`
