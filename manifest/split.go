package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// A file is split into pieces that decode independently: whole documents, and, for a List too
// large to hold at once, its items one at a time and then its own keys.
type pieceKind int

const (
	// wholeDocument is a YAML document or a JSON value, decoded whole.
	wholeDocument pieceKind = iota
	// listItem is one item of a List read an item at a time.
	listItem
	// listHead is the keys of a List read an item at a time (apiVersion, kind, metadata), read
	// after its items: it must say it is a List.
	listHead
)

type piece struct {
	kind pieceKind
	text []byte
	json bool
	// firstLine is the line of the file text's first byte is on.
	firstLine int
	// document counts the file's documents; item the List's items (listItem).
	document, item int
	// listKind and listAPIVersion are the List's, for its items, when its keys come before them.
	listKind, listAPIVersion string
	// indent is how many columns the text's lines were moved left (a YAML List's item, taken
	// back to the column of its dash).
	indent int
	// fileLine, when set, is the file's line of the text's line n (a List's keys, read apart
	// from the items between them); else firstLine + n - 1.
	fileLine func(n int) int
}

// lineInFile is the file's line of line n of the piece's text.
func (p piece) lineInFile(n int) int {
	if p.fileLine != nil {
		return p.fileLine(n)
	}
	return p.firstLine + n - 1
}

// wholeLimit is the size up to which a document is decoded whole. A larger document that is a
// List — a whole cluster from kubectl get -A -o yaml — is read an item at a time, so that memory
// is bounded by its largest item; its items then cannot share YAML anchors, and its kind, which
// kubectl writes after the items, cannot name the items' kinds.
const wholeLimit = 4 << 20

// maxLine bounds one line: a base64 ConfigMap or a CRD's schema can be long, not endless.
const maxLine = 64 << 20

// splitter yields a file's pieces in order; io.EOF ends them. Any other error ends them too:
// what follows cannot be told apart.
type splitter interface {
	next() (piece, error)
}

// lineReader reads a stream a line at a time, each with its number and its newline.
type lineReader struct {
	r       *bufio.Reader
	n       int
	scratch []byte
	// template notes "{{" then "}}" in what was read: a template, not a manifest.
	template templateSeen
}

// line returns the next line, nil at the end of the stream.
func (l *lineReader) line() ([]byte, error) {
	l.scratch = l.scratch[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.scratch = append(l.scratch, chunk...)
		if len(l.scratch) > maxLine {
			return nil, &lineError{line: l.n + 1, err: fmt.Errorf("a line longer than %d MiB", maxLine>>20)}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(l.scratch) == 0 {
				return nil, nil
			}
		case err != nil:
			return nil, &lineError{line: l.n + 1, err: err}
		}
		l.n++
		l.template.see(l.scratch)
		return l.scratch, nil
	}
}

// templateSeen follows whether the text holds Go template actions, as Helm charts do.
type templateSeen struct{ open, closed bool }

func (t *templateSeen) see(line []byte) {
	if i := bytes.Index(line, []byte("{{")); i >= 0 {
		t.open = true
		line = line[i+2:]
	}
	if t.open && bytes.Contains(line, []byte("}}")) {
		t.closed = true
	}
}

// lineError is an error at a line of the file being split.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

// yamlSplitter splits a YAML stream into documents at "---" lines (and "..." document end
// lines), leaving out those with nothing but blank lines and comments.
type yamlSplitter struct {
	lines    *lineReader
	limit    int
	document int
	// doc is the current document's text, which starts at line docLine; items, once the
	// document outgrows limit, reads it an item at a time.
	doc        []byte
	docLine    int
	docContent bool
	// docWhole: the document is read whole however large, its top level not being a block
	// mapping at the first column.
	docWhole bool
	items    *itemSplitter
	pending  []piece
	done     bool
}

func (s *yamlSplitter) next() (piece, error) {
	for len(s.pending) == 0 {
		if s.done {
			return piece{}, io.EOF
		}
		if err := s.step(); err != nil {
			s.done = true
			return piece{}, err
		}
	}
	p := s.pending[0]
	s.pending = s.pending[1:]
	return p, nil
}

// step reads one line and adds what it completes to pending.
func (s *yamlSplitter) step() error {
	line, err := s.lines.line()
	if err != nil {
		return err
	}
	if line == nil {
		s.endDocument()
		s.done = true
		return nil
	}
	switch separator(line) {
	case separatorLine:
		s.endDocument()
		s.docLine = s.lines.n + 1
		return nil
	case separatorWithContent:
		s.endDocument()
		return &lineError{line: s.lines.n, err: errors.New("content after a '---' document separator is not supported: put it on the next line")}
	}
	if s.items != nil {
		s.items.line(s.lines.n, line)
		return s.items.err
	}
	s.doc = append(s.doc, line...)
	if !s.docContent && isContent(line) {
		s.docContent = true
		// Only a document whose top level is a block mapping at the first column can be read an
		// item at a time: its keys are the lines that start there.
		s.docWhole = line[0] == ' ' || line[0] == '\t' || bytes.IndexByte([]byte("{[-!&*?|>%@`\"'"), line[0]) >= 0
	}
	if len(s.doc) > s.limit && s.docContent && !s.docWhole {
		// Too large to hold whole: from here on, an item at a time.
		s.document++
		s.items = newItemSplitter(s.document, func(p piece) { s.pending = append(s.pending, p) })
		n := s.docLine
		for _, l := range bytes.SplitAfter(s.doc, []byte("\n")) {
			if len(l) > 0 {
				s.items.line(n, l)
				n++
			}
		}
		s.doc, s.docContent, s.docWhole = nil, false, false
		return s.items.err
	}
	return nil
}

// endDocument adds the document read so far, and starts the next.
func (s *yamlSplitter) endDocument() {
	if s.items != nil {
		s.items.end()
		s.items = nil
		return
	}
	if s.docContent {
		s.document++
		s.pending = append(s.pending, piece{kind: wholeDocument, text: s.doc, firstLine: s.docLine, document: s.document})
	}
	s.doc, s.docContent, s.docWhole = nil, false, false
}

// separatorKind classifies a line of a YAML stream.
type separatorKind int

const (
	notSeparator separatorKind = iota
	separatorLine
	separatorWithContent
)

// separator classifies a line: "---" or "..." alone (or followed by a comment) separates
// documents; "--- value" starts a document inline, which kubectl does not accept either.
func separator(line []byte) separatorKind {
	line = bytes.TrimRight(line, " \t\r\n")
	if bytes.Equal(line, []byte("...")) {
		return separatorLine
	}
	rest, found := bytes.CutPrefix(line, []byte("---"))
	if !found {
		return notSeparator
	}
	if len(rest) == 0 {
		return separatorLine
	}
	if rest[0] != ' ' && rest[0] != '\t' {
		return notSeparator // e.g. "----" or "---x": content, not a marker
	}
	if bytes.HasPrefix(bytes.TrimLeft(rest, " \t"), []byte("#")) {
		return separatorLine
	}
	return separatorWithContent
}

// firstContentLine returns the 1-based line of text that is not blank or a comment, 0 if none.
func firstContentLine(text []byte) int {
	for n := 1; len(text) > 0; n++ {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if isContent(line) {
			return n
		}
	}
	return 0
}

// isContent says whether a line is more than blank space or a comment.
func isContent(line []byte) bool {
	trimmed := bytes.TrimSpace(line)
	return len(trimmed) > 0 && trimmed[0] != '#'
}
