package config

import (
	"fmt"
	"strconv"
)

// Source is where an object was read from.
type Source struct {
	// File is the path the object was read from, the name given to Parse (e.g. "<stdin>"), or
	// empty for Go values given to FromObjects.
	File string
	// Document is the 1-based position of the object's document in the file, empty documents
	// not counted; for Go values, the position in the FromObjects arguments.
	Document int
	// Line is the 1-based line where the object starts in File: the first line of its document
	// that is not blank or a comment, or the line of its entry in a List. 0 for Go values.
	Line int
	// Item is the 1-based position of the object in the items of the List it came in, 0 when it
	// did not come in a List.
	Item int
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

// at is the source of a position further into the same document.
func (s Source) at(line int) Source {
	if line > 0 {
		s.Line = line
	}
	return s
}
