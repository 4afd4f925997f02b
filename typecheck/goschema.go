package typecheck

import (
	"reflect"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// openAPIType is how a Go type whose JSON form is not its structure says its schema's type:
// metav1.Time, resource.Quantity, intstr.IntOrString...
type openAPIType interface {
	OpenAPISchemaType() []string
	OpenAPISchemaFormat() string
}

// SchemaOf returns the OpenAPI schema of the JSON form of Go type t, as Kubernetes generates
// its published schemas from the Go types of its API (k8s.io/api): a struct's exported fields
// by their JSON names, embedded and inline structs' fields among them; maps as objects of
// their values; slices as arrays, []byte as a base64 string; the types with a JSON form of
// their own by the type and format their OpenAPISchemaType and OpenAPISchemaFormat methods
// give: a quantity is a string, as it is in JSON; an int or string either. A type that holds
// itself is cut at the second occurrence: no schema there.
func SchemaOf(t reflect.Type) *spec.Schema {
	return schemaOf(t, map[reflect.Type]bool{})
}

func schemaOf(t reflect.Type, building map[reflect.Type]bool) *spec.Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := declaredSchema(t); ok {
		return s
	}
	switch t.Kind() {
	case reflect.Struct:
		if building[t] {
			return &spec.Schema{}
		}
		building[t] = true
		defer delete(building, t)
		s := &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{}}}
		addFields(s, t, building)
		return s
	case reflect.Map:
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"},
			AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: schemaOf(t.Elem(), building)}}}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return typed("string", "byte")
		}
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"array"},
			Items: &spec.SchemaOrArray{Schema: schemaOf(t.Elem(), building)}}}
	case reflect.String:
		return typed("string", "")
	case reflect.Bool:
		return typed("boolean", "")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return typed("integer", "int32")
	case reflect.Int64, reflect.Uint64:
		return typed("integer", "int64")
	case reflect.Float32, reflect.Float64:
		return typed("number", "double")
	}
	return &spec.Schema{} // an interface: any JSON
}

// declaredSchema is the schema of a type that declares its own.
func declaredSchema(t reflect.Type) (*spec.Schema, bool) {
	v, ok := reflect.New(t).Interface().(openAPIType)
	if !ok {
		return nil, false
	}
	// IntOrString's format, int-or-string, makes it dyn for CEL, as its JSON is either.
	return &spec.Schema{SchemaProps: spec.SchemaProps{Type: v.OpenAPISchemaType(), Format: v.OpenAPISchemaFormat()}}, true
}

func typed(typ, format string) *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{typ}, Format: format}}
}

// addFields adds the JSON fields of struct t to s, those of inline structs included.
func addFields(s *spec.Schema, t reflect.Type, building map[reflect.Type]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, inline, ok := jsonName(f)
		if !ok {
			continue
		}
		if inline {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(s, ft, building)
			}
			continue
		}
		s.Properties[name] = *schemaOf(f.Type, building)
	}
}

// jsonName reads a field's JSON name as encoding/json does; inline is set for the fields whose
// own fields are the struct's (embedded without a name, or tagged ",inline").
func jsonName(f reflect.StructField) (name string, inline, ok bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, options, _ := strings.Cut(tag, ",")
	switch {
	case name == "" && (f.Anonymous || strings.Contains(","+options+",", ",inline,")):
		return "", true, true
	case !f.IsExported():
		return "", false, false
	case name == "":
		return f.Name, false, true
	}
	return name, false, true
}
