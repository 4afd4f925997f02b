package patch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MaxCopyGrowth bounds how many bytes the copy operations of one patch may
// add to a document, as kube-apiserver's --json-patch-max-copy-bytes does by
// default: without it, a patch of a few hundred bytes that copies a member
// into itself repeatedly grows a document exponentially.
const MaxCopyGrowth = 3 << 20

// ErrTestFailed is wrapped by the error of a test operation whose value differs.
var ErrTestFailed = errors.New("test failed")

// ApplyError reports the operation of a patch that could not be applied.
type ApplyError struct {
	Index  int    // position of the operation in the patch
	Op     string // its op member
	Path   string // its path member
	Reason error
}

func (e *ApplyError) Error() string {
	return fmt.Sprintf("operation %d (%s %q): %v", e.Index, e.Op, e.Path, e.Reason)
}

func (e *ApplyError) Unwrap() error { return e.Reason }

// Apply applies p to the JSON document doc and returns the patched document,
// compact. Values the patch does not reach keep their exact bytes (only the
// whitespace between tokens is dropped), and members keep their order.
//
// Paths are resolved the way kube-apiserver resolves a mutating webhook's
// patch (gopkg.in/evanphx/json-patch.v4), which departs from RFC 6902 in
// ways webhooks rely on: a negative array index counts from the end (-1 is
// the last element; for add, -1 appends), "~" not followed by 0 or 1 stands
// for itself, replace of a missing object member adds it, add and replace
// without a value write null, test of a missing member with null succeeds, and the document itself (path "") can be
// replaced but not added to, nor moved or copied. Three cases are stricter than the API server's,
// where it behaves in ways no webhook should depend on: copy from a missing
// member is an error (the API server writes null), a path or from that is not a
// JSON pointer (does not start with "/") is an error (the API server reads
// "a/b" as "/a/b" and "0/" as the member ""), and test compares values
// by meaning (1 equals 1.0, "a" equals "\u0061"; the API server compares
// numbers and strings by spelling).
//
// Copies may grow the document by at most MaxCopyGrowth bytes. An error is
// a *SyntaxError for a document or value that is not JSON, and otherwise an
// *ApplyError naming the operation; doc is never modified.
func Apply(doc []byte, p Patch) ([]byte, error) {
	patched, _, err := ApplyChanged(doc, p)
	return patched, err
}

// ApplyChanged is Apply that also reports whether the patched document
// differs from doc by value (as Diff would find it: member order, spacing
// and spelling aside). It looks only where the patch went, so it costs far
// less than comparing the two documents; a dispatcher needs the answer to
// decide on reinvocation.
func ApplyChanged(doc []byte, p Patch) (patched []byte, changed bool, err error) {
	d, err := parse("target", doc)
	if err != nil {
		return nil, false, err
	}
	return applyChanged(d, p)
}

func applyChanged(d *document, p Patch) (patched []byte, changed bool, err error) {
	a := applier{root: &node{src: d, kind: d.tokens[0].kind}}
	if a.root.kind != kindObject && a.root.kind != kindArray {
		return nil, false, errors.New("target document: not a JSON object or array")
	}
	size := len(d.data)
	for i := range p {
		op := &p[i]
		if err := a.apply(op); err != nil {
			return nil, false, &ApplyError{Index: i, Op: op.Op, Path: op.Path, Reason: err}
		}
		size += len(op.Value)
	}
	changed = !a.root.sameAs(d, 0, &differ{})
	return a.root.appendTo(make([]byte, 0, size+size/8)), changed, nil
}

// node is one value of the document being patched. A value no operation has
// gone into stays a token of the text it came from, so it costs nothing and
// is copied out as it was written; a container an operation goes into is
// expanded into its members or elements, which are nodes in turn.
type node struct {
	src      *document // the text holding the value, while it is not expanded
	tok      int32
	kind     kind
	expanded bool
	fields   []field // an expanded object
	elems    []*node // an expanded array
}

type field struct {
	key    string
	quoted []byte // the key as its source wrote it, reused on output; nil for keys from paths
	value  *node
}

// expand turns a container node into members or elements, once. Duplicate
// keys keep the last value, as every JSON decoder the API server uses does.
func (n *node) expand() {
	if n.expanded {
		return
	}
	n.expanded = true
	d, t := n.src, n.tok
	end := d.tokens[t].next
	count := 0
	for c := t + 1; c < end; c = d.tokens[c].next {
		count++
	}
	if n.kind == kindObject {
		count /= 2
	}
	slab := make([]node, count)
	if n.kind == kindArray {
		n.elems = make([]*node, count)
		for i, c := 0, t+1; c < end; i, c = i+1, d.tokens[c].next {
			slab[i] = node{src: d, tok: c, kind: d.tokens[c].kind}
			n.elems[i] = &slab[i]
		}
		return
	}
	n.fields = make([]field, 0, count)
	for i, c := 0, t+1; c < end; i, c = i+1, d.tokens[d.tokens[c].next].next {
		k := &d.tokens[c]
		slab[i] = node{src: d, tok: c + 1, kind: d.tokens[c+1].kind}
		m := field{key: string(unquote(d.data[k.start:k.end], k.escaped)), quoted: d.data[k.start:k.end], value: &slab[i]}
		if j := n.find(m.key); j >= 0 {
			n.fields[j] = m
			continue
		}
		n.fields = append(n.fields, m)
	}
}

// find returns the position of key among an expanded object's members, or -1.
func (n *node) find(key string) int {
	for i := range n.fields {
		if n.fields[i].key == key {
			return i
		}
	}
	return -1
}

// set gives an expanded object's member key the value v, adding the member if it is missing.
func (n *node) set(key string, v *node) {
	if i := n.find(key); i >= 0 {
		n.fields[i].value = v
		return
	}
	n.fields = append(n.fields, field{key: key, value: v})
}

func (n *node) isContainer() bool { return n.kind == kindObject || n.kind == kindArray }

// appendTo writes the value compactly.
func (n *node) appendTo(dst []byte) []byte {
	if !n.expanded {
		return n.src.appendValue(dst, n.tok)
	}
	if n.kind == kindArray {
		dst = append(dst, '[')
		for i, e := range n.elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.appendTo(dst)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i := range n.fields {
		m := &n.fields[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		if m.quoted != nil {
			dst = append(dst, m.quoted...)
		} else {
			dst = appendQuoted(dst, m.key)
		}
		dst = append(dst, ':')
		dst = m.value.appendTo(dst)
	}
	return append(dst, '}')
}

// sameAs reports whether the node has the value of token t of d. Parts no
// operation reached are still d's own tokens, recognised without a look
// inside; only the containers the patch went into are compared member by
// member.
func (n *node) sameAs(d *document, t int32, eq *differ) bool {
	if !n.expanded {
		return n.src == d && n.tok == t || eq.equal(n.src, n.tok, d, t)
	}
	tok := &d.tokens[t]
	if tok.kind != n.kind {
		return false
	}
	if n.kind == kindArray {
		i := 0
		for c := t + 1; c < tok.next; c = d.tokens[c].next {
			if i == len(n.elems) || !n.elems[i].sameAs(d, c, eq) {
				return false
			}
			i++
		}
		return i == len(n.elems)
	}
	mark := len(eq.members)
	defer func() { eq.members = eq.members[:mark] }()
	members := eq.collectMembers(d, t) // sorted by key, duplicates resolved
	if len(members) != len(n.fields) {
		return false
	}
	for i := range n.fields {
		f := &n.fields[i]
		j, found := slices.BinarySearchFunc(members, f.key, func(m member, key string) int { return strings.Compare(string(m.key), key) })
		if !found || !f.value.sameAs(d, members[j].value, eq) {
			return false
		}
	}
	return true
}

// applier holds the document while the operations of one patch change it.
type applier struct {
	root   *node
	copied int
}

func (a *applier) apply(op *Operation) error {
	switch op.Op {
	case OpAdd:
		v, err := valueNode(op.Value)
		if err != nil {
			return err
		}
		return a.add(op.Path, v)
	case OpRemove:
		_, err := a.remove(op.Path)
		return err
	case OpReplace:
		v, err := valueNode(op.Value)
		if err != nil {
			return err
		}
		return a.replace(op.Path, v)
	case OpMove:
		if op.From == "" {
			return errors.New("from: the document itself cannot be moved or copied") // as in evanphx
		}
		if op.From == op.Path {
			key, v, err := a.lookup(op.From)
			if err == nil && v == nil {
				err = fmt.Errorf("no member %q", key)
			}
			return err
		}
		v, err := a.remove(op.From)
		if err != nil {
			return fmt.Errorf("from: %w", err)
		}
		return a.add(op.Path, v)
	case OpCopy:
		if op.From == "" {
			return errors.New("from: the document itself cannot be moved or copied") // as in evanphx
		}
		key, v, err := a.lookup(op.From)
		if err != nil {
			return fmt.Errorf("from: %w", err)
		}
		if v == nil {
			return fmt.Errorf("from: no member %q", key)
		}
		text := v.appendTo(nil)
		if a.copied += len(text); a.copied > MaxCopyGrowth {
			return fmt.Errorf("copies grow the document by %d bytes, more than the limit of %d", a.copied, MaxCopyGrowth)
		}
		c, err := valueNode(text)
		if err != nil {
			return err
		}
		return a.add(op.Path, c)
	case OpTest:
		want, err := valueNode(op.Value)
		if err != nil {
			return err
		}
		key, v, err := a.lookup(op.Path)
		if err != nil {
			return err
		}
		if v == nil {
			if want.kind == kindNull {
				return nil // a missing member tests as null, as in evanphx
			}
			return fmt.Errorf("no member %q: %w", key, ErrTestFailed)
		}
		if !v.sameAs(want.src, want.tok, &differ{}) {
			return fmt.Errorf("value differs: %w", ErrTestFailed)
		}
		return nil
	}
	return fmt.Errorf("unknown op %q", op.Op)
}

// valueNode parses an operation's value; no value is null.
func valueNode(value []byte) (*node, error) {
	if len(value) == 0 {
		value = []byte("null")
	}
	d, err := parse("value", value)
	if err != nil {
		return nil, err
	}
	return &node{src: d, kind: d.tokens[0].kind}, nil
}

func (a *applier) add(path string, v *node) error {
	if path == "" {
		return errors.New("cannot add to the document itself; replace it")
	}
	parent, key, err := a.container(path)
	if err != nil {
		return err
	}
	if parent.kind == kindObject {
		parent.set(key, v)
		return nil
	}
	i := len(parent.elems)
	if key != "-" {
		if i, err = insertIndex(key, len(parent.elems)); err != nil {
			return err
		}
	}
	parent.elems = append(parent.elems, nil)
	copy(parent.elems[i+1:], parent.elems[i:])
	parent.elems[i] = v
	return nil
}

// remove takes the value at path out of the document and returns it.
func (a *applier) remove(path string) (*node, error) {
	if path == "" {
		return nil, errors.New("cannot remove the document itself")
	}
	parent, key, err := a.container(path)
	if err != nil {
		return nil, err
	}
	if parent.kind == kindObject {
		i := parent.find(key)
		if i < 0 {
			return nil, fmt.Errorf("no member %q", key)
		}
		v := parent.fields[i].value
		parent.fields = append(parent.fields[:i], parent.fields[i+1:]...)
		return v, nil
	}
	i, err := existingIndex(key, len(parent.elems))
	if err != nil {
		return nil, err
	}
	v := parent.elems[i]
	parent.elems = append(parent.elems[:i], parent.elems[i+1:]...)
	return v, nil
}

func (a *applier) replace(path string, v *node) error {
	if path == "" {
		if !v.isContainer() {
			return errors.New("the document can only be replaced by an object or array")
		}
		a.root = v
		return nil
	}
	parent, key, err := a.container(path)
	if err != nil {
		return err
	}
	if parent.kind == kindObject {
		parent.set(key, v) // a missing member is added, as the API server does
		return nil
	}
	i, err := existingIndex(key, len(parent.elems))
	if err != nil {
		return err
	}
	parent.elems[i] = v
	return nil
}
