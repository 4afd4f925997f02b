package jsonscan

import "bytes"

// Scanner walks JSON text from Pos.
type Scanner struct {
	Data []byte
	Pos  int
}

// Space moves past whitespace.
func (s *Scanner) Space() {
	for s.Pos < len(s.Data) {
		switch s.Data[s.Pos] {
		case ' ', '\t', '\n', '\r':
			s.Pos++
		default:
			return
		}
	}
}

// Peek returns the next byte after whitespace, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.Space()
	if s.Pos == len(s.Data) {
		return 0
	}
	return s.Data[s.Pos]
}

// Members walks an object, calling member with each key, positioned before the key's value,
// which member must move past. It reports false for anything but an object of plain members —
// a key with an escape, a missing colon or comma — or when member does.
func (s *Scanner) Members(member func(key []byte) bool) bool {
	if s.Peek() != '{' {
		return false
	}
	s.Pos++
	if s.Peek() == '}' {
		s.Pos++
		return true
	}
	for {
		if s.Peek() != '"' {
			return false
		}
		start := s.Pos + 1
		if !s.SkipString() {
			return false
		}
		key := s.Data[start : s.Pos-1]
		if bytes.IndexByte(key, '\\') >= 0 || s.Peek() != ':' {
			return false
		}
		s.Pos++
		if !member(key) {
			return false
		}
		switch s.Peek() {
		case ',':
			s.Pos++
		case '}':
			s.Pos++
			return true
		default:
			return false
		}
	}
}

// SkipString moves past the string starting at Pos. It looks for each next quote with
// bytes.IndexByte, which is many times faster than a loop over a long string's bytes: a quote is
// the string's end unless an odd number of backslashes escapes it.
func (s *Scanner) SkipString() bool {
	for i := s.Pos + 1; i < len(s.Data); i++ {
		j := bytes.IndexByte(s.Data[i:], '"')
		if j < 0 {
			return false
		}
		i += j
		backslashes := 0
		for k := i - 1; k > s.Pos && s.Data[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			s.Pos = i + 1
			return true
		}
	}
	return false
}

// SkipValue moves past the value after whitespace: a string, a container (brackets counted
// outside strings) or a literal or number (up to the next delimiter).
func (s *Scanner) SkipValue() bool {
	switch s.Peek() {
	case 0:
		return false
	case '"':
		return s.SkipString()
	case '{', '[':
		depth := 0
		for s.Pos < len(s.Data) {
			switch s.Data[s.Pos] {
			case '"':
				if !s.SkipString() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.Pos++
					return true
				}
			}
			s.Pos++
		}
		return false
	}
	start := s.Pos
	for s.Pos < len(s.Data) {
		switch s.Data[s.Pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return s.Pos > start
		}
		s.Pos++
	}
	return s.Pos > start
}
