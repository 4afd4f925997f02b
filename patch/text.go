package patch

import (
	"bytes"
	"unicode/utf8"

	"github.com/admitkit/admit/internal/jsonstring"
)

// unquote returns the value of a validated JSON string token (quotes
// included). Without escapes the value is the bytes between the quotes and
// nothing is allocated; with escapes it is decoded like encoding/json does,
// lone surrogates becoming U+FFFD, so keys match what decoders see.
func unquote(quoted []byte, escaped bool) []byte {
	s := quoted[1 : len(quoted)-1]
	if !escaped {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		// The token is validated: every escape in it reads.
		var n int
		out, n = jsonstring.AppendEscape(out, s[i:])
		i += max(n, 1)
	}
	return out
}

// stringsEqual compares two validated JSON string tokens by value, so that
// "a" and "\u0061" are equal.
func stringsEqual(x []byte, xEscaped bool, y []byte, yEscaped bool) bool {
	if !xEscaped && !yEscaped {
		return bytes.Equal(x, y)
	}
	return bytes.Equal(unquote(x, xEscaped), unquote(y, yEscaped))
}

// appendPointerToken appends one reference token of an RFC 6901 JSON
// Pointer: '~' becomes "~0" and '/' becomes "~1" (in that order of
// precedence, so "~1" in a key is written "~01").
func appendPointerToken(dst, key []byte) []byte {
	if bytes.IndexByte(key, '~') < 0 && bytes.IndexByte(key, '/') < 0 {
		return append(dst, key...)
	}
	for _, c := range key {
		switch c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// appendQuoted appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does, so the output is always valid JSON.
func appendQuoted(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendCompact appends a validated JSON value without the whitespace between its tokens.
func appendCompact(dst, value []byte) []byte {
	inString := false
	for i := 0; i < len(value); i++ {
		c := value[i]
		if inString {
			dst = append(dst, c)
			switch c {
			case '\\':
				i++
				dst = append(dst, value[i])
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			inString = true
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
