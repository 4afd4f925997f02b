package dispatch

import (
	"encoding"
	"encoding/json"
	"reflect"

	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/internal/jsonfields"
	"github.com/admitkit/admit/internal/typedjson"
	"github.com/admitkit/admit/internal/typeplan"
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
	shapes typeplan.Cache[typeShape]
	// values decodes each written value in one pass when it can (see internal/typedjson), the
	// reference decoder deciding whenever it cannot.
	values typedjson.Decoder
}

// typeShape is what resolve needs of a Go type, found once per type by reflection.
type typeShape struct {
	// decodesItself says the type has its own UnmarshalJSON or UnmarshalText: what a path inside
	// its values means is its own affair.
	decodesItself bool
	// members are a struct's JSON members by name, with each one's Go type, as
	// internal/jsonfields reads encoding/json's rules. A member that decodes with the ",string"
	// option has no type: its value is not the Go type's own encoding.
	members map[string]reflect.Type
	// opaque says a struct's members could not be read as encoding/json reads them.
	opaque bool
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
		if !c.values.Decode(value, reflect.New(t).Interface()) &&
			kjson.UnmarshalCaseSensitivePreserveInts(value, reflect.New(t).Interface()) != nil {
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
		shape := c.shapes.Get(t, fillTypeShape)
		if shape.decodesItself {
			return nil, false, false
		}
		switch t.Kind() {
		case reflect.Struct:
			if shape.opaque {
				return nil, false, false
			}
			ft, found := shape.members[token]
			if !found {
				return nil, false, true
			}
			if ft == nil {
				return nil, false, false
			}
			t = ft
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

// fillTypeShape finds t's shape.
func fillTypeShape(_ func(reflect.Type) *typeShape, t reflect.Type, s *typeShape) {
	s.decodesItself = decodesItself(t)
	if t.Kind() != reflect.Struct {
		return
	}
	fields, ok := jsonfields.Of(t)
	if !ok {
		s.opaque = true
		return
	}
	s.members = make(map[string]reflect.Type, len(fields))
	for _, f := range fields {
		if f.Quoted {
			s.members[f.Name] = nil
		} else {
			s.members[f.Name] = f.Type
		}
	}
}
