package typedjson

import (
	"encoding"
	"encoding/json"
	"reflect"

	"github.com/admitkit/admit/internal/jsonfields"
)

type kind uint8

const (
	kindUnsupported kind = iota
	// kindUnmarshaler: a pointer to the type implements json.Unmarshaler; values are addressable
	// here, so its method is called, for null too, as encoding/json does.
	kindUnmarshaler
	kindPointer
	kindStruct
	kindMap
	kindSlice
	kindBytes
	kindString
	kindBool
	kindInt
	kindUint
	kindFloat
)

// plan is how values of one type decode.
type plan struct {
	kind kind
	typ  reflect.Type
	// unmarshaler (kindPointer): the pointer type implements json.Unmarshaler.
	unmarshaler bool
	// elem: the pointed-to, element or map value type.
	elem *plan
	// fields and byName (kindStruct): members and their index by name.
	fields []decodeField
	byName map[string]int
	// stringMap (kindMap): map[string]string, decoded without reflection per entry.
	stringMap bool
}

type decodeField struct {
	index []int
	plan  *plan
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
	stringMapType       = reflect.TypeFor[map[string]string]()
)

// fillPlan plans t in p; planOf gives the plans of the types t holds.
func fillPlan(planOf func(reflect.Type) *plan, t reflect.Type, p *plan) {
	p.typ = t
	if t.Kind() == reflect.Pointer {
		p.kind = kindPointer
		p.unmarshaler = t.Implements(unmarshalerType)
		switch {
		case p.unmarshaler:
		case t.Name() != "", t.Implements(textUnmarshalerType), t.Elem().Kind() == reflect.Pointer:
			// A named pointer type has no methods of its own; encoding/json then decodes what it
			// points to without looking for the pointee's, which is not reproduced here.
			p.kind = kindUnsupported
		default:
			p.elem = planOf(t.Elem())
		}
		return
	}
	ptr := reflect.PointerTo(t)
	switch {
	case t.Name() != "" && ptr.Implements(unmarshalerType):
		p.kind = kindUnmarshaler
		return
	case t.Name() != "" && ptr.Implements(textUnmarshalerType), t == numberType:
		return // unsupported
	}
	switch t.Kind() {
	case reflect.Struct:
		fields, ok := jsonfields.Of(t)
		if !ok || len(fields) > maxFields {
			return
		}
		p.kind = kindStruct
		p.byName = make(map[string]int, len(fields))
		for _, f := range fields {
			if f.ViaPointer || f.Quoted {
				// Not reproduced: allocating embedded pointers, quoted values. Plans of other
				// types may already point at p, so it is emptied rather than replaced.
				*p = plan{typ: t}
				return
			}
			p.byName[f.Name] = len(p.fields)
			p.fields = append(p.fields, decodeField{index: f.Index, plan: planOf(f.Type)})
		}
	case reflect.Map:
		key := t.Key()
		if key.Kind() != reflect.String || reflect.PointerTo(key).Implements(textUnmarshalerType) {
			return
		}
		p.kind = kindMap
		p.stringMap = t == stringMapType
		p.elem = planOf(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			p.kind = kindBytes
		} else {
			p.kind = kindSlice
		}
		p.elem = planOf(t.Elem())
	case reflect.String:
		p.kind = kindString
	case reflect.Bool:
		p.kind = kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = kindInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = kindUint
	case reflect.Float32, reflect.Float64:
		p.kind = kindFloat
	}
}

// maxFields bounds the members whose repetition a struct's decode tracks in a fixed bitmap.
const maxFields = 256
