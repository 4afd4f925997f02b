package typecheck

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

func newChecker(t *testing.T) *Checker {
	t.Helper()
	c, err := New(version.MajorMinor(1, 35))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tree is a type graph: a struct that holds itself, through a pointer.
type tree struct {
	Name     string  `json:"name"`
	Children []*tree `json:"children,omitempty"`
	hidden   string
	Skipped  string `json:"-"`
	inline   `json:",inline"`
}

type inline struct {
	Size resource.Quantity `json:"size"`
}

// SchemaOf reads the JSON form of Go types: names from tags, inline fields, the types that say
// their own schema, and a type that holds itself cut.
func TestSchemaOf(t *testing.T) {
	s := SchemaOf(reflect.TypeFor[*tree]())
	if diff := cmp.Diff([]string{"children", "name", "size"}, slices.Sorted(maps.Keys(s.Properties))); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
	if got := s.Properties["size"].Type; !reflect.DeepEqual([]string(got), []string{"string"}) {
		t.Errorf("a quantity is %v, want a string", got)
	}
	if child := s.Properties["children"].Items.Schema; len(child.Type) != 0 || len(child.Properties) != 0 {
		t.Errorf("the type inside itself is %+v, want no schema", child)
	}
	for _, tt := range []struct {
		t           reflect.Type
		typ, format string
	}{
		{reflect.TypeFor[metav1.Time](), "string", "date-time"},
		{reflect.TypeFor[intstr.IntOrString](), "string", "int-or-string"},
		{reflect.TypeFor[[]byte](), "string", "byte"},
		{reflect.TypeFor[int32](), "integer", "int32"},
	} {
		got := SchemaOf(tt.t)
		if len(got.Type) != 1 || got.Type[0] != tt.typ || got.Format != tt.format {
			t.Errorf("%s: type %v format %q, want %s %q", tt.t, got.Type, got.Format, tt.typ, tt.format)
		}
	}
}

// Conditions are checked in the environment of webhooks' match conditions, object typed.
func TestCondition(t *testing.T) {
	c := newChecker(t)
	pod := Kind{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Schema: SchemaOf(reflect.TypeFor[*corev1.Pod]())}
	tests := []struct {
		expression string
		want       []string
	}{
		{"object.spec.containerz.size() > 0", []string{"against Pod (v1): undefined field 'containerz' at line 1, column 12"}},
		{"object.spec.containers.size() > 0 && oldObject.spec.nodeNam == ''", []string{"against Pod (v1): undefined field 'nodeNam' at line 1, column 52"}},
		{"object.spec.containers.all(c, c.resources.limits.cpu > 1)", []string{"against Pod (v1): found no matching overload for '_>_' applied to '(string, int)' at line 1, column 54"}},
		{"object.kind == 'Deployment' && object.spec.replicas > 1", nil},
		{"(object.spec.containers + object.spec.initContainers).all(c, c.name != '')", nil},
		{"request.userInfo.username == 'x' && has(object.metadata.labels)", nil},
		{"authorizer.requestResource.check('get').allowed() && authorizer.group('').resource('pods').check('get').allowed()", nil},
		{"namespaceObject == null", nil},
		{"object.spec.strategy.rollingUpdate.maxSurge > 1", []string{"against Pod (v1): undefined field 'strategy' at line 1, column 12"}},
		{"object.metadata.managedFields.all(f, !has(f.fieldsV1.x))", nil},
	}
	for _, tt := range tests {
		errs, err := c.Condition(tt.expression, []Kind{pod})
		if err != nil {
			t.Fatalf("%s: %v", tt.expression, err)
		}
		var got []string
		for _, e := range errs {
			got = append(got, e.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.expression, diff)
		}
	}
	// A kind without a schema is not checked.
	if errs, err := c.Condition("object.spec.anything", []Kind{{GVK: pod.GVK}}); err != nil || len(errs) > 0 {
		t.Errorf("without a schema: %v, %v", errs, err)
	}
}

// Loosen makes dyn what holds fields its schema does not list, and copies what leads there.
func TestLoosen(t *testing.T) {
	object := func(props map[string]spec.Schema) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: props}}
	}
	preserved := object(map[string]spec.Schema{"known": *typed("string", "")})
	preserved.AddExtension("x-kubernetes-preserve-unknown-fields", true)
	s := object(map[string]spec.Schema{
		"preserved": preserved,
		"raw":       object(nil),
		"untyped":   {},
		"name":      *typed("string", ""),
		"port":      *SchemaOf(reflect.TypeFor[intstr.IntOrString]()),
		"labels":    {SchemaProps: spec.SchemaProps{Type: []string{"object"}, AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: typed("string", "")}}},
	})
	loose := Loosen(&s)
	for name, wantDyn := range map[string]bool{"preserved": true, "raw": true, "untyped": true, "name": false, "port": false, "labels": false} {
		p := loose.Properties[name]
		if dyn := extension(&p, "x-kubernetes-int-or-string"); dyn != wantDyn {
			t.Errorf("%s: loosened to dyn %v, want %v", name, dyn, wantDyn)
		}
	}
	if p := s.Properties["preserved"]; extension(&p, "x-kubernetes-int-or-string") || len(p.Properties) != 1 {
		t.Errorf("the schema given was changed: %+v", p)
	}
}
