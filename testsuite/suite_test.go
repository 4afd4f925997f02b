package testsuite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const podYAML = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers: [{name: web, image: nginx}]
`

func TestParse(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "pod.yaml", "# a comment\n"+podYAML)
	path := writeFile(t, dir, "admit-test.yaml", parseFile)
	s, err := Parse(path, mustRead(t, path))
	if err != nil {
		t.Fatal(err)
	}
	want := &Suite{
		Path: path, Name: "admit-test", Namespace: "default",
		Webhooks: []string{filepath.Join(dir, "hooks.yaml"), "/abs/other.yaml"}, Cluster: []string{filepath.Join(dir, "state")},
		Resolve: []string{"ns/svc=127.0.0.1:$(PORT)"},
		Server:  &Server{Command: []string{"$(ADMIT)", "serve"}, Env: map[string]string{"A": "b"}, Ready: "tcp://127.0.0.1:$(PORT)", ReadyTimeout: 5 * time.Second, Line: 7},
		Cases: []*Case{
			{
				Name: "from a file", Line: 12, Object: json.RawMessage(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop"},"spec":{"containers":[{"image":"nginx","name":"web"}]}}`),
				ObjectSource: filepath.Join(dir, "pod.yaml"), User: "alice", Groups: []string{"dev"}, DryRun: true,
				Expect: Expect{Allowed: ptr(false), Code: ptr(int32(403)), MessageRegexp: "denied$", Warnings: []string{},
					set: map[string]bool{"allowed": true, "code": true, "messageRegexp": true, "warnings": true}},
			},
			{
				Name: "inline update", Line: 22, Operation: "UPDATE", Namespace: "other",
				Object: json.RawMessage(`{"apiVersion":"v1","data":{"n":"1"},"kind":"ConfigMap","metadata":{"name":"c"}}`), ObjectSource: path + ":25",
				Old: json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`), OldSource: path + ":26",
				Expect: Expect{Allowed: ptr(true), Called: []string{"a", "b"}, Outcomes: map[string]string{"a": "patched"},
					Fields: map[string]any{"data.n": "1", `metadata.labels["app.kubernetes.io/name"]`: nil},
					set:    map[string]bool{"allowed": true, "called": true, "outcomes": true, "fields": true}},
			},
		},
	}
	opts := []cmp.Option{cmp.AllowUnexported(Suite{}, Expect{}), cmpopts.IgnoreFields(Suite{}, "data"), cmpopts.IgnoreFields(Case{}, "node", "updated", "files")}
	if diff := cmp.Diff(want, s, opts...); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Every problem of a file is reported at once, each with its line.
func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "two.yaml", podYAML+"---\n"+podYAML)
	tests := []struct {
		name string
		file string
		want []string
	}{
		{name: "not a mapping", file: "- a\n", want: []string{"t.yaml: a test file is one YAML mapping"}},
		{name: "not YAML", file: "a: [\n", want: []string{"t.yaml:1: yaml: did not find expected node content"}},
		{
			name: "header, unknown fields, no cases",
			file: "apiVersion: v1\nkind: Test\nwebhook: x\n",
			want: []string{
				`t.yaml:3: unknown field "webhook" in the test file (known: apiVersion, kind, name, webhooks, cluster`,
				`t.yaml:1: apiVersion "v1": want admit.dev/v1alpha1`,
				`t.yaml:2: kind "Test": want TestSuite`,
				`t.yaml:1: cases: a test file needs a list of cases`,
			},
		},
		{
			name: "bad cases",
			file: `apiVersion: admit.dev/v1alpha1
kind: TestSuite
cases:
- name: a
  object: missing.yaml
  expect: {allowed: true}
- name: a
  operation: PATCH
  object: two.yaml
  expect: {code: 403, message: x, messageRegexp: "(", outcomes: {w: ok}, fields: {"spec.": 1}}
- object: {kind: Pod}
  expect: {allowed: true}
- name: no expect
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  exepct: {allowed: true}
`,
			want: []string{
				`t.yaml:8: case "a": operation "PATCH": use CREATE, UPDATE, DELETE or CONNECT`,
				`t.yaml:10: case "a": expect.allowed: say whether the object must be admitted (true) or rejected (false)`,
				`t.yaml:10: case "a": expect: give message or messageRegexp, not both`,
				`t.yaml:10: case "a": expect.messageRegexp: error parsing regexp`,
				`t.yaml:10: case "a": expect.fields: field path "spec.": empty or ending with a dot`,
				`t.yaml:10: case "a": expect.outcomes["w"]: "ok" is not an outcome`,
				`t.yaml:7: case "a": the name is used by the case at line 4 too`,
				`t.yaml:11: a case needs a name`,
				`t.yaml:15: unknown field "exepct" in a case`,
				`t.yaml:13: case "no expect": expect: say what admission must decide`,
			},
		},
		{
			name: "server",
			file: "apiVersion: admit.dev/v1alpha1\nkind: TestSuite\nserver: {ready: ftp://x, readyTimeout: soon}\ncases: [{name: a, object: {apiVersion: v1, kind: Pod}, expect: {allowed: true}}]\n",
			want: []string{
				`t.yaml:3: server.command: the command that starts the server, as a list`,
				`t.yaml:3: server.ready "ftp://x": want an http(s):// URL or tcp://HOST:PORT`,
				`t.yaml:3: server.readyTimeout "soon": want a positive duration`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(filepath.Join(dir, "t.yaml"), []byte(tt.file))
			if err == nil {
				t.Fatal("no error")
			}
			got := strings.Split(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), "\n")
			if len(got) != len(tt.want) {
				t.Fatalf("%d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, want := range tt.want {
				want = strings.ReplaceAll(want, dir+string(filepath.Separator), "")
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], want)
				}
			}
		})
	}
}

// A case whose object file is missing, or holds two objects, cannot run: that is the case's
// error, and the file's other cases still run.
func TestCaseFileErrorsAreTheCases(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "two.yaml"), []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Parse(filepath.Join(dir, "t.yaml"), []byte(caseErrorsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range s.Cases {
		got[c.Name] = strings.ReplaceAll(c.Err, dir+string(filepath.Separator), "")
	}
	want := map[string]string{
		"missing": `t.yaml:5: case "missing": object: open missing.yaml: no such file or directory`,
		"two":     `t.yaml:8: case "two": object: two.yaml holds 2 objects; a case admits one`,
		"fine":    "",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the cases' errors (-want +got):\n%s", diff)
	}
}
