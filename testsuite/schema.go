package testsuite

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// An expectation that a field is absent cannot fail when the path names no field of the
// object's kind (metadata.lables.tier): the object never has it. fieldSchemas tells such paths
// from real ones — by the kind's Go type for a built-in kind, by its CustomResourceDefinition's
// schema for a custom one — so that the case says its expectation is wrong instead of passing.

// fieldSchemas knows the schemas of the built-in kinds and of the CRDs given.
type fieldSchemas struct {
	crds map[schema.GroupVersionKind]*apiextensionsv1.JSONSchemaProps
}

func newFieldSchemas(crds []*apiextensionsv1.CustomResourceDefinition) fieldSchemas {
	s := fieldSchemas{crds: map[schema.GroupVersionKind]*apiextensionsv1.JSONSchemaProps{}}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				s.crds[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = v.Schema.OpenAPIV3Schema
			}
		}
	}
	return s
}

// check says, when the kind's schema is known and path names no field of it, which part of the
// path does not; nil otherwise.
func (s fieldSchemas) check(gvk schema.GroupVersionKind, path string) error {
	steps, err := parseFieldPath(path)
	if err != nil {
		return err
	}
	var failed int
	var known bool
	if props, ok := s.crds[gvk]; ok {
		failed, known = walkCRD(props, steps)
	} else if typed, err := resources.Types().New(gvk); err == nil {
		failed, known = walkType(reflect.TypeOf(typed), steps)
	}
	if !known || failed < 0 {
		return nil
	}
	return fmt.Errorf("%s: %s (%s) has no field %s", path, gvk.Kind, gvk.GroupVersion(), stepsPath(steps[:failed+1]))
}

// stepsPath writes steps back as a field path.
func stepsPath(steps []pathStep) string {
	var b strings.Builder
	for i, st := range steps {
		switch {
		case !st.isKey:
			fmt.Fprintf(&b, "[%d]", st.index)
		case i > 0:
			b.WriteString("." + st.key)
		default:
			b.WriteString(st.key)
		}
	}
	return b.String()
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// walkType follows steps through a Go type as encoding/json reads it: the index of the first
// step that names nothing, or -1; known is false when the type is not one to judge by.
func walkType(t reflect.Type, steps []pathStep) (failed int, known bool) {
	for i, st := range steps {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if reflect.PointerTo(t).Implements(unmarshalerType) {
			return -1, true // decoded its own way (a Quantity, a Time, a RawExtension): not judged
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := jsonField(t, st)
			if !ok {
				return i, true
			}
			t = f
		case reflect.Map:
			if !st.isKey {
				return i, true
			}
			t = t.Elem()
		case reflect.Slice, reflect.Array:
			if st.isKey {
				return i, true
			}
			t = t.Elem()
		case reflect.Interface:
			return -1, true
		default:
			return i, true
		}
	}
	return -1, true
}

// jsonField is the type of a struct's JSON member named by step, its embedded structs' included.
func jsonField(t reflect.Type, st pathStep) (reflect.Type, bool) {
	if !st.isKey {
		return nil, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			embedded := f.Type
			for embedded.Kind() == reflect.Pointer {
				embedded = embedded.Elem()
			}
			if embedded.Kind() == reflect.Struct {
				if ft, ok := jsonField(embedded, st); ok {
					return ft, true
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if name == st.key {
			return f.Type, true
		}
	}
	return nil, false
}

// walkCRD follows steps through a custom resource's schema: metadata by the Go type of object
// metadata, the rest by the schema's properties, additionalProperties and items.
func walkCRD(props *apiextensionsv1.JSONSchemaProps, steps []pathStep) (failed int, known bool) {
	if len(steps) > 0 && steps[0].isKey && steps[0].key == "metadata" {
		failed, known := walkType(reflect.TypeFor[metav1.ObjectMeta](), steps[1:])
		if failed >= 0 {
			failed++
		}
		return failed, known
	}
	for i, st := range steps {
		if props.XPreserveUnknownFields != nil && *props.XPreserveUnknownFields {
			return -1, true
		}
		switch {
		case i == 0 && st.isKey && (st.key == "apiVersion" || st.key == "kind"):
			return -1, true
		case st.isKey && props.Properties != nil:
			next, ok := props.Properties[st.key]
			if !ok {
				return i, true
			}
			props = &next
		case st.isKey && props.AdditionalProperties != nil && props.AdditionalProperties.Schema != nil:
			props = props.AdditionalProperties.Schema
		case !st.isKey && props.Items != nil && props.Items.Schema != nil:
			props = props.Items.Schema
		default:
			return i, true
		}
	}
	return -1, true
}

// absentPaths are the paths a case expects absent: its fields expected null, and the nulls of
// its partial object.
func absentPaths(e Expect) []string {
	var out []string
	for _, path := range sortedKeys(e.Fields) {
		if normalize(e.Fields[path]) == nil {
			out = append(out, path)
		}
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case nil:
			if path != "" {
				out = append(out, path)
			}
		case map[string]any:
			for _, k := range sortedKeys(v) {
				walk(joinPath(path, k), v[k])
			}
		}
	}
	if e.Object != nil {
		walk("", e.Object)
	}
	return out
}

// vacuous says which of a case's absent expectations name no field of the admitted object's
// kind, and so can never fail.
func (s fieldSchemas) vacuous(e Expect, object []byte) error {
	var head metav1.TypeMeta
	if json.Unmarshal(object, &head) != nil || head.Kind == "" {
		return nil
	}
	gvk := schema.FromAPIVersionAndKind(head.APIVersion, head.Kind)
	var problems []string
	for _, path := range absentPaths(e) {
		if err := s.check(gvk, path); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("expected absent, which it always is: %s", strings.Join(problems, "; "))
}
