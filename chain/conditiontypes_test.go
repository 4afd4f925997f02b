package chain

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/openapi"

	"github.com/admitkit/admit/typecheck"
)

// The schemas typecheck.SchemaOf makes from the Go types of Kubernetes' API are, as CEL sees
// them once loosened, the ones the apiserver publishes for their kinds: webhook.Registry
// type-checks match conditions against the first, lint against the second, and both must say
// the same.
func TestGoTypeSchemasAreThePublishedOnes(t *testing.T) {
	checker, err := NewPolicyTypeChecker(nil)
	if err != nil {
		t.Fatal(err)
	}
	kube, _ := kubeScheme()
	var kinds []schema.GroupVersionKind
	for gvk, goType := range kube.AllKnownTypes() {
		if gvk.Version != runtime.APIVersionInternal && strings.HasPrefix(goType.PkgPath(), "k8s.io/api/") &&
			!strings.HasSuffix(gvk.Kind, "List") && !strings.HasSuffix(gvk.Kind, "Options") {
			kinds = append(kinds, gvk)
		}
	}
	slices.SortFunc(kinds, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	checked := 0
	for _, gvk := range kinds {
		published, err := checker.schemas.ResolveSchema(gvk)
		if err != nil {
			continue // not served: no published schema (WatchEvent, Status...)
		}
		checked++
		goType := kube.AllKnownTypes()[gvk]
		want := celType(common.SchemaDeclType(&openapi.Schema{Schema: published}, true), 0)
		got := celType(common.SchemaDeclType(&openapi.Schema{Schema: typecheck.Loosen(typecheck.SchemaOf(reflect.PointerTo(goType)))}, true), 0)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (%s): the Go type's schema differs from the published one (-published +Go type):\n%s", gvk, goType, diff)
		}
	}
	if checked < 100 {
		t.Errorf("compared %d kinds, want every kind Kubernetes serves", checked)
	}
}

// celType renders a CEL declaration as lines "path: type", for diffs that point at the field.
func celType(t *apiservercel.DeclType, depth int) []string {
	return celTypeAt("", t, depth)
}

func celTypeAt(path string, t *apiservercel.DeclType, depth int) []string {
	switch {
	case t == nil:
		return []string{path + ": (none)"}
	case depth > 40:
		return []string{path + ": ..."}
	case t.IsObject():
		out := []string{path + ": object"}
		names := make([]string, 0, len(t.Fields))
		for name := range t.Fields {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			out = append(out, celTypeAt(path+"."+name, t.Fields[name].Type, depth+1)...)
		}
		return out
	case t.IsList():
		return append([]string{path + ": list"}, celTypeAt(path+"[]", t.ElemType, depth+1)...)
	case t.IsMap():
		return append([]string{path + ": map"}, celTypeAt(path+"{}", t.ElemType, depth+1)...)
	}
	return []string{path + ": " + t.CelType().String()}
}

// Match conditions are type-checked against the published schemas of the kinds given; a kind
// without one is not checked.
func TestCheckCondition(t *testing.T) {
	checker, err := NewPolicyTypeChecker(nil)
	if err != nil {
		t.Fatal(err)
	}
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	gadget := schema.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "Gadget"}
	tests := []struct {
		expression string
		kinds      []schema.GroupVersionKind
		want       []string
	}{
		{"object.spec.containerz.size() > 0", []schema.GroupVersionKind{pod}, []string{"against Pod (v1): undefined field 'containerz' at line 1, column 12"}},
		{"object.spec.replicas > 1", []schema.GroupVersionKind{deployment, pod}, []string{"against Pod (v1): undefined field 'replicas' at line 1, column 12"}},
		{"object.kind == 'Pod' || object.spec.replicas > 1", []schema.GroupVersionKind{deployment, pod}, nil},
		{"request.userInfo.usernam == 'x'", []schema.GroupVersionKind{pod}, []string{"against Pod (v1): undefined field 'usernam' at line 1, column 17"}},
		{"request.userInfo.username == 'x' && authorizer.requestResource.check('get').allowed()", []schema.GroupVersionKind{pod}, nil},
		{"has(object.metadata.labels) && object.spec.containers.all(c, has(c.resources.requests))", []schema.GroupVersionKind{pod}, nil},
		{"object.spec.weight > 1", []schema.GroupVersionKind{gadget}, nil},
	}
	for _, tt := range tests {
		errs, err := checker.CheckCondition(tt.expression, tt.kinds)
		if err != nil {
			t.Fatalf("%s: %v", tt.expression, err)
		}
		var got []string
		for _, e := range errs {
			got = append(got, e.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s on %v (-want +got):\n%s", tt.expression, tt.kinds, diff)
		}
	}
}
