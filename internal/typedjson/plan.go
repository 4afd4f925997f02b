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

// build plans t and the types it holds; building holds the plans of this call, so that a
// recursive type refers to its own plan.
func (d *Decoder) build(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := d.plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{typ: t}
	building[t] = p
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
			p.elem = d.build(t.Elem(), building)
		}
		return p
	}
	ptr := reflect.PointerTo(t)
	switch {
	case t.Name() != "" && ptr.Implements(unmarshalerType):
		p.kind = kindUnmarshaler
		return p
	case t.Name() != "" && ptr.Implements(textUnmarshalerType), t == numberType:
		return p // unsupported
	}
	switch t.Kind() {
	case reflect.Struct:
		fields, ok := jsonfields.Of(t)
		if !ok || len(fields) > maxFields {
			return p
		}
		p.kind = kindStruct
		p.byName = make(map[string]int, len(fields))
		for _, f := range fields {
			if f.ViaPointer || f.Quoted {
				// Not reproduced: allocating embedded pointers, quoted values. Plans of other
				// types may already point at p, so it is emptied rather than replaced.
				*p = plan{typ: t}
				return p
			}
			p.byName[f.Name] = len(p.fields)
			p.fields = append(p.fields, decodeField{index: f.Index, plan: d.build(fieldType(t, f.Index), building)})
		}
	case reflect.Map:
		key := t.Key()
		if key.Kind() != reflect.String || reflect.PointerTo(key).Implements(textUnmarshalerType) {
			return p
		}
		p.kind = kindMap
		p.stringMap = t == stringMapType
		p.elem = d.build(t.Elem(), building)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			p.kind = kindBytes
		} else {
			p.kind = kindSlice
		}
		p.elem = d.build(t.Elem(), building)
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
	return p
}

// maxFields bounds the members whose repetition a struct's decode tracks in a fixed bitmap.
const maxFields = 256

func fieldType(t reflect.Type, index []int) reflect.Type {
	for _, i := range index {
		t = t.Field(i).Type
	}
	return t
}
