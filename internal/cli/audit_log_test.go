package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// auditLogLines are an audit log's events at Request level, one a line as kube-apiserver writes
// them; "OBJ(...)" stands for a ConfigMap shop/settings with the given data.
func auditLogLines() []string {
	return []string{
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"RequestReceived","verb":"create","requestURI":"/api/v1/namespaces/shop/configmaps","user":{"username":"alice"},"objectRef":{"resource":"configmaps","namespace":"shop","apiVersion":"v1"},"requestObject":OBJ({"a":"1"})}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/shop/configmaps?fieldManager=kubectl-create&fieldValidation=Strict","user":{"username":"alice","groups":["dev","system:authenticated"]},"objectRef":{"resource":"configmaps","namespace":"shop","name":"settings","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestObject":OBJ({"a":"1"})}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"get","requestURI":"/api/v1/namespaces/shop/configmaps/settings","user":{"username":"alice"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"settings","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200}}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"update","requestURI":"/api/v1/namespaces/shop/configmaps/settings","user":{"username":"bob"},"userAgent":"helm/v3.15.0 (linux/amd64)","objectRef":{"resource":"configmaps","namespace":"shop","name":"settings","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestObject":OBJ({"a":"2"})}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"patch","requestURI":"/api/v1/namespaces/shop/configmaps/settings?dryRun=All","user":{"username":"admin"},"impersonatedUser":{"username":"carol","groups":["ops"]},"objectRef":{"resource":"configmaps","namespace":"shop","name":"settings","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestObject":{"data":{"b":"3"}}}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"patch","requestURI":"/api/v1/namespaces/shop/configmaps/settings","user":{"username":"dave"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"settings","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestObject":[{"op":"add","path":"/data/c","value":"4"}]}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/shop/pods/web/exec?command=sh","user":{"username":"alice"},"objectRef":{"resource":"pods","namespace":"shop","name":"web","apiVersion":"v1","subresource":"exec"},"responseStatus":{"metadata":{},"code":101}}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"delete","requestURI":"/api/v1/namespaces/shop/configmaps/gone","user":{"username":"erin"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"gone","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200}}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"delete","requestURI":"/api/v1/namespaces/shop/configmaps/settings","user":{"username":"erin"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"settings","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200}}`,
	}
}

func writeAuditLog(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range auditLogLines() {
		for strings.Contains(line, "OBJ(") {
			start := strings.Index(line, "OBJ(")
			end := start + strings.Index(line[start:], "})") + 2
			data := line[start+4 : end-1]
			line = line[:start] + `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"shop"},"data":` + data + `}` + line[end:]
		}
		b.WriteString(line + "\n")
	}
	path := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Each write of the log becomes the admission it was: its operation, its user, its options, the
// object before it as the log showed it.
func TestAuditLogReplay(t *testing.T) {
	path := writeAuditLog(t, t.TempDir())
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	replay := newLogReplay("audit.log", mapper, func(schema.GroupVersionResource) bool { return true }, false)
	type write struct {
		Line, Operation, User, FieldManager, FieldValidation string
		Groups                                               []string
		DryRun                                               bool
		Data, OldData                                        map[string]any
		Skip                                                 string
	}
	var got []write
	err = eachAuditEvent(path, "audit.log", func(line int, ev *auditEvent) error {
		it, skip, ok := replay.item(line, ev)
		if !ok {
			return nil
		}
		w := write{Line: strings.TrimPrefix(it.object.Source, "audit.log:"), Skip: skip}
		if skip == "" {
			w.Operation, w.User, w.Groups, w.DryRun = string(it.write.Operation), it.write.User.Username, it.write.User.Groups, it.write.DryRun
			w.FieldManager, w.FieldValidation = it.write.FieldManager, it.write.FieldValidation
			w.Data, _ = it.object.Object.Object["data"].(map[string]any)
			if it.old != nil {
				w.OldData, _ = it.old.Object.Object["data"].(map[string]any)
			}
		}
		got = append(got, w)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []write{
		{Line: "2", Operation: "CREATE", User: "alice", Groups: []string{"dev", "system:authenticated"}, FieldManager: "kubectl-create", FieldValidation: "Strict", Data: map[string]any{"a": "1"}},
		{Line: "4", Operation: "UPDATE", User: "bob", FieldManager: "helm", Data: map[string]any{"a": "2"}, OldData: map[string]any{"a": "1"}},
		// A dry run is replayed as one, and stores nothing for the writes after it.
		{Line: "5", Operation: "UPDATE", User: "carol", Groups: []string{"ops"}, DryRun: true, Data: map[string]any{"a": "2", "b": "3"}, OldData: map[string]any{"a": "2"}},
		{Line: "6", Operation: "UPDATE", User: "dave", Data: map[string]any{"a": "2", "c": "4"}, OldData: map[string]any{"a": "2"}},
		{Skip: "a delete of an object the log does not show before (a RequestResponse level logs it)"},
		{Line: "9", Operation: "DELETE", User: "erin", Data: map[string]any{"a": "2", "c": "4"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the replayed writes (-want +got):\n%s", diff)
	}
}

// An audit log replayed through the baseline and the proposal: a policy that refuses one user's
// ConfigMap writes newly denies those writes, and only those.
func TestAuditLog(t *testing.T) {
	dir := t.TempDir()
	path := writeAuditLog(t, dir)
	proposal := filepath.Join(dir, "proposal.yaml")
	if err := os.WriteFile(proposal, []byte(`apiVersion: admissionregistration.k8s.io/v1
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
`), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runAudit(t, context.Background(), "--audit-log", path, "--webhooks", proposal, "-o", "json")
	if code != ExitRejected {
		t.Fatalf("exit %d\n%s\n%s", code, stderr, stdout)
	}
	var report auditReport
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(auditTotals{Read: 6, Audited: 5, Skipped: 1, NewlyDenied: 1}, report.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	if len(report.Objects) != 1 || !strings.HasPrefix(report.Objects[0].Origin, path+":4: update configmaps settings in shop by bob, answered 200") {
		t.Errorf("objects: %+v", report.Objects)
	}
	if !strings.Contains(strings.Join(report.Notes, "\n"), "1 write not replayed: a delete of an object the log does not show before") {
		t.Errorf("notes: %q", report.Notes)
	}
}

// A create or update logged at the Metadata level has no object to replay; each is skipped,
// saying so.
func TestAuditLogWritesWithoutObjects(t *testing.T) {
	lines := []string{
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/shop/configmaps","user":{"username":"alice"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201}}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"update","requestURI":"/api/v1/namespaces/shop/configmaps/a","user":{"username":"alice"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200}}`,
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	replay := newLogReplay("audit.log", mapper, func(schema.GroupVersionResource) bool { return true }, false)
	var skips []string
	err = eachAuditEvent(path, "audit.log", func(line int, ev *auditEvent) error {
		if _, skip, ok := replay.item(line, ev); ok {
			skips = append(skips, skip)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a create logged without its object (the audit policy's level is Metadata)",
		"an update logged without its object (the audit policy's level is Metadata)",
	}
	if diff := cmp.Diff(want, skips); diff != "" {
		t.Errorf("skipped writes (-want +got):\n%s", diff)
	}
}
