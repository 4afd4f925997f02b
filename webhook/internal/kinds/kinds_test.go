package kinds

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookups(t *testing.T) {
	deployments, ok := Lookup("apps", "deployments")
	if want := (Resource{Kind: "Deployment", Namespaced: true, Versions: []string{"v1"}, Subresources: []string{"scale", "status"}}); !ok || !cmp.Equal(want, deployments) {
		t.Errorf("Lookup(apps, deployments) = %+v, %v", deployments, ok)
	}
	if _, ok := Lookup("", "deployments"); ok {
		t.Error("the core group has deployments")
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"BuiltinGroup core", BuiltinGroup(""), true},
		{"BuiltinGroup custom", BuiltinGroup("example.com"), false},
		{"ResourceOf Pod", first(ResourceOf("", "Pod")), "pods"},
		{"ResourceOf Scale", first(ResourceOf("autoscaling", "Scale")), ""},
		{"GroupOfPackage networking", first(GroupOfPackage("k8s.io/api/networking")), "networking.k8s.io"},
		{"GroupOfPackage core", first(GroupOfPackage("k8s.io/api/core")), ""},
		{"Suggest a singular", first(Suggest("apps", "deployment")), "deployments"},
		{"Suggest a kind", first(Suggest("", "Endpoints")), "endpoints"},
	}
	for _, tt := range tests {
		if !cmp.Equal(tt.want, tt.got) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func first[T any](v T, _ bool) T { return v }
