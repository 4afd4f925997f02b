package jsonstring

import (
	"unicode/utf16"
	"unicode/utf8"
)

// AppendEscape decodes the escape sequence s starts with (s[0] is a backslash), appends what it
// stands for to dst as UTF-8, and returns the result and how many bytes of s it read: 0 when s
// does not start with a valid escape. A surrogate pair, two \u escapes, is read as one; a lone
// surrogate becomes U+FFFD, as encoding/json makes it.
func AppendEscape(dst, s []byte) ([]byte, int) {
	if len(s) < 2 || s[0] != '\\' {
		return dst, 0
	}
	switch s[1] {
	case '"', '\\', '/':
		return append(dst, s[1]), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, ok := hex4(s[2:])
		if !ok {
			return dst, 0
		}
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if low, ok := hex4(s[8:]); ok {
					if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
						return utf8.AppendRune(dst, pair), 12
					}
				}
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r), 6
	}
	return dst, 0
}

// hex4 reads four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
