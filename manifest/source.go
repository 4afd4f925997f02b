package manifest

import (
	"fmt"
	"strconv"
)

// Source is where an object was read from.
type Source struct {
	// File is the path the object was read from, the name given to the reader (e.g. "<stdin>"),
	// or empty for Go values.
	File string
	// Document is the 1-based position of the object's document in the file, documents with
	// nothing but blank lines and comments not counted; for Go values, their position in a list.
	Document int
	// Line is the 1-based line where the object starts in File: the first line of its document
	// that is not blank or a comment, or the line of its entry in a List. 0 for Go values.
	Line int
	// Item is the 1-based position of the object in the items of the List it came in, 0 when it
	// did not come in a List.
	Item int

	// fields finds the positions of the object's fields in its text; nil for Go values and
	// objects not read from text.
	fields *fieldLocator
}

// Position is where a field is in a file: 1-based line and column of its key (of its first
// character for a list item).
type Position struct {
	Line, Column int
}

// Field returns the position of the field at path (as the apiserver writes field paths:
// "webhooks[0].clientConfig.caBundle") in the object's text, and whether the field itself is
// there. When it is not, the position is that of the deepest part of the path that is, e.g. the
// webhook of a field it leaves unset. ok is false, and the position zero, when the source has no
// text (Go values, objects read from a cluster).
func (s Source) Field(path string) (pos Position, found, ok bool) {
	if s.fields == nil {
		return Position{}, false, false
	}
	elements := parseFieldPath(path)
	line, column, depth := s.fields.loc.position(append(append([]any{}, s.fields.prefix...), elements...))
	if line == 0 {
		return Position{}, false, false
	}
	return Position{Line: line, Column: column}, depth == len(s.fields.prefix)+len(elements), true
}

// AtField is the source moved to the line of the field at path (or of the deepest part of the
// path that is there): where a message about that field points. It is s when the source has no
// text.
func (s Source) AtField(path string) Source {
	if pos, _, ok := s.Field(path); ok {
		s.Line = pos.Line
	}
	return s
}

// fieldLocator is an object's place in its text: the text's locator and the path of the object
// in it (a List's item), nil for an object that is the whole text.
type fieldLocator struct {
	loc    *locator
	prefix []any
}

// String renders the source as "file:line", the form editors and terminals link to; Go values
// read "object 2" (or "object 2, item 3").
func (s Source) String() string {
	if s.File != "" && s.Line > 0 {
		return s.File + ":" + strconv.Itoa(s.Line)
	}
	name := s.File
	if name == "" {
		name = "object " + strconv.Itoa(s.Document)
	}
	if s.Item > 0 {
		return fmt.Sprintf("%s, item %d", name, s.Item)
	}
	return name
}

// at is the source of a position further into the same text.
func (s Source) at(line int) Source {
	if line > 0 {
		s.Line = line
	}
	return s
}

// newLocator finds fields in text, whose first byte is at line firstLine of its file. The text
// is parsed again only when a position is asked for, once, whichever goroutine asks.
func newLocator(text []byte, firstLine int) *locator {
	return &locator{text: text, firstLine: firstLine}
}
