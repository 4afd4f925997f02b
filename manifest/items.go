package manifest

import (
	"bytes"
	"errors"
)

// itemSplitter reads one YAML document a line at a time, as a List in the block style kubectl
// prints —
//
//	apiVersion: v1
//	items:
//	- apiVersion: v1
//	  kind: Pod
//	  ...
//	kind: List
//
// — its items emitted one at a time, each once the next one starts, then the List's own keys
// (a listHead). A document whose top-level "items:" holds no such list is emitted whole at its
// end.
type itemSplitter struct {
	document int
	emit     func(piece)
	// head is the document's lines outside the items: the List's own keys, or all of it.
	head     []byte
	headLine int
	// inItems: the lines are the items, whose dash is at column dash; sawItems: there were items.
	inItems, sawItems, dashKnown bool
	dash                         int
	// item is the item being read, from line itemLine; count counts the items.
	item     []byte
	itemLine int
	count    int
	// listKind and listAPIVersion are read from the head's lines before the items.
	listKind, listAPIVersion string
	// headBefore counts the head's lines before the items; afterLine is the file's line of the
	// first head line after them (0 until there is one).
	headBefore, afterLine int
	// held are the blank lines and comments after "items:" before its first item: the head's,
	// should no item follow.
	held []byte
	// err is a line that cannot be part of the List: the document cannot be read on.
	err error
}

func newItemSplitter(document int, emit func(piece)) *itemSplitter {
	return &itemSplitter{document: document, emit: emit}
}

// line takes the next line of the document, n its number in the file.
func (s *itemSplitter) line(n int, text []byte) {
	if s.headLine == 0 {
		s.headLine = n
	}
	body := bytes.TrimRight(text, "\r\n")
	if !s.inItems {
		if string(body) == "items:" && !s.sawItems {
			s.inItems, s.dashKnown = true, false
			s.headBefore = bytes.Count(s.head, []byte("\n"))
			return
		}
		s.addHead(n, text)
		return
	}
	if !isContent(body) {
		// Blank lines and comments belong to the item they are in: in a block scalar, a line
		// that starts with "#" is text.
		switch {
		case s.item != nil:
			s.item = append(s.item, text...)
		case !s.dashKnown:
			s.held = append(s.held, text...)
		}
		return
	}
	indent := len(body) - len(bytes.TrimLeft(body, " "))
	if !s.dashKnown {
		if !isDash(body[indent:]) {
			// "items:" holds no list: an ordinary key of an ordinary document.
			s.notItems()
			s.addHead(n, text)
			return
		}
		// The items' dash is at column 0 (kubectl) or indented (other emitters): as the first's.
		s.dash, s.dashKnown, s.sawItems = indent, true, true
	}
	switch {
	case indent == s.dash && isDash(body[indent:]):
		s.endItem()
		// The dash becomes indentation, as its item's other lines have.
		s.item = append(append(bytes.Repeat([]byte(" "), s.dash), "  "...), bytes.TrimPrefix(bytes.TrimPrefix(text[indent:], []byte("-")), []byte(" "))...)
		s.itemLine = n
	case indent >= s.dash+2 && s.item != nil:
		s.item = append(s.item, text...)
	case indent < s.dash || indent == 0:
		// The next key of the List itself (kind, metadata): the items are over.
		s.endItem()
		s.inItems = false
		s.addHead(n, text)
	default:
		if s.err == nil {
			s.err = &lineError{line: n, err: errors.New("a line of a List's items that is not indented as its items are")}
		}
	}
}

func isDash(rest []byte) bool {
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ')
}

// addHead adds line n of the List's own keys, reading its kind and apiVersion as they come.
func (s *itemSplitter) addHead(n int, text []byte) {
	s.head = append(s.head, text...)
	if s.sawItems {
		if s.afterLine == 0 {
			s.afterLine = n
		}
		return // after the items: too late to name their kind
	}
	if v, ok := topLevelScalar(text, "kind"); ok {
		s.listKind = v
	}
	if v, ok := topLevelScalar(text, "apiVersion"); ok {
		s.listAPIVersion = v
	}
}

// topLevelScalar reads "key: value" at column 0, a plain or quoted scalar.
func topLevelScalar(text []byte, key string) (string, bool) {
	rest, ok := bytes.CutPrefix(bytes.TrimRight(text, " \r\n"), []byte(key+":"))
	if !ok {
		return "", false
	}
	v := bytes.TrimSpace(rest)
	if i := bytes.Index(v, []byte(" #")); i >= 0 {
		v = bytes.TrimSpace(v[:i])
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return string(v), len(v) > 0
}

// endItem emits the item read so far, its lines taken back to the column of its dash.
func (s *itemSplitter) endItem() {
	if s.item == nil {
		return
	}
	text := s.item
	s.item = nil
	if cut := s.dash + 2; cut > 0 {
		var out []byte
		for _, l := range bytes.SplitAfter(text, []byte("\n")) {
			n := 0
			for n < cut && n < len(l) && l[n] == ' ' {
				n++
			}
			out = append(out, l[n:]...)
		}
		text = out
	}
	s.count++
	s.emit(piece{kind: listItem, text: text, firstLine: s.itemLine, document: s.document, item: s.count, listKind: s.listKind, listAPIVersion: s.listAPIVersion, indent: s.dash + 2})
}

// notItems puts back an "items:" that holds no list, and the lines after it, as the head's.
func (s *itemSplitter) notItems() {
	s.inItems = false
	s.head = append(append(s.head, "items:\n"...), s.held...)
	s.held = nil
}

// end emits what is left of the document: the last item and the List's keys, or the document
// whole when it held no items.
func (s *itemSplitter) end() {
	if s.inItems && !s.dashKnown {
		s.notItems()
	}
	s.endItem()
	if !s.sawItems {
		s.emit(piece{kind: wholeDocument, text: s.head, firstLine: s.headLine, document: s.document})
		return
	}
	// The head's lines after the items are further down the file than its text says.
	first, before, after := s.headLine, s.headBefore, s.afterLine
	s.emit(piece{kind: listHead, text: s.head, firstLine: first, document: s.document, fileLine: func(h int) int {
		if h <= before || after == 0 {
			return first + h - 1
		}
		return after + h - before - 1
	}})
}
