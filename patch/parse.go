package patch

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unicode/utf8"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack of
// the recursive diff. It is the limit encoding/json applies too, so any
// document the standard library accepts is accepted here.
const maxDepth = 10000

// kind is the JSON type of a token. Literals get a kind each so that two
// literals are equal exactly when their kinds are.
type kind uint8

const (
	kindNull kind = iota + 1
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindObject
	kindArray
)

// token is one JSON value of a parsed document. Object members are stored as
// a key token (a string) followed by the value's tokens, so the children of a
// container are walked with next and never need a separate index.
type token struct {
	start, end int32 // byte range of the value in the document, quotes and brackets included
	next       int32 // index of the first token after this value and everything inside it
	kind       kind
	escaped    bool // string that contains a backslash escape, so its bytes are not its value
}

// document is a validated JSON text with its tokens in document order
// (a "tape"): skipping any subtree is one lookup, and every value keeps its
// exact source bytes for cheap equality tests and lossless copies.
type document struct {
	data   []byte
	tokens []token
	spaced bool // whitespace occurs between tokens, so copies of values must be compacted
}

// bytesOf returns the source bytes of token t.
func (d *document) bytesOf(t int32) []byte {
	tok := &d.tokens[t]
	return d.data[tok.start:tok.end]
}

// SyntaxError reports that an argument of Diff, Lossless or Apply, or the
// value of an Operation being marshalled or applied, is not valid JSON.
type SyntaxError struct {
	Document string // what is at fault: "original", "modified", "raw", "before", "after", "target" (of Apply) or "value"
	Offset   int    // byte offset in that argument where the problem was found
	Reason   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s document: invalid JSON at offset %d: %s", e.Document, e.Offset, e.Reason)
}

// parse validates data as one JSON value (RFC 8259, UTF-8 only) and returns its tokens.
func parse(name string, data []byte) (*document, error) {
	p := parser{data: data, record: true}
	// Kubernetes objects run one token per 7 to 10 bytes (short strings,
	// arrays of small objects). Growing the slice copies it, which costs
	// more than zeroing some unused capacity, so start above that density.
	p.tokens = make([]token, 0, len(data)/6+16)
	if err := p.document(name); err != nil {
		return nil, err
	}
	return &document{data: data, tokens: p.tokens, spaced: p.spaced}, nil
}

// validate checks data like parse does without building tokens; it is the
// cheap path for arguments whose structure is never needed. It also tells
// whether the text has whitespace between tokens.
func validate(name string, data []byte) (spaced bool, err error) {
	p := parser{data: data}
	err = p.document(name)
	return p.spaced, err
}

type parser struct {
	data   []byte
	tokens []token
	record bool
	depth  int
	spaced bool

	errOffset int
	errReason string
}

func (p *parser) document(name string) error {
	if len(p.data) >= math.MaxInt32 {
		return &SyntaxError{Document: name, Offset: 0, Reason: "document larger than 2 GiB"}
	}
	i := p.value(0)
	if i >= 0 {
		if i = p.skipSpace(i); i < len(p.data) {
			i = p.fail(i, fmt.Sprintf("unexpected %s after the top-level value", describe(p.data[i])))
		}
	}
	if i < 0 {
		return &SyntaxError{Document: name, Offset: p.errOffset, Reason: p.errReason}
	}
	return nil
}

// fail records the first error and returns the -1 position that unwinds the parse.
func (p *parser) fail(offset int, reason string) int {
	p.errOffset, p.errReason = offset, reason
	return -1
}

func (p *parser) skipSpace(i int) int {
	start := i
	for i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	if i != start {
		p.spaced = true
	}
	return i
}

// open appends a container token whose end and next are filled in by close.
func (p *parser) open(i int, k kind) int {
	if !p.record {
		return -1
	}
	p.tokens = append(p.tokens, token{start: int32(i), kind: k})
	return len(p.tokens) - 1
}

func (p *parser) close(t, end int) {
	if t >= 0 {
		p.tokens[t].end = int32(end)
		p.tokens[t].next = int32(len(p.tokens))
	}
}

func (p *parser) scalar(start, end int, k kind, escaped bool) {
	if p.record {
		p.tokens = append(p.tokens, token{start: int32(start), end: int32(end), next: int32(len(p.tokens) + 1), kind: k, escaped: escaped})
	}
}

// value parses the value at or after i and returns the position after it, or -1.
func (p *parser) value(i int) int {
	i = p.skipSpace(i)
	if i >= len(p.data) {
		return p.fail(i, "unexpected end of input, expected a value")
	}
	switch c := p.data[i]; c {
	case '"':
		return p.string(i)
	case '{':
		return p.object(i)
	case '[':
		return p.array(i)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.number(i)
	case 't':
		return p.literal(i, "true", kindTrue)
	case 'f':
		return p.literal(i, "false", kindFalse)
	case 'n':
		return p.literal(i, "null", kindNull)
	default:
		return p.fail(i, fmt.Sprintf("unexpected %s, expected a value", describe(c)))
	}
}

func (p *parser) enter(i int) bool {
	p.depth++
	if p.depth > maxDepth {
		p.fail(i, fmt.Sprintf("nesting deeper than %d levels", maxDepth))
		return false
	}
	return true
}

func (p *parser) object(i int) int {
	if !p.enter(i) {
		return -1
	}
	t := p.open(i, kindObject)
	i = p.skipSpace(i + 1)
	if i < len(p.data) && p.data[i] == '}' {
		p.close(t, i+1)
		p.depth--
		return i + 1
	}
	for {
		i = p.skipSpace(i)
		if i >= len(p.data) {
			return p.fail(i, "unexpected end of input in object, expected a member name")
		}
		if p.data[i] != '"' {
			return p.fail(i, fmt.Sprintf("unexpected %s, expected a member name in double quotes", describe(p.data[i])))
		}
		if i = p.string(i); i < 0 {
			return -1
		}
		i = p.skipSpace(i)
		if i >= len(p.data) || p.data[i] != ':' {
			return p.fail(i, "expected ':' after member name")
		}
		if i = p.value(i + 1); i < 0 {
			return -1
		}
		i = p.skipSpace(i)
		if i >= len(p.data) {
			return p.fail(i, "unexpected end of input in object, expected ',' or '}'")
		}
		switch p.data[i] {
		case ',':
			i++
		case '}':
			p.close(t, i+1)
			p.depth--
			return i + 1
		default:
			return p.fail(i, fmt.Sprintf("unexpected %s in object, expected ',' or '}'", describe(p.data[i])))
		}
	}
}

func (p *parser) array(i int) int {
	if !p.enter(i) {
		return -1
	}
	t := p.open(i, kindArray)
	i = p.skipSpace(i + 1)
	if i < len(p.data) && p.data[i] == ']' {
		p.close(t, i+1)
		p.depth--
		return i + 1
	}
	for {
		if i = p.value(i); i < 0 {
			return -1
		}
		i = p.skipSpace(i)
		if i >= len(p.data) {
			return p.fail(i, "unexpected end of input in array, expected ',' or ']'")
		}
		switch p.data[i] {
		case ',':
			i++
		case ']':
			p.close(t, i+1)
			p.depth--
			return i + 1
		default:
			return p.fail(i, fmt.Sprintf("unexpected %s in array, expected ',' or ']'", describe(p.data[i])))
		}
	}
}

func (p *parser) literal(i int, word string, k kind) int {
	end := i + len(word)
	if end > len(p.data) || string(p.data[i:end]) != word {
		return p.fail(i, fmt.Sprintf("invalid literal, expected %q", word))
	}
	p.scalar(i, end, k, false)
	return end
}

func (p *parser) number(i int) int {
	start, data := i, p.data
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && isDigit(data[i]):
		i = skipDigits(data, i)
	default:
		return p.fail(i, "invalid number, expected a digit")
	}
	if i < len(data) && data[i] == '.' {
		if i+1 >= len(data) || !isDigit(data[i+1]) {
			return p.fail(i+1, "invalid number, expected a digit after the decimal point")
		}
		i = skipDigits(data, i+1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return p.fail(i, "invalid number, expected a digit in the exponent")
		}
		i = skipDigits(data, i)
	}
	p.scalar(start, i, kindNumber, false)
	return i
}

// SWAR constants: a byte value repeated in all eight lanes of a word.
const (
	lanes    = 0x0101010101010101
	highBits = 0x8080808080808080
)

// specialBytes returns a mask with the high bit set in each of the eight
// byte lanes of w that needs attention in a string: a quote, a backslash,
// a control character or a non-ASCII byte. The lowest set lane is always
// exact, so its trailing zeros locate the first such byte. Strings dominate
// Kubernetes objects, so testing a word per step instead of a byte per step
// is where most of the parse time is saved.
func specialBytes(w uint64) uint64 {
	quote := w ^ (lanes * '"')
	backslash := w ^ (lanes * '\\')
	// A zero lane in quote or backslash, or a lane below 0x20 in w, borrows
	// on subtraction and so raises its high bit; non-ASCII lanes have it
	// already. A borrow only runs upwards, past the first special lane.
	return ((quote - lanes) | (backslash - lanes) | (w - lanes*0x20) | w) & highBits
}

func (p *parser) string(i int) int {
	start, data := i, p.data
	escaped := false
	i++
	for {
		for i+8 <= len(data) {
			if m := specialBytes(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(data) {
			return p.fail(start, "unterminated string")
		}
		switch c := data[i]; {
		case c == '"':
			p.scalar(start, i+1, kindString, escaped)
			return i + 1
		case c == '\\':
			escaped = true
			if i = p.escape(i); i < 0 {
				return -1
			}
		case c < 0x20:
			return p.fail(i, fmt.Sprintf("control character %s in string (must be escaped)", describe(c)))
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return p.fail(i, "invalid UTF-8 in string")
			}
			i += size
		default:
			i++
		}
	}
}

// escape validates the escape sequence at i (a backslash) and returns the position after it.
func (p *parser) escape(i int) int {
	if i+1 >= len(p.data) {
		return p.fail(i, "unterminated escape sequence")
	}
	switch p.data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2
	case 'u':
		if i+6 > len(p.data) {
			return p.fail(i, `unterminated \u escape`)
		}
		for _, h := range p.data[i+2 : i+6] {
			if _, ok := hexValue(h); !ok {
				return p.fail(i, `invalid \u escape, expected four hexadecimal digits`)
			}
		}
		return i + 6
	default:
		return p.fail(i, fmt.Sprintf("invalid escape sequence \\%s", describe(p.data[i+1])))
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipDigits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

func hexValue(c byte) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10), true
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10), true
	}
	return 0, false
}

// describe names a byte for an error message without printing raw control or non-UTF-8 bytes.
func describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("character %q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// Valid reports whether data is one JSON value as Diff, Lossless and Apply
// accept it: RFC 8259, UTF-8 only, nesting up to 10000 levels. It is
// several times faster than encoding/json.Valid, which accepts invalid UTF-8.
func Valid(data []byte) bool {
	_, err := validate("value", data)
	return err == nil
}
