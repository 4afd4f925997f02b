package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// testLog is an audit log's events at Request level, as kube-apiserver writes them: a ConfigMap
// shop/settings created, read, updated, patched (a dry run, then a JSON patch), an exec, a
// delete of an object the log does not show, and the ConfigMap's delete.
const testLog = "testdata/audit.log"

// replayed replays a log's events with every resource followed.
func replayed(t *testing.T, path string, each func(w Write, skip string)) {
	t.Helper()
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	r := newReplay(mapper, func(schema.GroupVersionResource) bool { return true }, false)
	err = (&Log{Path: path, Label: "audit.log"}).lines(func(line *logLine) error {
		ev, err := line.event()
		if err != nil {
			return err
		}
		if w, skip, ok := r.write(line, ev); ok {
			each(w, skip)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Each write of the log becomes the admission it was: its operation, its user, its options, the
// object before it as the log showed it.
func TestReplay(t *testing.T) {
	type write struct {
		Line, Operation, User, FieldManager, FieldValidation string
		Groups                                               []string
		DryRun                                               bool
		Data, OldData                                        map[string]any
		Skip                                                 string
	}
	var got []write
	replayed(t, testLog, func(it Write, skip string) {
		w := write{Line: strings.TrimPrefix(it.Object.Source, "audit.log:"), Skip: skip}
		if skip == "" {
			w.Operation, w.User, w.Groups, w.DryRun = string(it.Write.Operation), it.Write.User.Username, it.Write.User.Groups, it.Write.DryRun
			w.FieldManager, w.FieldValidation = it.Write.FieldManager, it.Write.FieldValidation
			w.Data, _ = it.Object.Object.Object["data"].(map[string]any)
			if it.Old != nil {
				w.OldData, _ = it.Old.Object.Object["data"].(map[string]any)
			}
		}
		got = append(got, w)
	})
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

// A create or update logged at the Metadata level has no object to replay; each is skipped,
// saying so.
func TestReplayWritesWithoutObjects(t *testing.T) {
	lines := []string{
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/shop/configmaps","user":{"username":"alice"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201}}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":"ResponseComplete","verb":"update","requestURI":"/api/v1/namespaces/shop/configmaps/a","user":{"username":"alice"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200}}`,
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var skips []string
	replayed(t, path, func(_ Write, skip string) { skips = append(skips, skip) })
	want := []string{
		"a create logged without its object (the audit policy's level is Metadata)",
		"an update logged without its object (the audit policy's level is Metadata)",
	}
	if diff := cmp.Diff(want, skips); diff != "" {
		t.Errorf("skipped writes (-want +got):\n%s", diff)
	}
}

// A log with nothing to replay is an error, not an audit of nothing.
func TestLogWithNothingToReplay(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]struct{ content, want string }{
		"empty.log": {"", "empty.log holds no audit events"},
		"reads.log": {`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"get","requestURI":"/api/v1/namespaces/shop/configmaps/a","user":{"username":"alice"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200}}` + "\n",
			"reads.log: no write to replay among its 1 event"},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := (&Log{Path: path}).Scan(context.Background(), ScanOptions{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error holding %q", name, err, tt.want)
		}
	}
}

// An update the apiserver took names the version and uid of what it stored: the replay's old
// object has them, although at Request level the log shows only what a client sent before.
func TestReplayUpdateKeepsTheStoredVersion(t *testing.T) {
	lines := []string{
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/shop/configmaps","user":{"username":"alice"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"shop"},"data":{"k":"1"}}}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"update","requestURI":"/api/v1/namespaces/shop/configmaps/a","user":{"username":"bob"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"shop","resourceVersion":"1234","uid":"u-1"},"data":{"k":"2"}}}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","stage":"ResponseComplete","verb":"update","requestURI":"/api/v1/namespaces/shop/configmaps/a","user":{"username":"carol"},"objectRef":{"resource":"configmaps","namespace":"shop","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":409},"requestObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"shop","resourceVersion":"1200"},"data":{"k":"3"}}}`,
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	replayed(t, path, func(w Write, skip string) {
		if w.Old != nil {
			got = append(got, fmt.Sprintf("%s/%s over %s/%s", w.Object.Object.GetResourceVersion(), w.Object.Object.GetUID(), w.Old.Object.GetResourceVersion(), w.Old.Object.GetUID()))
		}
	})
	// A conflict the apiserver answered stays one: the old object keeps what the log showed.
	if diff := cmp.Diff([]string{"1234/u-1 over 1234/u-1", "1200/ over 1234/u-1"}, got); diff != "" {
		t.Errorf("the updates' versions, new over old (-want +got):\n%s", diff)
	}
}
