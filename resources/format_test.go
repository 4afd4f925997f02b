package resources

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The embedded data is exactly what MarshalJSON writes: the generator's output is canonical, so
// regenerating unchanged data changes no byte.
func TestBuiltinDataIsCanonical(t *testing.T) {
	got, err := builtin(t).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(builtinJSON, string(got)); diff != "" {
		t.Errorf("MarshalJSON of the built-in data differs from kube-1.36.json (-file +marshalled):\n%s", diff)
	}
}

// A snapshot with a CRD keeps everything through JSON, unserved versions included.
func TestJSONRoundTrip(t *testing.T) {
	m := withFoos(t)
	data, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.Resources(), back.Resources()); diff != "" {
		t.Errorf("Resources (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(m.classes(), back.classes()); diff != "" {
		t.Errorf("equivalence classes (-before +after):\n%s", diff)
	}
	if kind, err := back.KindFor(gvr("example.com", "v3", "foos"), "scale"); err != nil || kind != gvk("autoscaling", "v1", "Scale") {
		t.Errorf("unserved v3 scale after the round trip: %v, %v", kind, err)
	}
	if back.ServerVersion() != m.ServerVersion() {
		t.Errorf("ServerVersion %q, want %q", back.ServerVersion(), m.ServerVersion())
	}
}

func TestFromJSONErrors(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string
	}{
		{
			name:    "not JSON",
			json:    `serverVersion: v1`,
			wantErr: `decoding resource data: invalid character 's' looking for beginning of value`,
		},
		{
			name:    "unknown field",
			json:    `{"serverVersion": "v1.36.0", "resources": [{"group": "", "version": "v1", "resource": "pods", "kind": "Pod", "scope": "Namespaced"}]}`,
			wantErr: `decoding resource data: json: unknown field "scope"`,
		},
		{
			name:    "trailing data",
			json:    `{"serverVersion": "v1.36.0"} {}`,
			wantErr: `decoding resource data: unexpected data after the JSON object`,
		},
		{
			name:    "bad kind apiVersion",
			json:    `{"resources": [{"version": "v1", "resource": "pods", "kind": "Eviction", "kindAPIVersion": "a/b/c"}]}`,
			wantErr: `resources[0] ("pods"): kindAPIVersion: unexpected GroupVersion string: a/b/c`,
		},
		{
			name:    "no kind",
			json:    `{"resources": [{"version": "v1", "resource": "pods"}]}`,
			wantErr: `resource data: resource "pods" in group "" version "v1": kind "/v1, Kind=" is incomplete`,
		},
		{
			name:    "no version",
			json:    `{"resources": [{"resource": "pods", "kind": "Pod"}]}`,
			wantErr: `resource data: resource "pods" in group "": version is empty`,
		},
		{
			name:    "subresource path as a resource",
			json:    `{"resources": [{"version": "v1", "resource": "pods/status", "kind": "Pod"}]}`,
			wantErr: `resource data: resource "pods/status" in group "" version "v1": resource name must be non-empty and contain no "/"`,
		},
		{
			name:    "resource twice",
			json:    `{"resources": [{"version": "v1", "resource": "pods", "kind": "Pod"}, {"version": "v1", "resource": "pods", "kind": "Pod"}]}`,
			wantErr: `resource data: resource "pods" in group "" version "v1" is defined twice`,
		},
		{
			name:    "subresource twice",
			json:    `{"resources": [{"version": "v1", "resource": "pods", "kind": "Pod", "subresources": [{"name": "status", "kind": "Pod"}, {"name": "status", "kind": "Pod"}]}]}`,
			wantErr: `resource data: resource "pods" in group "" version "v1": subresource "status" is defined twice`,
		},
		{
			name:    "subresource without kind",
			json:    `{"resources": [{"version": "v1", "resource": "pods", "kind": "Pod", "subresources": [{"name": "status"}]}]}`,
			wantErr: `resource data: resource "pods" in group "" version "v1": subresource "status": kind "/v1, Kind=" is incomplete`,
		},
		{
			name:    "two versions without an equivalence order",
			json:    `{"resources": [{"group": "g", "version": "v1", "resource": "rs", "kind": "R"}, {"group": "g", "version": "v2", "resource": "rs", "kind": "R"}]}`,
			wantErr: `resource data: resource "rs" in group "g" has versions v2, v1 but no equivalence order`,
		},
		{
			name: "equivalence class with an unknown member",
			json: `{"resources": [{"group": "g", "version": "v1", "resource": "rs", "kind": "R"}],
				"equivalents": [[{"group": "g", "version": "v1", "resource": "rs"}, {"group": "g", "version": "v2", "resource": "rs"}]]}`,
			wantErr: `resource data: equivalence class of resource "rs" in group "g" version "v1" names unknown resource "rs" in group "g" version "v2"`,
		},
		{
			name: "equivalence class missing a version",
			json: `{"resources": [{"group": "g", "version": "v1", "resource": "rs", "kind": "R"}, {"group": "g", "version": "v2", "resource": "rs", "kind": "R"},
				{"group": "g", "version": "v1", "resource": "qs", "kind": "Q"}],
				"equivalents": [[{"group": "g", "version": "v1", "resource": "rs"}, {"group": "g", "version": "v1", "resource": "qs"}]]}`,
			wantErr: `resource data: equivalence class of resource "rs" in group "g" version "v1" lacks resource "rs" in group "g" version "v2"`,
		},
		{
			name: "resource in two classes",
			json: `{"resources": [{"group": "g", "version": "v1", "resource": "rs", "kind": "R"}, {"group": "g", "version": "v1", "resource": "qs", "kind": "Q"}],
				"equivalents": [[{"group": "g", "version": "v1", "resource": "rs"}, {"group": "g", "version": "v1", "resource": "qs"}], [{"group": "g", "version": "v1", "resource": "qs"}]]}`,
			wantErr: `resource data: resource "qs" in group "g" is in two equivalence classes`,
		},
		{
			name:    "empty class",
			json:    `{"resources": [], "equivalents": [[]]}`,
			wantErr: `resource data: empty equivalence class`,
		},
		{
			name: "member twice",
			json: `{"resources": [{"group": "g", "version": "v1", "resource": "rs", "kind": "R"}],
				"equivalents": [[{"group": "g", "version": "v1", "resource": "rs"}, {"group": "g", "version": "v1", "resource": "rs"}]]}`,
			wantErr: `resource data: equivalence class of resource "rs" in group "g" version "v1" names resource "rs" in group "g" version "v1" twice`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromJSON([]byte(tt.json))
			if diff := cmp.Diff(tt.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
