package resources

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestKindClasses(t *testing.T) {
	type classes struct{ Webhook, Policy, Binding, Admission, CRD, State bool }
	for _, tt := range []struct {
		gk   schema.GroupKind
		want classes
	}{
		{schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}, classes{Webhook: true, Admission: true}},
		{schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}, classes{Policy: true, Admission: true}},
		{schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}, classes{Policy: true, Binding: true, Admission: true}},
		{schema.GroupKind{Group: "example.com", Kind: "ValidatingAdmissionPolicy"}, classes{}},
		{schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, classes{CRD: true}},
		{schema.GroupKind{Kind: "ServiceAccount"}, classes{State: true}},
		{schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"}, classes{State: true}},
		{schema.GroupKind{Kind: "Pod"}, classes{}},
	} {
		got := classes{IsWebhookConfiguration(tt.gk), IsPolicy(tt.gk), IsPolicyBinding(tt.gk), IsAdmissionConfiguration(tt.gk), IsCRD(tt.gk), IsState(tt.gk)}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.gk, diff)
		}
	}
}

// Every state kind is a built-in kind, of the resource and scope it says.
func TestStateKindsAreServed(t *testing.T) {
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range StateKinds() {
		found := false
		for _, r := range m.Resources() {
			if r.GVR.Group == k.Group && r.Kind.Kind == k.Kind && r.GVR.Resource == k.Resource {
				found = true
				if r.Namespaced != k.Namespaced {
					t.Errorf("%s: namespaced %v, want %v", k.GroupKind, r.Namespaced, k.Namespaced)
				}
			}
		}
		if !found {
			t.Errorf("%s: no built-in resource %s", k.GroupKind, k.Resource)
		}
	}
}

func TestCRDs(t *testing.T) {
	crd := func(name, group string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"group": group}}}
	}
	var crds CRDs
	for i, obj := range []*unstructured.Unstructured{crd("widgets.a.example.com", "a.example.com"), crd("widgets.a.example.com", "b.example.com"),
		{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}}} {
		if err := crds.AddObject(obj, "object "+string(rune('1'+i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := crds.List(); len(got) != 1 || got[0].Spec.Group != "a.example.com" {
		t.Errorf("CRDs kept %d, want the first of its name only", len(got))
	}
	bad := crd("bad.example.com", "x")
	bad.Object["spec"] = "not an object"
	if err := crds.AddObject(bad, "bad.yaml:3"); err == nil || err.Error()[:len("bad.yaml:3: reading CustomResourceDefinition")] != "bad.yaml:3: reading CustomResourceDefinition" {
		t.Errorf("a CRD that does not read: %v", err)
	}
}
