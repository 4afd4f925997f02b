package typedjson

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/admitkit/admit/internal/jsonfields"
)

// maxDepth is encoding/json's nesting limit; deeper input is an error there.
const maxDepth = 10000

// Decoder decodes JSON into values of the types it has planned; it is safe for concurrent use.
type Decoder struct {
	plans sync.Map // reflect.Type → *plan
	// building serializes planning, so that recursive types are planned once.
	building sync.Mutex
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

func (d *Decoder) plan(t reflect.Type) *plan {
	if p, ok := d.plans.Load(t); ok {
		return p.(*plan)
	}
	d.building.Lock()
	defer d.building.Unlock()
	building := map[reflect.Type]*plan{}
	p := d.build(t, building)
	for typ, bp := range building {
		d.plans.Store(typ, bp)
	}
	return p
}

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

// state is one decode: the input and the position in it.
type state struct {
	data []byte
	pos  int
}

func (s *state) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

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
			if !s.literal("null") {
				return false
			}
			v.SetZero()
			return true
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
		if !s.literal("null") {
			return false
		}
		switch p.kind {
		case kindMap, kindSlice, kindBytes:
			v.SetZero()
		}
		return true // null leaves structs, strings, numbers and booleans as they are
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

// parseInt is strconv.ParseInt(num, 10, 64) for a valid JSON number, without a string.
func parseInt(num []byte) (int64, bool) {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	u, ok := parseUint(num)
	switch {
	case !ok:
		return 0, false
	case neg && u <= 1<<63:
		return -int64(u-1) - 1, true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

// parseUint is strconv.ParseUint(num, 10, 64) for a valid JSON number: digits only.
func parseUint(num []byte) (uint64, bool) {
	if len(num) == 0 || len(num) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
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

// next consumes the comma before another member or element and reports true, or the closing
// byte and reports false; anything else leaves pos after len(data) or on the offending byte so
// that the caller's check fails.
func (s *state) next(closing byte) bool {
	s.space()
	if s.pos >= len(s.data) {
		s.pos = len(s.data) + 1
		return false
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		return true
	case closing:
		s.pos++
		return false
	}
	s.pos = len(s.data) + 1
	return false
}

// key reads a member name and its colon. Names with escapes are left to the reference decoder.
func (s *state) key() ([]byte, bool) {
	s.space()
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, false
	}
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			s.space()
			if s.pos >= len(s.data) || s.data[s.pos] != ':' {
				return nil, false
			}
			s.pos++
			return s.data[start:i], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string and returns its value: the input's bytes when it has no escapes, a decoded
// copy otherwise. Invalid UTF-8, which encoding/json replaces, is left to it.
func (s *state) str() ([]byte, bool) {
	start := s.pos + 1
	i := start
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return s.data[start:i], true
		case c == '\\':
			return s.escapedStr(start, i)
		case c < 0x20:
			return nil, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			i += size
		}
	}
	return nil, false
}

// escapedStr decodes a string with escapes whose first escape is at i, as encoding/json does:
// a lone surrogate becomes U+FFFD.
func (s *state) escapedStr(start, i int) ([]byte, bool) {
	out := make([]byte, i-start, i-start+16)
	copy(out, s.data[start:i])
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return out, true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if i+1 >= len(s.data) {
				return nil, false
			}
			switch s.data[i+1] {
			case '"', '\\', '/':
				out = append(out, s.data[i+1])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(s.data[i+2:])
				if !ok {
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if low, ok := hex4u(s.data[i:]); ok {
						if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
							out = utf8.AppendRune(out, pair)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return nil, false
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			out = append(out, s.data[i:i+size]...)
			i += size
		}
	}
	return nil, false
}

// hex4u reads `\uXXXX`.
func hex4u(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	return hex4(b[2:])
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number with JSON's grammar and returns its text.
func (s *state) number() ([]byte, bool) {
	start, i := s.pos, s.pos
	digits := func() bool {
		first := i
		for i < len(s.data) && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
		return i > first
	}
	if i < len(s.data) && s.data[i] == '-' {
		i++
	}
	switch {
	case i < len(s.data) && s.data[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(s.data) && s.data[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(s.data) && (s.data[i] == 'e' || s.data[i] == 'E') {
		i++
		if i < len(s.data) && (s.data[i] == '+' || s.data[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	s.pos = i
	return s.data[start:i], true
}

func (s *state) literal(lit string) bool {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	s.pos += len(lit)
	return true
}

// skip validates and passes the value at pos: unknown members, and the values given whole to
// UnmarshalJSON methods (which encoding/json validated before calling them).
func (s *state) skip(depth int) bool {
	s.space()
	if s.pos >= len(s.data) || depth > maxDepth {
		return false
	}
	switch c := s.data[s.pos]; c {
	case '{', '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		s.pos++
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == closing {
			s.pos++
			return true
		}
		for {
			if c == '{' {
				s.space()
				if s.pos >= len(s.data) || s.data[s.pos] != '"' {
					return false
				}
				if _, ok := s.str(); !ok {
					return false
				}
				s.space()
				if s.pos >= len(s.data) || s.data[s.pos] != ':' {
					return false
				}
				s.pos++
			}
			if !s.skip(depth + 1) {
				return false
			}
			if !s.next(closing) {
				return s.pos <= len(s.data) && s.data[s.pos-1] == closing
			}
		}
	case '"':
		_, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}
