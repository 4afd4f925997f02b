package manifest

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	yamlv3 "go.yaml.in/yaml/v3"
)

// locator finds the line of a field in a document, to point errors about List items and
// unknown fields at their own line. The document is parsed again with a YAML parser that keeps
// positions (JSON is YAML too), only when a line is asked for.
type locator struct {
	text      []byte
	firstLine int // the line of the file text starts at
	// columnShift is how many columns the text's lines were moved left from the file's.
	columnShift int
	once        sync.Once
	root        *yamlv3.Node
}

// line returns the line in the file of the field at path (map keys as strings, list indexes as
// ints): the line of its key, or of the deepest part of the path that was found; 0 when the
// document cannot be parsed again.
func (l *locator) line(path []any) int {
	line, _, _ := l.position(path)
	return line
}

// position returns the line and column in the file of the field at path, as line does, and how
// many elements of the path were found.
func (l *locator) position(path []any) (line, column, depth int) {
	if l == nil {
		return 0, 0, 0
	}
	l.once.Do(func() {
		var root yamlv3.Node
		if err := yamlv3.Unmarshal(l.text, &root); err == nil && len(root.Content) > 0 {
			l.root = root.Content[0]
		}
	})
	if l.root == nil {
		return 0, 0, 0
	}
	node, key := l.root, l.root
	for _, element := range path {
		node = resolveAlias(node)
		next, at := child(node, element)
		if next == nil {
			break
		}
		node, key = next, at
		depth++
	}
	return l.firstLine + key.Line - 1, key.Column + l.columnShift, depth
}

func resolveAlias(node *yamlv3.Node) *yamlv3.Node {
	// Bounded: an alias can only refer to an anchor defined before it.
	for i := 0; i < 16 && node.Kind == yamlv3.AliasNode && node.Alias != nil; i++ {
		node = node.Alias
	}
	return node
}

// child returns the node under node for a key or an index, and the node that names it: the
// key, or the item itself.
func child(node *yamlv3.Node, element any) (*yamlv3.Node, *yamlv3.Node) {
	switch element := element.(type) {
	case string:
		if node.Kind != yamlv3.MappingNode {
			return nil, nil
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == element {
				return node.Content[i+1], node.Content[i]
			}
		}
	case int:
		if node.Kind == yamlv3.SequenceNode && element >= 0 && element < len(node.Content) {
			return node.Content[element], node.Content[element]
		}
	}
	return nil, nil
}

// parseFieldPath splits a path of the JSON decoder's strict errors, e.g.
// "webhooks[0].clientConfig.sevice", into keys and indexes. Keys that contain dots (label keys)
// cannot be told apart; the locator then stops at their parent, which is close enough.
func parseFieldPath(path string) []any {
	var elements []any
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			elements = append(elements, name)
		}
		for rest != "" {
			index, after, found := strings.Cut(rest, "]")
			if !found {
				break
			}
			if n, err := strconv.Atoi(index); err == nil {
				elements = append(elements, n)
			}
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return elements
}

// overridesOnlyMergedKeys says whether a YAML document uses merge keys ("<<") and repeats no
// key within one mapping: then the strict conversion's "already set in map" errors are about
// keys that override merged ones, which YAML allows.
func overridesOnlyMergedKeys(text []byte) bool {
	if !bytes.Contains(text, []byte("<<")) {
		return false
	}
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(text, &root); err != nil {
		return false
	}
	merges := false
	var walk func(n *yamlv3.Node, depth int) bool
	walk = func(n *yamlv3.Node, depth int) bool {
		if depth > 256 {
			return false
		}
		if n.Kind == yamlv3.MappingNode {
			seen := map[string]bool{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i]
				if key.Tag == "!!merge" || key.Value == "<<" {
					merges = true
					continue
				}
				if seen[key.Value] {
					return false
				}
				seen[key.Value] = true
			}
		}
		for _, c := range n.Content {
			if !walk(c, depth+1) {
				return false
			}
		}
		return true
	}
	return walk(&root, 0) && merges
}
