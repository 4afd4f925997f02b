package testsuite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parser collects every problem of a file, each with its line.
type parser struct {
	path, dir string
	errs      []error
	// current is the case being read: the problems of the files it names are its own, so that
	// one case's missing file does not keep the others from running.
	current *Case
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s:%d: %s", p.path, n.Line, fmt.Sprintf(format, args...)))
}

// fileErrorf records a problem of a file the current case names: the case's, when there is one.
func (p *parser) fileErrorf(n *yaml.Node, format string, args ...any) {
	if p.current == nil {
		p.errorf(n, format, args...)
		return
	}
	err := fmt.Sprintf("%s:%d: %s", p.path, n.Line, fmt.Sprintf(format, args...))
	if p.current.Err != "" {
		err = p.current.Err + "\n" + err
	}
	p.current.Err = err
}

// yamlLine finds the line in a YAML parser's message: "yaml: line 3: ...".
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlError places a YAML parser's error as the other messages are placed, "file:line: ...",
// instead of "file: yaml: line N: ...".
func yamlError(path string, err error) string {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s:%s: yaml: %s", path, m[1], msg[len(m[0]):])
	}
	return fmt.Sprintf("%s: %s", path, msg)
}

// resolve follows an alias (*name) to the node its anchor (&name) marks, so that a reused
// anchor reads as the node it stands for.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// pairs lists a mapping's keys and values, the entries of merge keys (<<: *anchor) after its
// own, as YAML merges them: a key of the mapping wins over a merged one.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	var own, merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag != "!!merge" {
			own = append(own, [2]*yaml.Node{k, v})
			continue
		}
		sources := []*yaml.Node{resolve(v)}
		if sources[0] != nil && sources[0].Kind == yaml.SequenceNode {
			sources = sources[0].Content
		}
		for _, src := range sources {
			if src = resolve(src); src != nil && src.Kind == yaml.MappingNode {
				merged = append(merged, pairs(src)...)
			}
		}
	}
	out := own
	for _, m := range merged {
		if !slices.ContainsFunc(out, func(o [2]*yaml.Node) bool { return o[0].Value == m[0].Value }) {
			out = append(out, m)
		}
	}
	return out
}

// fields returns a mapping's values by key, reporting keys not in known.
func (p *parser) fields(n *yaml.Node, what string, known ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping", what)
		return out
	}
	for _, kv := range pairs(n) {
		k, v := kv[0], resolve(kv[1])
		if !slices.Contains(known, k.Value) {
			p.errorf(k, "unknown field %q in %s (known: %s)", k.Value, what, strings.Join(known, ", "))
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.errorf(k, "%s: %q is set twice", what, k.Value)
		}
		out[k.Value] = v
	}
	return out
}

func (p *parser) str(n *yaml.Node, what string) string {
	n = resolve(n)
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errorf(n, "%s must be a string", what)
		return ""
	}
	return n.Value
}

func (p *parser) strs(n *yaml.Node, what string) []string {
	n = resolve(n)
	if n == nil {
		return nil
	}
	var out []string
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list of strings", what)
		return nil
	}
	for _, e := range n.Content {
		out = append(out, p.str(e, what))
	}
	return out
}

func (p *parser) boolean(n *yaml.Node, what string) bool {
	if n == nil {
		return false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		p.errorf(n, "%s must be true or false", what)
	}
	return b
}

// paths resolves paths against the file's directory.
func (p *parser) paths(n *yaml.Node, what string) []string {
	var out []string
	for _, s := range p.strs(n, what) {
		out = append(out, p.resolve(s))
	}
	return out
}

func (p *parser) resolve(s string) string {
	if s == "" || s == "-" || filepath.IsAbs(s) {
		return s
	}
	return filepath.Join(p.dir, s)
}
