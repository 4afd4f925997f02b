package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDumpShapes reads the shapes dumps come in, whole and an item at a time, each object named
// by where it starts.
func TestDumpShapes(t *testing.T) {
	tests := []struct {
		name, file, dump string
		// want are "source kind namespace/name" of each object read.
		want []string
	}{{
		name: "kubectl get -A -o yaml: a List, items at column 0, block scalars kept",
		file: "dump.yaml",
		dump: "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    namespace: shop\n  data:\n    script: |\n      #!/bin/sh\n      echo \"- not an item\"\n\n      exit 0\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: shop}\nkind: List\nmetadata:\n  resourceVersion: \"\"\n",
		want: []string{"dump.yaml:3 ConfigMap shop/a", "dump.yaml:14 Deployment shop/web"},
	}, {
		name: "a List with its items indented, then documents",
		file: "dump.yaml",
		dump: "kind: List\napiVersion: v1\nitems:\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: shop}\n  -\n    apiVersion: v1\n    kind: Namespace\n    metadata: {name: web}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: web}\n---\n# a comment only\n",
		want: []string{"dump.yaml:4 Namespace /shop", "dump.yaml:8 Namespace /web", "dump.yaml:12 Pod web/p"},
	}, {
		name: "a List in flow style is read whole",
		file: "dump.yaml",
		dump: "{apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: x}}]}\n",
		want: []string{"dump.yaml:1 ConfigMap x/a"},
	}, {
		name: "kubectl get -o json",
		file: "dump.json",
		dump: "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\", \"namespace\": \"x\"}},\n    {\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"s\", \"namespace\": \"x\"}}\n  ],\n  \"kind\": \"List\",\n  \"metadata\": {\"resourceVersion\": \"\"}\n}",
		want: []string{"dump.json:4 ConfigMap x/a", "dump.json:5 Secret x/s"},
	}}
	for _, tt := range tests {
		for _, limit := range []int{1 << 30, 1} {
			t.Run(tt.name, func(t *testing.T) {
				objects, err := parseWith(tt.file, tt.dump, limit)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, o := range objects {
					got = append(got, o.Source.String()+" "+o.Object.GetKind()+" "+o.Object.GetNamespace()+"/"+o.Object.GetName())
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("limit %d: objects read (-want +got):\n%s", limit, diff)
				}
			})
		}
	}
}

// TestDumpErrors says where a dump that is not YAML or JSON goes wrong.
func TestDumpErrors(t *testing.T) {
	for _, tt := range []struct{ name, file, dump, want string }{
		{"broken YAML in a List item", "dump.yaml", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: [\nkind: List\n", "dump.yaml:"},
		{"broken JSON in a List item", "dump.json", `{"apiVersion": "v1", "items": [{"kind": }]}`, "dump.json:1: invalid character '}'"},
	} {
		for _, limit := range []int{1 << 30, 1} {
			if _, err := parseWith(tt.file, tt.dump, limit); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("%s, limit %d: error %v, want one starting %q", tt.name, limit, err, tt.want)
			}
		}
	}
}
