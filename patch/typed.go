package patch

import (
	"encoding"
	"encoding/json"
	"reflect"

	"github.com/admitkit/admit/internal/jsonfields"
	"github.com/admitkit/admit/internal/typeplan"
)

// Typed computes Lossless patches between two Go values without serialising them.
//
// A typed webhook decodes the object, keeps a copy, lets user code change the object, and needs
// the patch from the document it received. Lossless(raw, before, after) takes the two
// serialisations; producing them is two full encodings of the object, and Lossless then
// tokenises both, although user code changed a label and appended a container. Typed.Lossless
// walks the two values instead, with encoding/json's view of them (member names, omitempty and
// omitzero, nil as null), skips what is equal without encoding it, and encodes only the values
// its operations carry. Where a value has its own MarshalJSON or MarshalText, or a shape it does
// not follow (interfaces, ",string" options, non-string map keys), it encodes both sides of that
// value alone and diffs their text as Lossless does.
//
// The zero Typed is ready to use and safe for concurrent use; it keeps what it learns of each
// type, so keep one per type rather than one per call.
type Typed struct {
	plans typeplan.Cache[typedPlan]
}

// Lossless returns what Lossless(raw, json.Marshal(before), json.Marshal(after)) returns, the
// same operations in the same order, without the two encodings. before and after are values of
// one type, typically a pointer to an API object and a deep copy taken before user code changed
// it. An error from encoding a value is returned as json.Marshal returns it.
func (t *Typed) Lossless(raw []byte, before, after any) (Patch, error) {
	b, a := reflect.ValueOf(before), reflect.ValueOf(after)
	if !b.IsValid() || !a.IsValid() || b.Type() != a.Type() {
		return t.encoded(raw, before, after)
	}
	d := typedDiffer{}
	p := t.plan(b.Type())
	if d.same(b, a, p, false) {
		if d.err != nil {
			return nil, d.err
		}
		// Lossless validates its arguments even when before and after are equal.
		if _, err := validate("raw", raw); err != nil {
			return nil, err
		}
		return Patch{}, nil
	}
	if d.err != nil {
		return nil, d.err
	}
	rawDoc, err := parse("raw", raw)
	if err != nil {
		return nil, err
	}
	d.raw = rawDoc
	d.value(b, a, p, 0)
	if d.err != nil {
		return nil, d.err
	}
	return d.finish(), nil
}

// encoded is Lossless on the two values' encodings.
func (t *Typed) encoded(raw []byte, before, after any) (Patch, error) {
	b, err := json.Marshal(before)
	if err != nil {
		return nil, err
	}
	a, err := json.Marshal(after)
	if err != nil {
		return nil, err
	}
	return Lossless(raw, b, a)
}

type typedKind uint8

const (
	// typedOpaque values are encoded to be compared and diffed: types with their own
	// MarshalJSON or MarshalText, interfaces, and shapes not followed here.
	typedOpaque typedKind = iota
	typedPointer
	typedStruct
	typedMap
	typedSlice
	typedBytes
	typedString
	typedBool
	typedInt
	typedUint
	typedFloat
)

// typedPlan is encoding/json's view of one type.
type typedPlan struct {
	kind typedKind
	typ  reflect.Type
	elem *typedPlan
	// fields (typedStruct) are the members in key order, the order Lossless writes operations in.
	fields []typedField
}

type typedField struct {
	name      string
	key       []byte
	index     []int
	plan      *typedPlan
	omitEmpty bool
	omitZero  bool
	// isZero is the type's own IsZero method, for omitzero, when it has one.
	isZero func(reflect.Value) bool
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

func (t *Typed) plan(typ reflect.Type) *typedPlan { return t.plans.Get(typ, fillTypedPlan) }

// fillTypedPlan plans typ in p; planOf gives the plans of the types typ holds.
func fillTypedPlan(planOf func(reflect.Type) *typedPlan, typ reflect.Type, p *typedPlan) {
	p.typ = typ
	if typ.Kind() == reflect.Pointer {
		// A pointer is null or what it points to, encoded as addressable: that covers a pointer
		// type's MarshalJSON, which is the pointee's (a named pointer type has no methods).
		if typ.Name() == "" {
			p.kind = typedPointer
			p.elem = planOf(typ.Elem())
		}
		return
	}
	ptr := reflect.PointerTo(typ)
	if typ.Implements(marshalerType) || ptr.Implements(marshalerType) ||
		typ.Implements(textMarshalerType) || ptr.Implements(textMarshalerType) {
		return
	}
	switch typ.Kind() {
	case reflect.Struct:
		fields, ok := jsonfields.Of(typ)
		if !ok {
			return
		}
		p.kind = typedStruct
		for _, f := range fields {
			if f.ViaPointer || f.Quoted {
				*p = typedPlan{typ: typ} // opaque; other plans may already point at p
				return
			}
			ft := f.Type
			p.fields = append(p.fields, typedField{
				name: f.Name, key: []byte(f.Name), index: f.Index, plan: planOf(ft),
				omitEmpty: f.OmitEmpty, omitZero: f.OmitZero, isZero: isZeroFunc(ft),
			})
		}
	case reflect.Map:
		if typ.Key().Kind() == reflect.String && !typ.Key().Implements(textMarshalerType) && !reflect.PointerTo(typ.Key()).Implements(textMarshalerType) {
			p.kind = typedMap
			p.elem = planOf(typ.Elem())
		}
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 {
			// encoding/json writes byte slices as base64 unless their elements marshal themselves.
			elemPtr := reflect.PointerTo(typ.Elem())
			if !elemPtr.Implements(marshalerType) && !elemPtr.Implements(textMarshalerType) {
				p.kind = typedBytes
			}
			return
		}
		p.kind = typedSlice
		p.elem = planOf(typ.Elem())
	case reflect.String:
		p.kind = typedString
	case reflect.Bool:
		p.kind = typedBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = typedInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = typedUint
	case reflect.Float32, reflect.Float64:
		p.kind = typedFloat
	}
}

// isZeroFunc is encoding/json's test for omitzero when the field's type has an IsZero method.
func isZeroFunc(t reflect.Type) func(reflect.Value) bool {
	switch {
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || (v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) ||
				v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool { return v.Interface().(interface{ IsZero() bool }).IsZero() }
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				boxed := reflect.New(v.Type()).Elem()
				boxed.Set(v)
				v = boxed
			}
			return v.Addr().Interface().(interface{ IsZero() bool }).IsZero()
		}
	}
	return nil
}

// present reports whether encoding/json writes the field with value v.
func (f *typedField) present(v reflect.Value) bool {
	if f.omitEmpty && isEmptyValue(v) {
		return false
	}
	if f.omitZero {
		if f.isZero != nil {
			return !f.isZero(v)
		}
		return !v.IsZero()
	}
	return true
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
