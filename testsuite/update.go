package testsuite

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/admitkit/admit/engine"
)

// Update replaces the expectations of c with what res shows, as golden files are updated: the
// decision always, the rejection's code and message (a messageRegexp the message still matches
// is kept), warnings when there are some or the case listed them, the webhooks and policies
// called, and the webhook or policy that rejected the object, with its outcome (so that the
// case fails when another step rejects it instead); reason, audit annotations, the other
// outcomes and fields only where the case checked them, with the keys it checked. The rest of
// the file is left as it was.
func (c *Case) Update(res *engine.Result) error {
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
	if outcomes := updatedOutcomes(old, res); old.Has("outcomes") || len(outcomes) > 0 {
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, name := range sortedKeys(outcomes) {
			m.Content = append(m.Content, scalar(name, "!!str"), scalar(outcomes[name], "!!str"))
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
	c.files = nil
	if old.Has("object") || old.Has("wholeObject") {
		var got any
		if len(res.Object) > 0 {
			if err := yamlOrJSON(res.Object, &got); err != nil {
				return fmt.Errorf("case %q: reading the admitted object: %w", c.Name, err)
			}
		}
		if old.Has("object") {
			node, err := c.documentNode("object", old.ObjectFile, project(old.Object, got))
			if err != nil {
				return err
			}
			add("object", node)
		}
		if old.Has("wholeObject") {
			node, err := c.documentNode("wholeObject", old.WholeObjectFile, orderedObject(res.Object))
			if err != nil {
				return err
			}
			add("wholeObject", node)
		}
	}
	keepComments(c.expectNode(), expect)
	c.updated = expect
	return nil
}

// documentNode is the value an object expectation is rewritten with: the document inline, or,
// when the expectation names a file, that file's name and the file rewritten with value.
func (c *Case) documentNode(key, file string, value any) (*yaml.Node, error) {
	node, ok := value.(*yaml.Node)
	if !ok {
		node = &yaml.Node{}
		if err := node.Encode(value); err != nil {
			return nil, fmt.Errorf("case %q: expect.%s: %w", c.Name, key, err)
		}
	}
	if file == "" {
		return node, nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return nil, fmt.Errorf("case %q: expect.%s: %w", c.Name, key, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if c.files == nil {
		c.files = map[string][]byte{}
	}
	c.files[file] = buf.Bytes()
	return c.expectValue(key, file), nil
}

// orderedObject is the admitted object as YAML in the order the apiserver writes it (apiVersion,
// kind, metadata, spec...), without VolatileFields; null when there is none.
func orderedObject(raw []byte) *yaml.Node {
	var doc yaml.Node
	if len(raw) == 0 || yaml.Unmarshal(raw, &doc) != nil || len(doc.Content) != 1 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	obj := doc.Content[0]
	plainStyle(obj)
	if obj.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(obj.Content); i += 2 {
			if meta := obj.Content[i+1]; obj.Content[i].Value == "metadata" && meta.Kind == yaml.MappingNode {
				var kept []*yaml.Node
				for j := 0; j+1 < len(meta.Content); j += 2 {
					if !slices.Contains(VolatileFields(), meta.Content[j].Value) {
						kept = append(kept, meta.Content[j], meta.Content[j+1])
					}
				}
				meta.Content = kept
			}
		}
	}
	return obj
}

// plainStyle turns JSON's flow style and quoting into YAML's block style. A string is quoted
// as the encoder quotes a Go string: also when YAML 1.1 readers (kubectl) would take it for
// another type ("y", "on").
func plainStyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		var encoded yaml.Node
		if err := encoded.Encode(n.Value); err == nil {
			n.Style = encoded.Style
		}
	}
	for _, c := range n.Content {
		plainStyle(c)
	}
}

// expectNode is the case's expect mapping as written (an alias followed to its anchor).
func (c *Case) expectNode() *yaml.Node {
	if k := c.expectKey(); k != nil {
		for i := 0; i+1 < len(c.node.Content); i += 2 {
			if c.node.Content[i] == k {
				return resolve(c.node.Content[i+1])
			}
		}
	}
	return nil
}

// expectValue is the value of key in the case's expect mapping as written (a file name), or
// fallback.
func (c *Case) expectValue(key, fallback string) *yaml.Node {
	if e := c.expectNode(); e != nil && e.Kind == yaml.MappingNode {
		for _, kv := range pairs(e) {
			if kv[0].Value == key {
				return &yaml.Node{Kind: kv[1].Kind, Style: kv[1].Style, Tag: kv[1].Tag, Value: kv[1].Value}
			}
		}
	}
	return scalar(fallback, "!!str")
}

// keepComments carries the comments of the expectations as written over to their rewritten
// form, key by key: a comment says why an expectation holds, and a golden-file update must not
// drop it.
func keepComments(old, updated *yaml.Node) {
	if old == nil || updated == nil {
		return
	}
	switch {
	case old.Kind == yaml.MappingNode && updated.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(updated.Content); i += 2 {
			k, v := updated.Content[i], updated.Content[i+1]
			for _, kv := range pairs(old) {
				if kv[0].Value != k.Value {
					continue
				}
				// Foot comments are left out: the comment lines after the block stay in the
				// file as they are (see blockEnd), and would be written twice.
				ok, ov := kv[0], resolve(kv[1])
				k.HeadComment, k.LineComment = ok.HeadComment, ok.LineComment
				if ov.LineComment != "" {
					if isBlock(v) && k.LineComment == "" {
						// "called: [x] # why" becomes a block list: the comment goes to its key.
						k.LineComment = ov.LineComment
					} else if !isBlock(v) {
						v.LineComment = ov.LineComment
					}
				}
				keepComments(ov, v)
				break
			}
		}
	case old.Kind == yaml.SequenceNode && updated.Kind == yaml.SequenceNode:
		for i := range min(len(old.Content), len(updated.Content)) {
			o, u := resolve(old.Content[i]), updated.Content[i]
			u.HeadComment, u.LineComment = o.HeadComment, o.LineComment
			keepComments(o, u)
		}
	}
}

// isBlock says whether the encoder writes n over several lines.
func isBlock(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0
}

// Files are the expectation files Update rewrote (expect.object or wholeObject given as a
// file), with their new content. Two cases that name one file and disagree on it are an error.
func (s *Suite) Files() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, c := range s.Cases {
		for file, data := range c.files {
			if prev, ok := out[file]; ok && !bytes.Equal(prev, data) {
				return nil, fmt.Errorf("%s:%d: case %q: --update would write %s differently from another case that names it", s.Path, c.Line, c.Name, file)
			}
			out[file] = data
		}
	}
	return out, nil
}

// updatedFields gives each path the case checked its value in the admitted object.
func (c *Case) updatedFields(res *engine.Result) (*yaml.Node, error) {
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
		head := lines[start][:key.Column-1] + "expect:"
		comment := key.LineComment
		if value := c.expectValueNode(); value != nil {
			if value.Anchor != "" {
				// Other cases may alias this block: the anchor stays, on the new one.
				head += " &" + value.Anchor
			}
			if comment == "" && value.Kind != yaml.AliasNode {
				comment = value.LineComment // after a flow mapping: expect: {...} # why
			}
		}
		if comment != "" {
			head += " " + comment
		}
		head += "\n"
		replaced := append([]string{head}, block...)
		lines = append(lines[:start], append(replaced, lines[end:]...)...)
	}
	return []byte(strings.Join(lines, "")), nil
}

// expectValueNode is the value of the case's expect key as written: a mapping, or an alias.
func (c *Case) expectValueNode() *yaml.Node {
	for i := 0; i+1 < len(c.node.Content); i += 2 {
		if c.node.Content[i].Value == "expect" {
			return c.node.Content[i+1]
		}
	}
	return nil
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

// updatedOutcomes are the outcomes an updated case expects: those it checked, as they are now,
// and the webhook's or policy's that rejected the object — the step that decided.
func updatedOutcomes(old Expect, res *engine.Result) map[string]string {
	got := Outcomes(res)
	out := map[string]string{}
	for name := range old.Outcomes {
		if outcome, ok := got[name]; ok {
			out[name] = outcome
		}
	}
	if row := res.Rejecting(); !res.Allowed && row != nil && isCall(*row) {
		out[row.Name] = got[row.Name]
	}
	return out
}
