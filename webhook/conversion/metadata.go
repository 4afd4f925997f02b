package conversion

import (
	"encoding/json"
	"reflect"
	"strings"

	kjson "sigs.k8s.io/json"
)

// jsonFields maps the JSON names of struct type t's fields to their indexes, walking embedded
// structs as encoding/json does: a field of t shadows one of an embedded struct.
func jsonFields(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		var embedded []reflect.StructField
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			index := append(append([]int(nil), prefix...), i)
			switch {
			case f.Anonymous && f.Type.Kind() == reflect.Struct && (name == "" || strings.Contains(opts, "inline")):
				f.Index = index
				embedded = append(embedded, f)
			case name == "-" || !f.IsExported():
			case name != "":
				if _, shadowed := out[name]; !shadowed {
					out[name] = index
				}
			}
		}
		for _, f := range embedded {
			walk(f.Type, f.Index)
		}
	}
	walk(t, nil)
	return out
}

// metadataIndex is the index of the field of t holding the object's metadata, nil when t has
// none or is not a struct.
func metadataIndex(t reflect.Type) []int {
	if t.Kind() != reflect.Struct {
		return nil
	}
	return jsonFields(t)["metadata"]
}

// setMetadata decodes the JSON metadata into the field at index of the struct obj points to, so
// that conversion functions start from it; it does nothing when there is no such field or no
// metadata.
func setMetadata(obj any, index []int, metadata json.RawMessage) error {
	// JSON null decodes into nothing: no metadata, like an absent one, leaves the zero value.
	if index == nil || len(metadata) == 0 {
		return nil
	}
	dst := reflect.ValueOf(obj).Elem().FieldByIndex(index).Addr().Interface()
	return kjson.UnmarshalCaseSensitivePreserveInts(metadata, dst)
}

// getMetadata encodes the field at index of the struct obj points to.
func getMetadata(obj any, index []int) (json.RawMessage, error) {
	return json.Marshal(reflect.ValueOf(obj).Elem().FieldByIndex(index).Interface())
}
