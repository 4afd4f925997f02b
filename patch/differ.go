package patch

import (
	"bytes"
	"cmp"
	"slices"
)

// differ walks before and after together and writes the operations that
// turn raw into after at the places where before and after differ. For a
// plain Diff raw is before itself; for Lossless it is the received document,
// consulted only where a change must land.
//
// Each value is a token index. Subtrees whose bytes are equal are skipped
// without looking inside, which makes unchanged parts of a document cost one
// memory comparison.
type differ struct {
	before, after, raw *document

	ops    Patch
	spans  []span // where each operation's value lies in values (end 0: no value)
	values []byte // all operation values, one allocation shared by the patch
	path   []byte // JSON Pointer of the value being compared

	// Scratch stacks for object members and array elements: each level of
	// the walk appends its own and truncates back when done, so nested
	// containers reuse the same memory.
	members  []member
	elements []int32
}

type span struct{ start, end int }

// member is one object member, with its key decoded for comparison.
type member struct {
	key   []byte
	value int32 // token index of the value; the key token is value-1
}

// rawMember finds key among raw's members, sorted by key, from *k on, where the search for the
// previous (smaller) key left off: the value's token index, or -1 when raw has no such member.
func rawMember(rm []member, k *int, key []byte) int32 {
	for *k < len(rm) && bytes.Compare(rm[*k].key, key) < 0 {
		*k++
	}
	if *k < len(rm) && bytes.Equal(rm[*k].key, key) {
		return rm[*k].value
	}
	return -1
}

// finish resolves operation values into the shared buffer, now that it no longer grows.
func (d *differ) finish() Patch {
	if len(d.ops) == 0 {
		return Patch{}
	}
	for i, s := range d.spans {
		if s.end != 0 {
			d.ops[i].Value = d.values[s.start:s.end:s.end]
		}
	}
	return d.ops
}

// value writes the operations that turn before's token b into after's token a
// at d.path, where r is raw's token at the same place or -1 if raw has none.
func (d *differ) value(b, a, r int32) {
	if bytes.Equal(d.before.bytesOf(b), d.after.bytesOf(a)) {
		return
	}
	bk, ak := d.before.tokens[b].kind, d.after.tokens[a].kind
	switch {
	case bk == kindObject && ak == kindObject:
		if r >= 0 && d.raw.tokens[r].kind == kindObject {
			d.object(b, a, r)
		} else {
			d.emitDelta(writeOp(r), b, a)
		}
	case bk == kindArray && ak == kindArray:
		d.array(b, a, r)
	case !d.equal(d.before, b, d.after, a):
		d.emit(writeOp(r), a)
	}
}

// writeOp is the operation that puts a value where raw has token r: replace
// an existing value, add a missing one.
func writeOp(r int32) string {
	if r >= 0 {
		return OpReplace
	}
	return OpAdd
}

// object diffs two objects member by member in key order, so the output does
// not depend on how either document orders its members.
func (d *differ) object(b, a, r int32) {
	mark := len(d.members)
	bm := d.collectMembers(d.before, b)
	am := d.collectMembers(d.after, a)
	rm := bm
	if d.raw != d.before {
		rm = d.collectMembers(d.raw, r)
	}
	i, j, k := 0, 0, 0
	for i < len(bm) || j < len(am) {
		var order int
		switch {
		case i == len(bm):
			order = 1
		case j == len(am):
			order = -1
		default:
			order = bytes.Compare(bm[i].key, am[j].key)
		}
		var key []byte
		if order <= 0 {
			key = bm[i].key
		} else {
			key = am[j].key
		}
		rv := rawMember(rm, &k, key)
		parent := d.pushKey(key)
		switch {
		case order == 0:
			d.value(bm[i].value, am[j].value, rv)
			i++
			j++
		case order < 0: // removed by the user; nothing to do if raw never had it
			if rv >= 0 {
				d.emit(OpRemove, -1)
			}
			i++
		default:
			d.emit(writeOp(rv), am[j].value)
			j++
		}
		d.path = d.path[:parent]
	}
	d.members = d.members[:mark]
}

// array diffs two arrays in linear time: the common prefix and suffix are
// skipped, the elements left in the middle are paired by position and
// diffed recursively, surplus elements of before are removed from the
// highest index down (so earlier indices stay valid) and surplus elements
// of after are added at their final explicit indices in increasing order.
func (d *differ) array(b, a, r int32) {
	mark := len(d.elements)
	be := d.collectElements(d.before, b)
	ae := d.collectElements(d.after, a)
	re, positional := be, true
	if d.raw != d.before {
		positional = r >= 0 && d.raw.tokens[r].kind == kindArray
		if positional {
			re = d.collectElements(d.raw, r)
			positional = len(re) == len(be)
		}
	}
	defer func() { d.elements = d.elements[:mark] }()

	if !positional {
		// raw is not the array before was decoded from, so positions cannot
		// be mapped; write after's array whole.
		if !d.equal(d.before, b, d.after, a) {
			d.emit(writeOp(r), a)
		}
		return
	}

	prefix := 0
	for prefix < len(be) && prefix < len(ae) && d.sameElement(be[prefix], ae[prefix]) {
		prefix++
	}
	suffix := 0
	for suffix < len(be)-prefix && suffix < len(ae)-prefix &&
		d.sameElement(be[len(be)-1-suffix], ae[len(ae)-1-suffix]) {
		suffix++
	}
	removed, added := len(be)-prefix-suffix, len(ae)-prefix-suffix
	paired := min(removed, added)

	parent := len(d.path)
	for i := prefix; i < prefix+paired; i++ {
		d.pushIndex(i)
		d.value(be[i], ae[i], re[i])
		d.path = d.path[:parent]
	}
	for i := prefix + removed - 1; i >= prefix+paired; i-- {
		d.pushIndex(i)
		d.emit(OpRemove, -1)
		d.path = d.path[:parent]
	}
	for i := prefix + paired; i < prefix+added; i++ {
		d.pushIndex(i)
		d.emit(OpAdd, ae[i])
		d.path = d.path[:parent]
	}
}

// sameElement decides which elements the prefix and suffix may skip: equal
// text, or equal scalar values. Containers written differently are left to
// the pairing, whose recursion finds them unchanged; testing them here would
// walk every nested array once per level above it.
func (d *differ) sameElement(b, a int32) bool {
	if bytes.Equal(d.before.bytesOf(b), d.after.bytesOf(a)) {
		return true
	}
	switch d.before.tokens[b].kind {
	case kindObject, kindArray:
		return false
	}
	return d.equal(d.before, b, d.after, a)
}

// equal reports whether token x of dx and token y of dy are the same JSON
// value: numbers by decimal value, strings by decoded value, objects
// regardless of member order (the last of duplicate keys counts).
func (d *differ) equal(dx *document, x int32, dy *document, y int32) bool {
	xt, yt := &dx.tokens[x], &dy.tokens[y]
	if xt.kind != yt.kind {
		return false
	}
	xb, yb := dx.bytesOf(x), dy.bytesOf(y)
	if bytes.Equal(xb, yb) {
		return true
	}
	switch xt.kind {
	case kindNumber:
		return numbersEqual(xb, yb)
	case kindString:
		return stringsEqual(xb, xt.escaped, yb, yt.escaped)
	case kindArray:
		i, j := x+1, y+1
		for ; i < xt.next && j < yt.next; i, j = dx.tokens[i].next, dy.tokens[j].next {
			if !d.equal(dx, i, dy, j) {
				return false
			}
		}
		return i == xt.next && j == yt.next
	case kindObject:
		mark := len(d.members)
		defer func() { d.members = d.members[:mark] }()
		xm := d.collectMembers(dx, x)
		ym := d.collectMembers(dy, y)
		if len(xm) != len(ym) {
			return false
		}
		for i := range xm {
			if !bytes.Equal(xm[i].key, ym[i].key) || !d.equal(dx, xm[i].value, dy, ym[i].value) {
				return false
			}
		}
		return true
	default: // null, true, false: the kind is the value
		return true
	}
}

// emitDelta writes, as one operation, an object holding only the members
// of after that differ from before: where raw lacks the object, this adds
// what the user changed and none of the round-trip artefacts.
func (d *differ) emitDelta(op string, b, a int32) {
	start := len(d.values)
	if !d.appendDelta(b, a) {
		return
	}
	d.ops = append(d.ops, Operation{Op: op, Path: string(d.path)})
	d.spans = append(d.spans, span{start, len(d.values)})
}

// appendDelta appends the delta object of after's a against before's b to
// d.values and reports whether it has any member; if not, nothing is appended.
func (d *differ) appendDelta(b, a int32) bool {
	mark := len(d.members)
	defer func() { d.members = d.members[:mark] }()
	bm := d.collectMembers(d.before, b)
	am := d.collectMembers(d.after, a)
	start := len(d.values)
	d.values = append(d.values, '{')
	i, wrote := 0, false
	for _, m := range am {
		for i < len(bm) && bytes.Compare(bm[i].key, m.key) < 0 {
			i++
		}
		memberStart := len(d.values)
		if wrote {
			d.values = append(d.values, ',')
		}
		d.values = d.after.appendValue(d.values, m.value-1) // the key, as written
		d.values = append(d.values, ':')
		switch {
		case i == len(bm) || !bytes.Equal(bm[i].key, m.key): // new member
			d.values = d.after.appendValue(d.values, m.value)
		case d.before.tokens[bm[i].value].kind == kindObject && d.after.tokens[m.value].kind == kindObject:
			if !d.appendDelta(bm[i].value, m.value) {
				d.values = d.values[:memberStart]
				continue
			}
		case d.equal(d.before, bm[i].value, d.after, m.value):
			d.values = d.values[:memberStart]
			continue
		default:
			d.values = d.after.appendValue(d.values, m.value)
		}
		wrote = true
	}
	if !wrote {
		d.values = d.values[:start]
		return false
	}
	d.values = append(d.values, '}')
	return true
}

// emit appends an operation at d.path whose value is after's token a (none if a < 0).
func (d *differ) emit(op string, a int32) {
	s := span{}
	if a >= 0 {
		s.start = len(d.values)
		d.values = d.after.appendValue(d.values, a)
		s.end = len(d.values)
	}
	d.ops = append(d.ops, Operation{Op: op, Path: string(d.path)})
	d.spans = append(d.spans, s)
}

// appendValue appends token t's JSON text, compacted if the document has whitespace.
func (doc *document) appendValue(dst []byte, t int32) []byte {
	if doc.spaced {
		return appendCompact(dst, doc.bytesOf(t))
	}
	return append(dst, doc.bytesOf(t)...)
}

// pushKey appends a member name to the path and returns the previous length to truncate back to.
func (d *differ) pushKey(key []byte) int {
	n := len(d.path)
	d.path = append(d.path, '/')
	d.path = appendPointerToken(d.path, key)
	return n
}

func (d *differ) pushIndex(i int) {
	d.path = append(d.path, '/')
	d.path = appendInt(d.path, i)
}

func appendInt(dst []byte, i int) []byte {
	var digits [20]byte
	n := len(digits)
	for {
		n--
		digits[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			break
		}
	}
	return append(dst, digits[n:]...)
}

// collectMembers pushes the members of object obj onto the members stack,
// sorted by key with duplicate keys resolved to the last one, as JSON
// decoders do, and returns them. The caller truncates the stack afterwards.
func (d *differ) collectMembers(doc *document, obj int32) []member {
	start := len(d.members)
	end := doc.tokens[obj].next
	for t := obj + 1; t < end; t = doc.tokens[t+1].next {
		key := &doc.tokens[t]
		d.members = append(d.members, member{key: unquote(doc.data[key.start:key.end], key.escaped), value: t + 1})
	}
	ms := d.members[start:]
	// Typed serialisations emit map keys sorted, so checking first often
	// saves the sort. Ties keep document order through the value index.
	byKey := func(x, y member) int {
		if c := bytes.Compare(x.key, y.key); c != 0 {
			return c
		}
		return cmp.Compare(x.value, y.value)
	}
	if !slices.IsSortedFunc(ms, byKey) {
		slices.SortFunc(ms, byKey)
	}
	kept := 0
	for i := range ms {
		if i+1 < len(ms) && bytes.Equal(ms[i].key, ms[i+1].key) {
			continue // a later duplicate wins
		}
		ms[kept] = ms[i]
		kept++
	}
	d.members = d.members[:start+kept]
	return ms[:kept:kept]
}

// collectElements pushes the token indices of array arr's elements onto the
// elements stack and returns them.
func (d *differ) collectElements(doc *document, arr int32) []int32 {
	start := len(d.elements)
	end := doc.tokens[arr].next
	for t := arr + 1; t < end; t = doc.tokens[t].next {
		d.elements = append(d.elements, t)
	}
	return d.elements[start:len(d.elements):len(d.elements)]
}
