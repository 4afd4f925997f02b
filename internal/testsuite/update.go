package testsuite

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/admitkit/admit/dispatch"
)

// Update replaces the expectations of c with what res shows, as golden files are updated: the
// decision always, the rejection's code and message (a messageRegexp the message still matches
// is kept), warnings when there are some or the case listed them, the webhooks and policies
// called; reason, audit annotations, outcomes and fields only where the case checked them, with
// the keys it checked. The rest of the file is left as it was.
func (c *Case) Update(res *dispatch.Result) error {
	expect := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, value *yaml.Node) {
		expect.Content = append(expect.Content, scalar(key, "!!str"), value)
	}
	old := c.Expect
	add("allowed", scalar(strconv.FormatBool(res.Allowed), "!!bool"))
	if !res.Allowed && res.Status != nil {
		add("code", scalar(strconv.Itoa(int(res.Status.Code)), "!!int"))
		if old.Has("reason") {
			add("reason", scalar(string(res.Status.Reason), "!!str"))
		}
		if re, err := compileRegexp(old.MessageRegexp); old.MessageRegexp != "" && err == nil && re.MatchString(res.Status.Message) {
			add("messageRegexp", scalar(old.MessageRegexp, "!!str"))
		} else {
			add("message", scalar(res.Status.Message, "!!str"))
		}
	}
	if len(res.Warnings) > 0 || old.Has("warnings") {
		add("warnings", stringList(res.Warnings))
	}
	if old.Has("auditAnnotations") {
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range sortedKeys(res.AuditAnnotations) {
			m.Content = append(m.Content, scalar(k, "!!str"), scalar(res.AuditAnnotations[k], "!!str"))
		}
		add("auditAnnotations", m)
	}
	add("called", stringList(Called(res)))
	if old.Has("outcomes") {
		got := Outcomes(res)
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, name := range sortedKeys(old.Outcomes) {
			if outcome, ok := got[name]; ok {
				m.Content = append(m.Content, scalar(name, "!!str"), scalar(outcome, "!!str"))
			}
		}
		add("outcomes", m)
	}
	if old.Has("fields") {
		fields, err := c.updatedFields(res)
		if err != nil {
			return err
		}
		add("fields", fields)
	}

	c.updated = expect
	return nil
}

// updatedFields gives each path the case checked its value in the admitted object.
func (c *Case) updatedFields(res *dispatch.Result) (*yaml.Node, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	var obj any
	if len(res.Object) > 0 {
		if err := yamlOrJSON(res.Object, &obj); err != nil {
			return nil, fmt.Errorf("case %q: reading the admitted object: %w", c.Name, err)
		}
	}
	for _, path := range sortedKeys(c.Expect.Fields) {
		value, found, err := lookup(obj, path)
		if err != nil {
			return nil, err
		}
		var node yaml.Node
		if !found {
			value = nil
		}
		if err := node.Encode(value); err != nil {
			return nil, fmt.Errorf("case %q: field %s: %w", c.Name, path, err)
		}
		m.Content = append(m.Content, scalar(path, "!!str"), &node)
	}
	return m, nil
}

// yamlOrJSON decodes JSON (YAML's subset) with the JSON number rules the checks use.
func yamlOrJSON(data []byte, v *any) error {
	var raw any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return err
	}
	*v = normalize(raw)
	return nil
}

func scalar(value, tag string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

func stringList(list []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	if len(list) == 0 {
		n.Style = yaml.FlowStyle // []
	}
	for _, s := range list {
		n.Content = append(n.Content, scalar(s, "!!str"))
	}
	return n
}

// Encode returns the file with the expectations Update replaced and every other byte as it was:
// each updated case's expect block is cut out of the text and the new one written in its place,
// at the same indentation.
func (s *Suite) Encode() ([]byte, error) {
	lines := strings.SplitAfter(string(s.data), "\n")
	var updated []*Case
	for _, c := range s.Cases {
		if c.updated != nil {
			updated = append(updated, c)
		}
	}
	// From the bottom up, so that the lines of the cases above stay where they are.
	sort.Slice(updated, func(i, j int) bool { return updated[i].Line > updated[j].Line })
	for _, c := range updated {
		key := c.expectKey()
		if key == nil {
			return nil, fmt.Errorf("%s:%d: case %q has no expect to rewrite", s.Path, c.Line, c.Name)
		}
		start := key.Line - 1
		end := blockEnd(lines, start, key.Column-1)
		block, err := renderBlock(c.updated, strings.Repeat(" ", key.Column-1+2))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: case %q: %w", s.Path, c.Line, c.Name, err)
		}
		head := lines[start][:key.Column-1] + "expect:\n"
		replaced := append([]string{head}, block...)
		lines = append(lines[:start], append(replaced, lines[end:]...)...)
	}
	return []byte(strings.Join(lines, "")), nil
}

// expectKey is the key node of the case's expect.
func (c *Case) expectKey() *yaml.Node {
	for i := 0; i+1 < len(c.node.Content); i += 2 {
		if c.node.Content[i].Value == "expect" {
			return c.node.Content[i]
		}
	}
	return nil
}

// blockEnd returns the index of the first line after the block that starts at line start with a
// key at column col (0-based): the block is its own line and every line indented deeper, blank
// and comment lines within it included; blank and comment lines at its end stay outside.
func blockEnd(lines []string, start, col int) int {
	end := start + 1
	last := start + 1
	for end < len(lines) {
		trimmed := strings.TrimLeft(lines[end], " ")
		indent := len(lines[end]) - len(trimmed)
		content := strings.TrimSpace(trimmed)
		if content == "" || strings.HasPrefix(content, "#") {
			end++
			continue
		}
		if indent <= col {
			break
		}
		end++
		last = end
	}
	return last
}

// renderBlock writes a mapping as YAML lines, each prefixed with indent.
func renderBlock(n *yaml.Node, indent string) ([]string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line != "" {
			out = append(out, indent+line)
		}
	}
	return out, nil
}
