package patch

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// typedDiffer walks two values the way differ walks two documents, writing the same operations.
// Where it meets an opaque value that changed, it encodes both sides, points the differ's before
// and after at them and lets the differ continue there.
type typedDiffer struct {
	differ
	err error
}

// marshal encodes v as encoding/json does where v sits: an addressable value through its address,
// so that MarshalJSON methods with pointer receivers are called as they would be.
func (d *typedDiffer) marshal(v reflect.Value) []byte {
	var (
		data []byte
		err  error
	)
	if v.CanAddr() {
		data, err = json.Marshal(v.Addr().Interface())
	} else {
		data, err = json.Marshal(v.Interface())
	}
	if err != nil && d.err == nil {
		d.err = err
	}
	return data
}

// same reports whether b and a encode to the same text or, when semantic, to equal values as
// differ.equal sees them (which differs only for -0 and 0).
func (d *typedDiffer) same(b, a reflect.Value, p *typedPlan, semantic bool) bool {
	if d.err != nil {
		return true // stop walking; the error is returned
	}
	switch p.kind {
	case typedPointer:
		if b.IsNil() || a.IsNil() {
			return b.IsNil() && a.IsNil()
		}
		return d.same(b.Elem(), a.Elem(), p.elem, semantic)
	case typedStruct:
		for i := range p.fields {
			f := &p.fields[i]
			fb, fa := fieldOf(b, f.index), fieldOf(a, f.index)
			pb, pa := f.present(fb), f.present(fa)
			if pb != pa || pb && !d.same(fb, fa, f.plan, semantic) {
				return false
			}
		}
		return true
	case typedMap:
		if b.IsNil() || a.IsNil() {
			return b.IsNil() && a.IsNil()
		}
		if b.Len() != a.Len() {
			return false
		}
		iter := b.MapRange()
		for iter.Next() {
			av := a.MapIndex(iter.Key())
			if !av.IsValid() || !d.same(iter.Value(), av, p.elem, semantic) {
				return false
			}
		}
		return true
	case typedSlice:
		if b.IsNil() || a.IsNil() {
			return b.IsNil() && a.IsNil()
		}
		if b.Len() != a.Len() {
			return false
		}
		for i := range b.Len() {
			if !d.same(b.Index(i), a.Index(i), p.elem, semantic) {
				return false
			}
		}
		return true
	case typedBytes:
		if b.IsNil() || a.IsNil() {
			return b.IsNil() && a.IsNil()
		}
		return bytes.Equal(b.Bytes(), a.Bytes())
	case typedString:
		bs, as := b.String(), a.String()
		if bs == as {
			return true
		}
		// Invalid UTF-8 is written as U+FFFD, so distinct strings can encode alike.
		return (!utf8.ValidString(bs) || !utf8.ValidString(as)) && bytes.Equal(appendQuoted(nil, bs), appendQuoted(nil, as))
	case typedBool:
		return b.Bool() == a.Bool()
	case typedInt:
		return b.Int() == a.Int()
	case typedUint:
		return b.Uint() == a.Uint()
	case typedFloat:
		x, y := b.Float(), a.Float()
		return x == y && (semantic || math.Signbit(x) == math.Signbit(y))
	}
	return d.sameOpaque(b, a, semantic)
}

// sameOpaque compares opaque values: equal Go values encode alike; others are encoded.
func (d *typedDiffer) sameOpaque(b, a reflect.Value, semantic bool) bool {
	if reflect.DeepEqual(addressOf(b), addressOf(a)) {
		return true
	}
	bj, aj := d.marshal(b), d.marshal(a)
	if d.err != nil || bytes.Equal(bj, aj) {
		return true
	}
	if !semantic {
		return false
	}
	bdoc, err1 := parse("before", bj)
	adoc, err2 := parse("after", aj)
	return err1 == nil && err2 == nil && d.equal(bdoc, 0, adoc, 0)
}

// addressOf returns what reflect.DeepEqual compares v by: its address when it has one, so that
// large structs are not copied into an interface.
func addressOf(v reflect.Value) any {
	if v.CanAddr() {
		return v.Addr().Interface()
	}
	return v.Interface()
}

func fieldOf(v reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		v = v.Field(i)
	}
	return v
}

// value writes the operations that turn raw's token r (-1: none) into a at d.path, where b and
// a differ (same is false): differ.value for values.
func (d *typedDiffer) value(b, a reflect.Value, p *typedPlan, r int32) {
	if d.err != nil {
		return
	}
	switch p.kind {
	case typedPointer:
		if b.IsNil() || a.IsNil() { // null and a value
			d.emitEncoded(writeOp(r), a)
			return
		}
		d.value(b.Elem(), a.Elem(), p.elem, r)
	case typedStruct:
		if r < 0 || d.raw.tokens[r].kind != kindObject {
			d.delegate(b, a, r) // an object raw lacks: the differ writes the changed members
			return
		}
		d.object(b, a, p, r)
	case typedMap:
		if b.IsNil() || a.IsNil() {
			d.emitEncoded(writeOp(r), a)
			return
		}
		if r < 0 || d.raw.tokens[r].kind != kindObject {
			d.delegate(b, a, r)
			return
		}
		d.mapObject(b, a, p, r)
	case typedSlice:
		if b.IsNil() || a.IsNil() {
			d.emitEncoded(writeOp(r), a)
			return
		}
		d.array(b, a, p, r)
	case typedBytes, typedString, typedBool, typedInt, typedUint:
		d.emitEncoded(writeOp(r), a)
	case typedFloat:
		if b.Float() != a.Float() { // -0 and 0 are the same number
			d.emitEncoded(writeOp(r), a)
		}
	default:
		d.delegate(b, a, r)
	}
}

// delegate encodes b and a and lets the differ diff their text at d.path.
func (d *typedDiffer) delegate(b, a reflect.Value, r int32) {
	bj, aj := d.marshal(b), d.marshal(a)
	if d.err != nil || bytes.Equal(bj, aj) {
		return
	}
	bdoc, err := parse("before", bj)
	if err != nil {
		d.err = err
		return
	}
	adoc, err := parse("after", aj)
	if err != nil {
		d.err = err
		return
	}
	d.before, d.after = bdoc, adoc
	d.differ.value(0, 0, r)
	d.before, d.after = nil, nil
}

// emitEncoded appends an operation at d.path whose value is v encoded.
func (d *typedDiffer) emitEncoded(op string, v reflect.Value) {
	start := len(d.values)
	d.values = append(d.values, d.marshal(v)...)
	d.ops = append(d.ops, Operation{Op: op, Path: string(d.path)})
	d.spans = append(d.spans, span{start, len(d.values)})
}

// object is differ.object for structs: members in key order, raw's members looked up where a
// member changed.
func (d *typedDiffer) object(b, a reflect.Value, p *typedPlan, r int32) {
	mark := len(d.members)
	defer func() { d.members = d.members[:mark] }()
	var rm []member
	collected := false
	k := 0
	for i := range p.fields {
		f := &p.fields[i]
		fb, fa := fieldOf(b, f.index), fieldOf(a, f.index)
		pb, pa := f.present(fb), f.present(fa)
		if !pb && !pa || pb && pa && d.same(fb, fa, f.plan, false) {
			continue
		}
		if !collected {
			rm, collected = d.collectMembers(d.raw, r), true
		}
		rv := rawMember(rm, &k, f.key)
		parent := d.pushKey(f.key)
		switch {
		case pb && pa:
			d.value(fb, fa, f.plan, rv)
		case pb: // removed by the user; nothing to do if raw never had it
			if rv >= 0 {
				d.emit(OpRemove, -1)
			}
		default:
			d.emitEncoded(writeOp(rv), fa)
		}
		d.path = d.path[:parent]
	}
}

// mapObject is differ.object for maps with string keys, which encoding/json writes sorted.
func (d *typedDiffer) mapObject(b, a reflect.Value, p *typedPlan, r int32) {
	bk, ak := sortedMapKeys(b), sortedMapKeys(a)
	for _, keys := range [][]reflect.Value{bk, ak} {
		for _, k := range keys {
			if !utf8.ValidString(k.String()) {
				// encoding/json writes such keys with U+FFFD: leave them to the differ.
				d.delegate(b, a, r)
				return
			}
		}
	}
	mark := len(d.members)
	defer func() { d.members = d.members[:mark] }()
	rm := d.collectMembers(d.raw, r)
	i, j, k := 0, 0, 0
	for i < len(bk) || j < len(ak) {
		var order int
		switch {
		case i == len(bk):
			order = 1
		case j == len(ak):
			order = -1
		default:
			order = strings.Compare(bk[i].String(), ak[j].String())
		}
		var key reflect.Value
		if order <= 0 {
			key = bk[i]
		} else {
			key = ak[j]
		}
		var bv, av reflect.Value
		if order <= 0 {
			bv = b.MapIndex(key)
			i++
		}
		if order >= 0 {
			av = a.MapIndex(key)
			j++
		}
		if order == 0 && d.same(bv, av, p.elem, false) {
			continue
		}
		name := []byte(key.String())
		rv := rawMember(rm, &k, name)
		parent := d.pushKey(name)
		switch {
		case order == 0:
			d.value(bv, av, p.elem, rv)
		case order < 0:
			if rv >= 0 {
				d.emit(OpRemove, -1)
			}
		default:
			d.emitEncoded(writeOp(rv), av)
		}
		d.path = d.path[:parent]
	}
}

func sortedMapKeys(m reflect.Value) []reflect.Value {
	keys := m.MapKeys()
	slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
	return keys
}

// array is differ.array for slices.
func (d *typedDiffer) array(b, a reflect.Value, p *typedPlan, r int32) {
	mark := len(d.elements)
	defer func() { d.elements = d.elements[:mark] }()
	n, m := b.Len(), a.Len()
	positional := r >= 0 && d.raw.tokens[r].kind == kindArray
	var re []int32
	if positional {
		re = d.collectElements(d.raw, r)
		positional = len(re) == n
	}
	if !positional {
		// raw's array is not the one before was decoded from: write after's whole.
		if !d.same(b, a, p, true) {
			d.emitEncoded(writeOp(r), a)
		}
		return
	}
	prefix := 0
	for prefix < n && prefix < m && d.sameElement(b.Index(prefix), a.Index(prefix), p.elem) {
		prefix++
	}
	suffix := 0
	for suffix < n-prefix && suffix < m-prefix && d.sameElement(b.Index(n-1-suffix), a.Index(m-1-suffix), p.elem) {
		suffix++
	}
	removed, added := n-prefix-suffix, m-prefix-suffix
	paired := min(removed, added)
	parent := len(d.path)
	for i := prefix; i < prefix+paired; i++ {
		bi, ai := b.Index(i), a.Index(i)
		if d.same(bi, ai, p.elem, false) {
			continue
		}
		d.pushIndex(i)
		d.value(bi, ai, p.elem, re[i])
		d.path = d.path[:parent]
	}
	for i := prefix + removed - 1; i >= prefix+paired; i-- {
		d.pushIndex(i)
		d.emit(OpRemove, -1)
		d.path = d.path[:parent]
	}
	for i := prefix + paired; i < prefix+added; i++ {
		d.pushIndex(i)
		d.emitEncoded(OpAdd, a.Index(i))
		d.path = d.path[:parent]
	}
}

// sameElement is differ.sameElement: equal text, or equal scalar values.
func (d *typedDiffer) sameElement(b, a reflect.Value, p *typedPlan) bool {
	for p.kind == typedPointer {
		if b.IsNil() || a.IsNil() {
			return b.IsNil() && a.IsNil()
		}
		b, a, p = b.Elem(), a.Elem(), p.elem
	}
	switch p.kind {
	case typedStruct, typedMap, typedSlice:
		return d.same(b, a, p, false)
	case typedOpaque:
		bj, aj := d.marshal(b), d.marshal(a)
		if d.err != nil || bytes.Equal(bj, aj) {
			return true
		}
		if len(bj) > 0 && (bj[0] == '{' || bj[0] == '[') {
			return false
		}
		bdoc, err1 := parse("before", bj)
		adoc, err2 := parse("after", aj)
		return err1 == nil && err2 == nil && d.equal(bdoc, 0, adoc, 0)
	}
	return d.same(b, a, p, true)
}
