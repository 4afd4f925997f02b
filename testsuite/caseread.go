package testsuite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// caseFile is a test file whose cases are read one at a time, from the file, when asked for: a
// run of a file of 100,000 cases then holds, per case, where it is in the file and its name, not
// its YAML tree nor its Case, which Load holds for every case at once. Its methods may be called
// from several goroutines at once.
type caseFile struct {
	path string
	file *os.File
	// spans are where each case is in the file, in order.
	spans []caseSpan
	names []string
}

// caseSpan is a case's bytes in its file, [start, end), which begin on the file's line lines+1.
type caseSpan struct {
	start, end int64
	lines      int
}

// openCases reads a test file's top-level fields and finds its cases, each read once (and let
// go) so that a case's problem is found now, as Load finds it, not when the case's turn comes.
// A file a line scan cannot split with certainty (see caseScan), and one with any problem at
// all, is read by Load instead, and its result (or error) returned unchanged, cf nil: what a
// file means and every message about it are Load's alone, never rewritten here. Otherwise s has
// no Cases; cf reads them, and must be closed.
func openCases(path string) (s *Suite, cf *caseFile, err error) {
	if s, cf := openLazily(path); cf != nil {
		return s, cf, nil
	}
	s, err = Load(path)
	return s, nil, err
}

// openLazily is openCases without the fallback: a nil caseFile says to read the file with Load.
func openLazily(path string) (*Suite, *caseFile) {
	file, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	cf := &caseFile{path: path, file: file}
	sc := &caseScan{cf: cf, r: bufio.NewReaderSize(file, 64<<10), indent: -1, names: map[string]bool{}}
	s := sc.run()
	if s == nil {
		_ = file.Close() // read-only: Load reads the file again, and reports what there is to report
		return nil, nil
	}
	return s, cf
}

// Len is the number of cases.
func (f *caseFile) Len() int { return len(f.spans) }

// Names are every case's name, in order; the caller does not change them.
func (f *caseFile) Names() []string { return f.names }

// Close closes the file.
func (f *caseFile) Close() error { return f.file.Close() }

// Case reads case i again from the file: as Load reads it, but for its node (nil), which only
// Update needs. An error says the file (or a file the case names) changed since it was opened.
func (f *caseFile) Case(i int) (*Case, error) {
	if i < 0 || i >= len(f.spans) {
		return nil, fmt.Errorf("%s: no case %d: the file has %d", f.path, i, len(f.spans))
	}
	sp := f.spans[i]
	data := make([]byte, sp.end-sp.start)
	if _, err := f.file.ReadAt(data, sp.start); err != nil {
		return nil, fmt.Errorf("%s: reading case %q again: %w", f.path, f.names[i], err)
	}
	c, _, err := f.parseCase(data, sp.lines)
	if err != nil {
		return nil, fmt.Errorf("case %q read again, the file changed since it was opened: %w", f.names[i], err)
	}
	if c.Name != f.names[i] {
		return nil, fmt.Errorf("%s:%d: the case is now %q, not %q: the file changed since it was opened", f.path, c.Line, c.Name, f.names[i])
	}
	return c, nil
}

// parseCase reads one case from its bytes (a block sequence of one item, as the file has it),
// which begin on the file's line lines+1: its nodes get the lines they have in the file, so that
// the case and the messages of the files it names are Load's. anchors says whether the case
// defines an anchor. Any problem is an error, even one Load would keep as the case's Err.
func (f *caseFile) parseCase(data []byte, lines int) (c *Case, anchors bool, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, false, fmt.Errorf("%s:%d: the case does not read on its own: %w", f.path, lines+1, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 ||
		doc.Content[0].Kind != yaml.SequenceNode || len(doc.Content[0].Content) != 1 {
		return nil, false, fmt.Errorf("%s:%d: not one case", f.path, lines+1)
	}
	item := doc.Content[0].Content[0]
	anchors = shiftLines(item, lines)
	p := &parser{path: f.path, dir: filepath.Dir(f.path)}
	c = p.testCase(item)
	if len(p.errs) > 0 {
		return nil, false, errors.Join(p.errs...)
	}
	c.node = nil // only Update needs it, and it is most of what a case holds
	return c, anchors, nil
}

// shiftLines adds by to the line of every node of a tree, and reports whether one defines an
// anchor. It follows Content only: an alias's target is a node of the tree too (the case read
// alone), and is shifted once, where it stands.
func shiftLines(n *yaml.Node, by int) (anchors bool) {
	n.Line += by
	anchors = n.Anchor != ""
	for _, c := range n.Content {
		if shiftLines(c, by) {
			anchors = true
		}
	}
	return anchors
}

// hasAlias reports whether a tree has an alias.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// caseScan is a caseFile's one pass over its file, line by line. It splits the plain shape only:
// one document, a mapping at column 0 whose key `cases:` (nothing after it but a comment) is
// followed by a block sequence whose dashes are all at one indentation d (0 or more); a line at
// indentation d that starts with "- " (or is "-") starts a case; blank and comment lines belong
// to the case before; any other line at indentation 0 ends the list. Anything else, and what YAML
// reads otherwise than a line scan (document markers, directives, tabs in indentation, a
// byte-order mark, line breaks other than LF and CRLF), is left to Load. The header (the lines
// that are not a case's, each case's line blanked so that lines keep their numbers) and each case
// are then read by the parser of the whole file; that they read as the whole file reads is
// checked (the header's cases: is the line found, and empty), and where it cannot be (an alias
// of the header that a case's anchor may have redefined), Load reads the file.
type caseScan struct {
	cf *caseFile
	r  *bufio.Reader
	// line is the current line, with its line break; content is without it; start is its offset
	// and n its number.
	line, content []byte
	start         int64
	n             int
	// header is the file but for its cases, whose lines are blank.
	header bytes.Buffer
	// casesLine is the line of `cases:`, 0 until it is found; indent is the indentation of the
	// cases' dashes, -1 until the first; ended says a line after the list was found.
	casesLine, indent int
	ended             bool
	// item is the current case's bytes, which start at itemStart, on line itemLine.
	item      []byte
	itemStart int64
	itemLine  int
	names     map[string]bool
	// anchors says a case defines an anchor.
	anchors bool
}

// run scans the file and reads its header: the suite, or nil when Load is to read the file.
func (sc *caseScan) run() *Suite {
	for {
		more, err := sc.next()
		if err != nil {
			return nil
		}
		if !more {
			break
		}
		if !sc.plain() || !sc.place() {
			return nil
		}
		sc.start += int64(len(sc.line))
	}
	if sc.indent < 0 || (!sc.ended && !sc.endCase()) {
		return nil
	}
	return sc.suite()
}

// next reads the next line into sc.line, reusing its buffer; false at the end of the file.
func (sc *caseScan) next() (bool, error) {
	sc.line = sc.line[:0]
	sc.n++
	for {
		chunk, err := sc.r.ReadSlice('\n')
		sc.line = append(sc.line, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return len(sc.line) > 0, nil
		case err != nil:
			return false, fmt.Errorf("reading %s: %w", sc.cf.path, err)
		}
		return true, nil
	}
}

// plain reports whether the line is one a line scan reads as YAML does, and sets sc.content.
func (sc *caseScan) plain() bool {
	c := bytes.TrimSuffix(sc.line, []byte("\n"))
	if len(c) < len(sc.line) {
		c = bytes.TrimSuffix(c, []byte("\r"))
	}
	sc.content = c
	// A byte-order mark may say UTF-16, which the scan does not read.
	for _, bom := range []string{"\xef\xbb\xbf", "\xfe\xff", "\xff\xfe"} {
		if sc.n == 1 && bytes.HasPrefix(c, []byte(bom)) {
			return false
		}
	}
	// YAML breaks lines at CR, NEL, LS and PS too.
	for _, lineBreak := range []string{"\r", "\u0085", "\u2028", "\u2029"} {
		if bytes.Contains(c, []byte(lineBreak)) {
			return false
		}
	}
	if i := indentOf(c); i < len(c) && c[i] == '\t' {
		return false
	}
	// Document markers and directives: the file may hold other documents than the first.
	for _, marker := range []string{"---", "...", "%"} {
		if bytes.HasPrefix(c, []byte(marker)) {
			return false
		}
	}
	return true
}

// place puts the line in the header or the current case; false when the file is not of the
// plain shape.
func (sc *caseScan) place() bool {
	indent := indentOf(sc.content)
	rest := sc.content[indent:]
	note := len(rest) == 0 || rest[0] == '#'
	switch {
	case sc.casesLine == 0:
		if indent == 0 && bytes.HasPrefix(rest, []byte("cases:")) {
			if !isCasesKey(rest) {
				return false
			}
			sc.casesLine = sc.n
		}
	case sc.indent < 0 && note:
	case sc.indent < 0:
		if !isDash(rest) {
			return false
		}
		sc.indent = indent
		sc.startCase()
		return true
	case sc.ended:
	case note || indent > sc.indent:
		sc.item = append(sc.item, sc.line...)
		sc.header.WriteByte('\n')
		return true
	case indent == sc.indent && isDash(rest):
		if !sc.endCase() {
			return false
		}
		sc.startCase()
		return true
	default:
		// The list ends at column 0, at a key that is not a dash; what else YAML makes of a
		// line less indented than the dashes, or of a dash that is not a case's, Load says.
		if indent > 0 || rest[0] == '-' || !sc.endCase() {
			return false
		}
		sc.ended = true
	}
	sc.header.Write(sc.line)
	return true
}

// startCase starts a case at the line.
func (sc *caseScan) startCase() {
	sc.item = append(sc.item[:0], sc.line...)
	sc.itemStart, sc.itemLine = sc.start, sc.n
	sc.header.WriteByte('\n')
}

// endCase reads the current case, which ends where the line starts, and keeps its span and name;
// false when it has a problem, or a name an earlier case has.
func (sc *caseScan) endCase() bool {
	c, anchors, err := sc.cf.parseCase(sc.item, sc.itemLine-1)
	if err != nil || sc.names[c.Name] {
		return false
	}
	sc.names[c.Name] = true
	sc.anchors = sc.anchors || anchors
	sc.cf.spans = append(sc.cf.spans, caseSpan{start: sc.itemStart, end: sc.start, lines: sc.itemLine - 1})
	// The name alone, not memory it might share with what the case was read from.
	sc.cf.names = append(sc.cf.names, strings.Clone(c.Name))
	return true
}

// suite reads the header as Parse reads a file, but for the cases: nil when it has a problem,
// or does not read as the whole file does.
func (sc *caseScan) suite() *Suite {
	var doc yaml.Node
	if err := yaml.Unmarshal(sc.header.Bytes(), &doc); err != nil {
		return nil
	}
	// A flow mapping ({...}) may hold the lines of a header, not those of a block sequence.
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode ||
		doc.Content[0].Style&yaml.FlowStyle != 0 {
		return nil
	}
	top := doc.Content[0]
	p := &parser{path: sc.cf.path, dir: filepath.Dir(sc.cf.path)}
	s, cases := p.header(top)
	// An alias after the list may stand for an anchor a case redefined, which the header read
	// alone does not see.
	if len(p.errs) > 0 || !sc.isCasesValue(top, cases) || (sc.anchors && hasAlias(top)) {
		return nil
	}
	return s
}

// isCasesValue reports whether cases, the header's value of cases:, is the empty value of the
// `cases:` line found: then the lines the scan took for the cases are the list's in the file.
func (sc *caseScan) isCasesValue(top, cases *yaml.Node) bool {
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "cases" && k.Line == sc.casesLine && k.Column == 1 {
			return k.Style == 0 && k.Tag == "!!str" && v == cases && v.Kind == yaml.ScalarNode &&
				v.Tag == "!!null" && v.Value == "" && v.Anchor == "" && v.Style == 0
		}
	}
	return false
}

// isCasesKey reports whether a line starting "cases:" is the key alone, but for a comment.
func isCasesKey(line []byte) bool {
	after := line[len("cases:"):]
	rest := bytes.TrimLeft(after, " ")
	return len(rest) == 0 || (rest[0] == '#' && len(rest) < len(after))
}

// isDash reports whether a line's text after its indentation starts a sequence's item.
func isDash(rest []byte) bool {
	return bytes.Equal(rest, []byte("-")) || bytes.HasPrefix(rest, []byte("- "))
}

// indentOf is the number of spaces a line starts with.
func indentOf(line []byte) int {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}
