package patch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// container resolves all but the last reference token of path and returns
// the object or array it names, expanded, with the last token decoded.
func (a *applier) container(path string) (*node, string, error) {
	if path == "" || path[0] != '/' {
		return nil, "", errors.New(`path must start with "/"`)
	}
	n := a.root
	rest := path[1:]
	for {
		n.expand()
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return n, unescapeToken(rest), nil
		}
		key := unescapeToken(rest[:slash])
		var next *node
		if n.kind == kindObject {
			if i := n.find(key); i >= 0 {
				next = n.fields[i].value
			}
		} else if i, err := existingIndex(key, len(n.elems)); err == nil {
			next = n.elems[i]
		}
		reached := path[:len(path)-len(rest)+slash]
		if next == nil {
			return nil, "", fmt.Errorf("no value at %q", reached)
		}
		if !next.isContainer() {
			return nil, "", fmt.Errorf("the value at %q is not an object or array", reached)
		}
		n, rest = next, rest[slash+1:]
	}
}

// lookup returns the value at path, nil for a missing object member, and the
// last reference token of path.
func (a *applier) lookup(path string) (key string, v *node, err error) {
	if path == "" {
		return "", a.root, nil
	}
	parent, key, err := a.container(path)
	if err != nil {
		return "", nil, err
	}
	if parent.kind == kindObject {
		if i := parent.find(key); i >= 0 {
			return key, parent.fields[i].value, nil
		}
		return key, nil, nil
	}
	i, err := existingIndex(key, len(parent.elems))
	if err != nil {
		return "", nil, err
	}
	return key, parent.elems[i], nil
}

// existingIndex resolves a reference token naming an element of an array of
// n elements; a negative index counts from the end.
func existingIndex(token string, n int) (int, error) {
	i, err := strconv.Atoi(token)
	if err != nil {
		return 0, fmt.Errorf("%q is not an array index", token)
	}
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return 0, fmt.Errorf("index %s is out of range for an array of %d elements", token, n)
	}
	return i, nil
}

// insertIndex resolves a reference token naming where add inserts into an
// array of n elements: 0 to n, or from -(n+1) to -1 counting from the end.
func insertIndex(token string, n int) (int, error) {
	i, err := strconv.Atoi(token)
	if err != nil {
		return 0, fmt.Errorf("%q is not an array index", token)
	}
	if i < 0 {
		i += n + 1
	}
	if i < 0 || i > n {
		return 0, fmt.Errorf("index %s is out of range for inserting into an array of %d elements", token, n)
	}
	return i, nil
}

// PointerTokens splits a JSON Pointer into its reference tokens, decoded as
// Apply decodes them. The empty pointer, the whole document, has none.
func PointerTokens(pointer string) ([]string, error) {
	if pointer == "" {
		return nil, nil
	}
	if pointer[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q does not start with \"/\"", pointer)
	}
	tokens := strings.Split(pointer[1:], "/")
	for i, t := range tokens {
		tokens[i] = unescapeToken(t)
	}
	return tokens, nil
}

// unescapeToken decodes one RFC 6901 reference token: "~1" is "/" and "~0"
// is "~", read left to right; any other "~" stands for itself.
func unescapeToken(token string) string {
	if strings.IndexByte(token, '~') < 0 {
		return token
	}
	var b strings.Builder
	b.Grow(len(token))
	for i := 0; i < len(token); i++ {
		if token[i] == '~' && i+1 < len(token) && (token[i+1] == '0' || token[i+1] == '1') {
			if token[i+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			i++
			continue
		}
		b.WriteByte(token[i])
	}
	return b.String()
}
