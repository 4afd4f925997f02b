package typedjson

import (
	"unicode/utf8"

	"github.com/admitkit/admit/internal/jsonstring"
)

// state is one decode: the input and the position in it.
type state struct {
	data []byte
	pos  int
}

func (s *state) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// parseInt is strconv.ParseInt(num, 10, 64) for a valid JSON number, without a string.
func parseInt(num []byte) (int64, bool) {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	u, ok := parseUint(num)
	switch {
	case !ok:
		return 0, false
	case neg && u <= 1<<63:
		return -int64(u-1) - 1, true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

// parseUint is strconv.ParseUint(num, 10, 64) for a valid JSON number: digits only.
func parseUint(num []byte) (uint64, bool) {
	if len(num) == 0 || len(num) > 20 {
		return 0, false
	}
	var n uint64
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// next consumes the comma before another member or element and reports true, or the closing
// byte and reports false; anything else leaves pos after len(data) or on the offending byte so
// that the caller's check fails.
func (s *state) next(closing byte) bool {
	s.space()
	if s.pos >= len(s.data) {
		s.pos = len(s.data) + 1
		return false
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		return true
	case closing:
		s.pos++
		return false
	}
	s.pos = len(s.data) + 1
	return false
}

// key reads a member name and its colon. Names with escapes are left to the reference decoder.
func (s *state) key() ([]byte, bool) {
	s.space()
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, false
	}
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			s.space()
			if s.pos >= len(s.data) || s.data[s.pos] != ':' {
				return nil, false
			}
			s.pos++
			return s.data[start:i], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string and returns its value: the input's bytes when it has no escapes, a decoded
// copy otherwise. Invalid UTF-8, which encoding/json replaces, is left to it.
func (s *state) str() ([]byte, bool) {
	start := s.pos + 1
	i := start
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return s.data[start:i], true
		case c == '\\':
			return s.escapedStr(start, i)
		case c < 0x20:
			return nil, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			i += size
		}
	}
	return nil, false
}

// escapedStr decodes a string with escapes whose first escape is at i, as encoding/json does:
// a lone surrogate becomes U+FFFD.
func (s *state) escapedStr(start, i int) ([]byte, bool) {
	out := make([]byte, i-start, i-start+16)
	copy(out, s.data[start:i])
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return out, true
		case c < 0x20:
			return nil, false
		case c == '\\':
			var n int
			if out, n = jsonstring.AppendEscape(out, s.data[i:]); n == 0 {
				return nil, false
			}
			i += n
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			out = append(out, s.data[i:i+size]...)
			i += size
		}
	}
	return nil, false
}

// number reads a number with JSON's grammar and returns its text.
func (s *state) number() ([]byte, bool) {
	start, i := s.pos, s.pos
	digits := func() bool {
		first := i
		for i < len(s.data) && s.data[i] >= '0' && s.data[i] <= '9' {
			i++
		}
		return i > first
	}
	if i < len(s.data) && s.data[i] == '-' {
		i++
	}
	switch {
	case i < len(s.data) && s.data[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(s.data) && s.data[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(s.data) && (s.data[i] == 'e' || s.data[i] == 'E') {
		i++
		if i < len(s.data) && (s.data[i] == '+' || s.data[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	s.pos = i
	return s.data[start:i], true
}

func (s *state) literal(lit string) bool {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	s.pos += len(lit)
	return true
}

// skip validates and passes the value at pos: unknown members, and the values given whole to
// UnmarshalJSON methods (which encoding/json validated before calling them).
func (s *state) skip(depth int) bool {
	s.space()
	if s.pos >= len(s.data) || depth > maxDepth {
		return false
	}
	switch c := s.data[s.pos]; c {
	case '{', '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		s.pos++
		s.space()
		if s.pos < len(s.data) && s.data[s.pos] == closing {
			s.pos++
			return true
		}
		for {
			if c == '{' {
				s.space()
				if s.pos >= len(s.data) || s.data[s.pos] != '"' {
					return false
				}
				if _, ok := s.str(); !ok {
					return false
				}
				s.space()
				if s.pos >= len(s.data) || s.data[s.pos] != ':' {
					return false
				}
				s.pos++
			}
			if !s.skip(depth + 1) {
				return false
			}
			if !s.next(closing) {
				return s.pos <= len(s.data) && s.data[s.pos-1] == closing
			}
		}
	case '"':
		_, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}
