package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonSplitter splits a stream of JSON values, a piece each. An object that outgrows the limit
// while in its items array — a List of a whole cluster from kubectl get -A -o json — is read an
// item at a time: its items as they end, then its other members.
type jsonSplitter struct {
	r        *bufio.Reader
	line     int
	limit    int
	document int
	pending  []piece
	done     bool
}

func (s *jsonSplitter) next() (piece, error) {
	for len(s.pending) == 0 {
		if s.done {
			return piece{}, io.EOF
		}
		if err := s.value(); err != nil {
			s.done = true
			return piece{}, err
		}
	}
	p := s.pending[0]
	s.pending = s.pending[1:]
	return p, nil
}

// value reads the next top-level value and adds its pieces to pending.
func (s *jsonSplitter) value() error {
	first, err := s.skipSpace()
	if err == io.EOF {
		s.done = true
		return nil
	}
	if err != nil {
		return &lineError{line: s.line, err: err}
	}
	s.document++
	v := &jsonValue{s: s, startLine: s.line, itemStart: -1}
	if first != '{' {
		return v.notAnObject()
	}
	for {
		b, err := s.r.ReadByte()
		if err == io.EOF {
			return &lineError{line: v.startLine, err: io.ErrUnexpectedEOF}
		}
		if err != nil {
			return &lineError{line: s.line, err: err}
		}
		if v.take(b) {
			v.finish()
			if v.streaming && v.err != nil {
				return v.err
			}
			return nil
		}
		if !v.streaming && v.inItems && len(v.buf) > s.limit {
			v.startStreaming()
		}
	}
}

// skipSpace moves past white space, counting lines, and peeks at the next byte.
func (s *jsonSplitter) skipSpace() (byte, error) {
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return b, s.r.UnreadByte()
		}
	}
}

// jsonValue is one top-level value being read.
type jsonValue struct {
	s *jsonSplitter
	// buf holds the value's text from its start; once the value is read an item at a time, the
	// item under way, or what follows the items.
	buf       []byte
	startLine int
	depth     int
	inString  bool
	escape    bool
	// At depth 1: whether a key comes next, where the current key starts and what it is, and
	// whether the last byte was the colon before a value.
	expectKey  bool
	keyStart   int
	key        string
	afterColon bool
	// The items array of the object (at depth 2): where its member starts, whether an item
	// comes next, where the one under way starts and on what line, how many ended; the items
	// noted while the value is held whole, in case it must be streamed.
	inItems, sawItems bool
	itemsOpen         int
	expectItem        bool
	itemStart         int
	itemLine          int
	itemCount         int
	items             []piece
	// streaming: the value is read an item at a time; head holds its text before the items
	// (with an empty array in their place), and the List's kind and apiVersion found in it.
	streaming         bool
	head              []byte
	listKind, listAPI string
	// err is a syntax error of a streamed value found between its items, which decoding the
	// items and the head one by one would not see.
	err error
}

// fault records the first syntax error between a streamed List's items, at the current line.
func (v *jsonValue) fault(err error) {
	if v.err == nil {
		v.err = &lineError{line: v.s.line, err: err}
	}
}

// take reads one byte of an object; done says the object ended with it.
func (v *jsonValue) take(b byte) (done bool) {
	v.buf = append(v.buf, b)
	pos := len(v.buf) - 1
	if b == '\n' {
		v.s.line++
	}
	if v.inString {
		switch {
		case v.escape:
			v.escape = false
		case b == '\\':
			v.escape = true
		case b == '"':
			v.inString = false
			if v.depth == 1 && v.expectKey {
				v.key = string(v.buf[v.keyStart+1 : pos])
			}
		}
		return false
	}
	switch b {
	case ' ', '\t', '\r', '\n':
		return false
	}
	if v.inItems && v.depth == 2 && v.expectItem && b != ']' && b != ',' {
		v.expectItem, v.itemStart, v.itemLine = false, pos, v.s.line
	}
	switch b {
	case '"':
		v.inString = true
		if v.depth == 1 && v.expectKey {
			v.keyStart = pos
		}
	case '{', '[':
		if v.depth == 1 && v.afterColon && b == '[' && v.key == "items" && !v.sawItems {
			v.inItems, v.sawItems, v.expectItem, v.itemsOpen = true, true, true, pos
		}
		v.depth++
		if v.depth == 1 {
			v.expectKey = true
		}
	case '}', ']':
		if v.inItems && v.depth == 2 {
			if v.expectItem && v.itemCount > 0 {
				v.fault(errors.New("invalid character ']' after a comma in a List's items"))
			}
			v.endItem(pos)
			v.inItems = false
		}
		v.depth--
		if v.depth <= 0 {
			return true
		}
	case ',':
		if v.depth == 1 {
			v.expectKey = true
		}
		if v.inItems && v.depth == 2 {
			if v.expectItem {
				v.fault(errors.New("invalid character ',' where a List's item starts"))
			}
			v.endItem(pos)
			v.expectItem = true
		}
	case ':':
		if v.depth == 1 {
			v.expectKey = false
		}
	}
	v.afterColon = b == ':' && v.depth == 1
	return false
}

// endItem ends the item under way, if any, at end (exclusive).
func (v *jsonValue) endItem(end int) {
	if v.itemStart >= 0 {
		text := bytes.TrimRight(v.buf[v.itemStart:end], " \t\r\n")
		v.itemCount++
		p := piece{kind: listItem, text: text, json: true, firstLine: v.itemLine, document: v.s.document, item: v.itemCount}
		if v.streaming {
			p.text, p.listKind, p.listAPIVersion = bytes.Clone(text), v.listKind, v.listAPI
			v.s.pending = append(v.s.pending, p)
		} else {
			v.items = append(v.items, p)
		}
		v.itemStart = -1
	}
	if v.streaming {
		// Nothing before the next item is worth keeping: a comma, or the closing bracket.
		v.buf = v.buf[:0]
	}
}

// startStreaming turns to reading the value an item at a time: the items ended so far are
// emitted, the members before the items kept as the head, the item under way kept.
func (v *jsonValue) startStreaming() {
	v.streaming = true
	v.head = append(bytes.Clone(v.buf[:v.itemsOpen]), "[]"...)
	var typ struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	if json.Unmarshal(append(bytes.Clone(v.head), '}'), &typ) == nil {
		v.listKind, v.listAPI = typ.Kind, typ.APIVersion
	}
	for _, p := range v.items {
		p.text, p.listKind, p.listAPIVersion = bytes.Clone(p.text), v.listKind, v.listAPI
		v.s.pending = append(v.s.pending, p)
	}
	v.items = nil
	if v.itemStart >= 0 {
		v.buf = append(v.buf[:0], v.buf[v.itemStart:]...)
		v.itemStart = 0
	} else {
		v.buf = v.buf[:0]
	}
}

// finish adds the value's pieces: the whole object, or the keys of a List read an item at a time
// (buf then holds what followed its items).
func (v *jsonValue) finish() {
	s := v.s
	if !v.streaming {
		s.pending = append(s.pending, piece{kind: wholeDocument, text: v.buf, json: true, firstLine: v.startLine, document: s.document})
		return
	}
	s.pending = append(s.pending, piece{kind: listHead, text: append(v.head, v.buf...), json: true, firstLine: v.startLine, document: s.document})
}

// notAnObject reads a top-level value that is not an object (up to the limit), for decoding to
// say what it is instead.
func (v *jsonValue) notAnObject() error {
	s := v.s
	first, _ := s.r.ReadByte()
	v.buf = append(v.buf, first)
	switch first {
	case '[':
		v.depth = 1
	case '"':
		v.inString = true
	case '}', ']', ',', ':':
		s.pending = append(s.pending, piece{kind: wholeDocument, text: v.buf, json: true, firstLine: v.startLine, document: s.document})
		return nil
	}
	for v.depth > 0 || v.inString || !isJSONDelimiter(peekByte(s.r)) {
		b, err := s.r.ReadByte()
		if err == io.EOF {
			if v.depth > 0 || v.inString {
				return &lineError{line: v.startLine, err: io.ErrUnexpectedEOF}
			}
			break
		}
		if err != nil {
			return &lineError{line: s.line, err: err}
		}
		if len(v.buf) > s.limit {
			return &lineError{line: v.startLine, err: fmt.Errorf("a JSON value of over %d MiB that is not an object", s.limit>>20)}
		}
		v.takeOther(b)
	}
	s.pending = append(s.pending, piece{kind: wholeDocument, text: v.buf, json: true, firstLine: v.startLine, document: s.document})
	return nil
}

// takeOther reads one byte of a value that is not an object: only its end matters.
func (v *jsonValue) takeOther(b byte) {
	v.buf = append(v.buf, b)
	if b == '\n' {
		v.s.line++
	}
	switch {
	case v.inString && v.escape:
		v.escape = false
	case v.inString && b == '\\':
		v.escape = true
	case v.inString && b == '"':
		v.inString = false
	case v.inString:
	case b == '"':
		v.inString = true
	case b == '[' || b == '{':
		v.depth++
	case b == ']' || b == '}':
		v.depth--
	}
}

// peekByte is the next byte, 0 at the end.
func peekByte(r *bufio.Reader) byte {
	b, err := r.Peek(1)
	if err != nil {
		return ' '
	}
	return b[0]
}

func isJSONDelimiter(b byte) bool {
	switch b {
	case ' ', '\t', '\r', '\n', '{', '[', '"', '}', ']', ',', ':':
		return true
	}
	return false
}
