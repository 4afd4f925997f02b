package dispatch

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/patch"
)

// typeChecker answers whether a patched object still decodes into its kind's Go type, which
// kube-apiserver requires: it decodes every patched object into that type, so a patch that
// breaks the type (metadata turned into a string) fails the request whatever the policy.
//
// Decoding the whole object was a quarter of the dispatcher's CPU. The object before the patch
// decodes (the apiserver decoded it before admission; engine.Request.Object says so), and a value can
// only break the type where it lands, so it is enough to decode each value the patch writes
// into the Go type at its path. Where that type cannot be told from the path (inside a type
// that decodes itself, an interface, a map with non-string keys) and whenever a value does not
// fit, the whole object is decoded, which also gives the error its exact text.
type typeChecker struct {
	fields sync.Map // reflect.Type of a struct → map[string]fieldType, its JSON member names
}

// fieldType is the Go type of a struct's JSON member; ambiguous names (two embedded structs
// promoting the same name at the same depth) have no type and are never looked inside.
type fieldType struct {
	t         reflect.Type
	ambiguous bool
}

// check returns nil if patched decodes into typed's type. ops, when not nil, is the patch that
// made patched from an object that decodes; it lets check look only where the patch wrote.
func (c *typeChecker) check(typed any, patched []byte, ops patch.Patch) error {
	if ops != nil && c.valuesFit(reflect.TypeOf(typed), ops) {
		return nil
	}
	return kjson.UnmarshalCaseSensitivePreserveInts(patched, typed)
}

// valuesFit reports whether every value ops writes decodes into the Go type at its path, with
// root as the object's type. False means "decode the whole object to know".
func (c *typeChecker) valuesFit(root reflect.Type, ops patch.Patch) bool {
	for _, op := range ops {
		switch op.Op {
		case patch.OpRemove:
			continue // leaving out a member or element never breaks a type
		case patch.OpAdd, patch.OpReplace:
		default:
			return false
		}
		tokens, err := patch.PointerTokens(op.Path)
		if err != nil || len(tokens) == 0 {
			return false
		}
		t, known, ok := c.resolve(root, tokens)
		if !ok {
			return false
		}
		if !known {
			continue // a member the type does not have: the decoder skips it
		}
		value := op.Value
		if len(value) == 0 {
			value = json.RawMessage("null")
		}
		if kjson.UnmarshalCaseSensitivePreserveInts(value, reflect.New(t).Interface()) != nil {
			return false
		}
	}
	return true
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// resolve follows a path's tokens through Go types as sigs.k8s.io/json's case-sensitive decoder
// does. known is false when the path leads into a member the type does not have; ok is false
// when the type at some step cannot be looked inside.
func (c *typeChecker) resolve(t reflect.Type, tokens []string) (_ reflect.Type, known, ok bool) {
	for _, token := range tokens {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if decodesItself(t) {
			return nil, false, false
		}
		switch t.Kind() {
		case reflect.Struct:
			f, found := c.fieldsOf(t)[token]
			if !found {
				return nil, false, true
			}
			if f.ambiguous {
				return nil, false, false
			}
			t = f.t
		case reflect.Map:
			if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshaler) {
				return nil, false, false
			}
			t = t.Elem()
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 {
				return nil, false, false // []byte is a base64 string
			}
			t = t.Elem() // patch.Apply has checked the index
		default:
			return nil, false, false
		}
	}
	return t, true, true
}

func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || p.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) || p.Implements(textUnmarshaler)
}

// fieldsOf returns the JSON member names of struct type t, computed once per type.
func (c *typeChecker) fieldsOf(t reflect.Type) map[string]fieldType {
	if cached, ok := c.fields.Load(t); ok {
		return cached.(map[string]fieldType)
	}
	fields := map[string]fieldType{}
	depths := map[string]int{}
	collectFields(t, 0, fields, depths, map[reflect.Type]bool{})
	c.fields.Store(t, fields)
	return fields
}

// collectFields gathers the JSON names of t's fields the way encoding/json does: a tag's name
// or the field's, "-" skipped, unexported fields skipped, fields of embedded structs without a
// name promoted, a shallower field hiding deeper ones of the same name.
func collectFields(t reflect.Type, depth int, fields map[string]fieldType, depths map[string]int, visiting map[reflect.Type]bool) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			embedded := ft
			if embedded.Kind() == reflect.Pointer {
				embedded = embedded.Elem()
			}
			if embedded.Kind() == reflect.Struct {
				collectFields(embedded, depth+1, fields, depths, visiting)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		switch d, seen := depths[name]; {
		case !seen || depth < d:
			fields[name], depths[name] = fieldType{t: ft}, depth
		case depth == d:
			fields[name] = fieldType{ambiguous: true}
		}
	}
}
