package typedjson

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/admitkit/admit/internal/typeplan"
)

// maxDepth is encoding/json's nesting limit; deeper input is an error there.
const maxDepth = 10000

// Decoder decodes JSON into values of the types it has planned; it is safe for concurrent use.
type Decoder struct {
	plans typeplan.Cache[plan]
}

// Decode decodes data into v, a non-nil pointer, as sigs.k8s.io/json.UnmarshalStrict(data, v,
// DisallowDuplicateFields) would, and reports whether it did. When it reports false, v may hold
// part of the input: decode again into a fresh value.
func (d *Decoder) Decode(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	p := d.plan(rv.Type())
	if p.kind != kindPointer {
		return false
	}
	s := state{data: data}
	s.space()
	start := s.pos
	if s.pos == len(s.data) {
		return false
	}
	// The pointer itself is not settable: it is never set to nil, only decoded through, as
	// encoding/json does with the value it is given.
	if p.unmarshaler {
		if !s.skip(0) {
			return false
		}
		if rv.Interface().(json.Unmarshaler).UnmarshalJSON(data[start:s.pos]) != nil {
			return false
		}
	} else if !s.value(rv.Elem(), p.elem, 0) {
		return false
	}
	s.space()
	return s.pos == len(s.data)
}

func (d *Decoder) plan(t reflect.Type) *plan { return d.plans.Get(t, fillPlan) }

// value decodes the value at pos (after whitespace) into v, which is addressable.
func (s *state) value(v reflect.Value, p *plan, depth int) bool {
	s.space()
	if s.pos >= len(s.data) || depth > maxDepth {
		return false
	}
	c := s.data[s.pos]
	switch p.kind {
	case kindUnmarshaler:
		start := s.pos
		if !s.skip(depth) {
			return false
		}
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(s.data[start:s.pos]) == nil
	case kindPointer:
		if c == 'n' {
			return s.null(v, p.kind)
		}
		if v.IsNil() {
			v.Set(reflect.New(p.typ.Elem()))
		}
		if p.unmarshaler {
			start := s.pos
			if !s.skip(depth) {
				return false
			}
			return v.Interface().(json.Unmarshaler).UnmarshalJSON(s.data[start:s.pos]) == nil
		}
		return s.value(v.Elem(), p.elem, depth+1)
	case kindUnsupported:
		return false
	}
	if c == 'n' {
		return s.null(v, p.kind)
	}
	switch p.kind {
	case kindStruct:
		return c == '{' && s.object(v, p, depth)
	case kindMap:
		return c == '{' && s.mapObject(v, p, depth)
	case kindSlice:
		return c == '[' && s.array(v, p, depth)
	case kindBytes:
		switch c {
		case '[':
			return s.array(v, p, depth)
		case '"':
			return s.base64Bytes(v)
		}
		return false
	case kindString:
		if c != '"' {
			return false
		}
		str, ok := s.str()
		if !ok {
			return false
		}
		v.SetString(string(str))
		return true
	case kindBool:
		switch {
		case c == 't' && s.literal("true"):
			v.SetBool(true)
			return true
		case c == 'f' && s.literal("false"):
			v.SetBool(false)
			return true
		}
		return false
	case kindInt, kindUint, kindFloat:
		num, ok := s.number()
		if !ok {
			return false
		}
		return storeNumber(v, p.kind, num)
	}
	return false
}

// null and base64Bytes are value's rare cases, out of its body so that the common ones read
// together; the kinds that decode often (objects, strings, numbers, types with their own
// UnmarshalJSON) stay inline, without a call of their own.

// null decodes the literal null into v of kind k as encoding/json does: pointers, maps, slices
// and byte slices become nil; structs, strings, numbers and booleans are left as they are.
func (s *state) null(v reflect.Value, k kind) bool {
	if !s.literal("null") {
		return false
	}
	switch k {
	case kindPointer, kindMap, kindSlice, kindBytes:
		v.SetZero()
	}
	return true
}

// base64Bytes decodes a string into the byte slice v, which encoding/json writes as base64.
func (s *state) base64Bytes(v reflect.Value) bool {
	str, ok := s.str()
	if !ok {
		return false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(str)))
	n, err := base64.StdEncoding.Decode(b, str)
	if err != nil {
		return false
	}
	v.SetBytes(b[:n])
	return true
}

// storeNumber sets v to the number num as encoding/json does: integers only from integer
// literals that fit, floats from any literal that fits.
func storeNumber(v reflect.Value, k kind, num []byte) bool {
	switch k {
	case kindInt:
		n, ok := parseInt(num)
		if !ok || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
	case kindUint:
		n, ok := parseUint(num)
		if !ok || v.OverflowUint(n) {
			return false
		}
		v.SetUint(n)
	default:
		n, err := strconv.ParseFloat(string(num), v.Type().Bits())
		if err != nil || v.OverflowFloat(n) {
			return false
		}
		v.SetFloat(n)
	}
	return true
}

// object decodes an object into the struct v.
func (s *state) object(v reflect.Value, p *plan, depth int) bool {
	var seen [maxFields / 64]uint64
	s.pos++ // {
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return true
	}
	for {
		key, ok := s.key()
		if !ok {
			return false
		}
		i, known := p.byName[string(key)]
		if !known {
			// Unknown members are ignored, as the webhook decodes (no DisallowUnknownFields).
			if !s.skip(depth + 1) {
				return false
			}
		} else {
			if seen[i/64]&(1<<(i%64)) != 0 {
				return false // a duplicate member is a strict error
			}
			seen[i/64] |= 1 << (i % 64)
			f := &p.fields[i]
			fv := v
			for _, j := range f.index {
				fv = fv.Field(j)
			}
			if !s.value(fv, f.plan, depth+1) {
				return false
			}
		}
		if !s.next('}') {
			return s.pos <= len(s.data) && s.data[s.pos-1] == '}'
		}
	}
}

// mapObject decodes an object into the map v.
func (s *state) mapObject(v reflect.Value, p *plan, depth int) bool {
	s.pos++ // {
	if v.IsNil() {
		v.Set(reflect.MakeMap(p.typ))
	}
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return true
	}
	var labels map[string]string
	if p.stringMap {
		labels = v.Interface().(map[string]string)
	}
	keyType := p.typ.Key()
	for {
		key, ok := s.key()
		if !ok {
			return false
		}
		if labels != nil {
			s.space()
			if s.pos >= len(s.data) || s.data[s.pos] != '"' {
				// null leaves the zero value; other values do not decode into a string.
				if !s.literal("null") {
					return false
				}
				if _, dup := labels[string(key)]; dup {
					return false
				}
				labels[string(key)] = ""
			} else {
				str, ok := s.str()
				if !ok {
					return false
				}
				if _, dup := labels[string(key)]; dup {
					return false
				}
				labels[string(key)] = string(str)
			}
		} else {
			kv := reflect.New(keyType).Elem()
			kv.SetString(string(key))
			if v.MapIndex(kv).IsValid() {
				return false // a duplicate key is a strict error
			}
			elem := reflect.New(p.typ.Elem()).Elem()
			if !s.value(elem, p.elem, depth+1) {
				return false
			}
			v.SetMapIndex(kv, elem)
		}
		if !s.next('}') {
			return s.pos <= len(s.data) && s.data[s.pos-1] == '}'
		}
	}
}

// array decodes an array into the slice v: an empty array is an empty slice, not nil.
func (s *state) array(v reflect.Value, p *plan, depth int) bool {
	s.pos++ // [
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		v.Set(reflect.MakeSlice(p.typ, 0, 0))
		return true
	}
	for i := 0; ; i++ {
		if i >= v.Cap() {
			v.Grow(1)
		}
		v.SetLen(i + 1)
		if !s.value(v.Index(i), p.elem, depth+1) {
			return false
		}
		if !s.next(']') {
			return s.pos <= len(s.data) && s.data[s.pos-1] == ']'
		}
	}
}
