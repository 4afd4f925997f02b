package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/review"
)

// A dump is read an object at a time whatever its shape, each object named by where it starts.
func TestAuditDumpObjects(t *testing.T) {
	tests := []struct {
		name string
		dump string
		// want are "source kind namespace/name" of each object read.
		want []string
	}{
		{
			name: "kubectl get -A -o yaml: a List, items at column 0",
			dump: `apiVersion: v1
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    namespace: shop
  data:
    script: |
      #!/bin/sh
      echo "- not an item"

      exit 0
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
  spec:
    template:
      spec:
        containers:
        - name: web
          image: nginx
kind: List
metadata:
  resourceVersion: ""
`,
			want: []string{"dump.yaml:3 ConfigMap shop/a", "dump.yaml:14 Deployment shop/web"},
		},
		{
			name: "a List with its items indented, then documents",
			dump: `kind: List
apiVersion: v1
items:
  - apiVersion: v1
    kind: Namespace
    metadata: {name: shop}
  -
    apiVersion: v1
    kind: Namespace
    metadata: {name: web}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: web}
---
# a comment only
`,
			want: []string{"dump.yaml:4 Namespace /shop", "dump.yaml:7 Namespace /web", "dump.yaml:12 Pod web/p"},
		},
		{
			name: "multi-document YAML keeps the file's lines",
			dump: `# objects
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: x}
---

apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: x}
`,
			want: []string{"dump.yaml:2 ConfigMap x/a", "dump.yaml:7 ConfigMap x/b"},
		},
		{
			name: "a List in flow style is read whole",
			dump: `{apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: x}}]}
`,
			want: []string{"dump.yaml:1 ConfigMap x/a"},
		},
		{
			name: "kubectl get -o json: a List, its items decoded one at a time",
			dump: `{
  "apiVersion": "v1",
  "items": [
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "x"}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "x"}}
  ],
  "kind": "List",
  "metadata": {"resourceVersion": ""}
}`,
			want: []string{"dump.yaml: object 1 ConfigMap x/a", "dump.yaml: object 2 Secret x/s"},
		},
		{
			name: "JSON objects one after the other",
			dump: `{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}
{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}}
[{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "c"}}]`,
			want: []string{"dump.yaml: object 1 Namespace /a", "dump.yaml: object 2 Namespace /b", "dump.yaml: object 3 Namespace /c"},
		},
		{
			name: "an empty file",
			dump: "\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dump.yaml")
			if err := os.WriteFile(path, []byte(tt.dump), 0o600); err != nil {
				t.Fatal(err)
			}
			var got []string
			err := eachDumpObject(path, "dump.yaml", func(in review.Input) error {
				got = append(got, in.Source+" "+in.Object.GetKind()+" "+in.Object.GetNamespace()+"/"+in.Object.GetName())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("objects read (-want +got):\n%s", diff)
			}
		})
	}
}

// A List's item keeps its block scalars, blank lines included.
func TestAuditDumpKeepsItemsWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dump.yaml")
	dump := "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data:\n    run.sh: |\n      one\n\n      - two\nkind: List\n"
	if err := os.WriteFile(path, []byte(dump), 0o600); err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := eachDumpObject(path, "dump.yaml", func(in review.Input) error {
		data = in.Object.Object["data"].(map[string]any)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"run.sh": "one\n\n- two\n"}, data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

// A dump that is not YAML or JSON says where.
func TestAuditDumpErrors(t *testing.T) {
	tests := []struct {
		name, dump, want string
	}{
		{"broken YAML in a List item", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: [\nkind: List\n", "dump.yaml:3"},
		{"broken JSON", `{"apiVersion": "v1", "items": [{"kind": }]}`, "dump.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dump.yaml")
			if err := os.WriteFile(path, []byte(tt.dump), 0o600); err != nil {
				t.Fatal(err)
			}
			err := eachDumpObject(path, "dump.yaml", func(review.Input) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one naming %s", err, tt.want)
			}
		})
	}
}
