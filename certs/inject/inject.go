package inject

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"
)

// documentSeparator splits a YAML stream into documents: a line of three dashes, alone or
// followed by a comment.
var documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// CABundle sets caBundle on every webhook of the webhook configurations in a YAML stream,
// and on the conversion webhook of CustomResourceDefinitions that have one, and returns the
// stream and how many client configurations it set. Only the caBundle values change: comments,
// key order, quoting, indentation and the other documents are kept byte for byte. A document it
// cannot edit in place (a flow-style clientConfig) is written back from its parsed form, which
// keeps comments but not necessarily the layout.
func CABundle(data, bundle []byte) ([]byte, int, error) {
	encoded := base64.StdEncoding.EncodeToString(bundle)
	bounds := documentSeparator.FindAllIndex(data, -1)
	var out bytes.Buffer
	count, start, documents := 0, 0, 0
	for i := 0; i <= len(bounds); i++ {
		end := len(data)
		if i < len(bounds) {
			end = bounds[i][0]
		}
		doc := data[start:end]
		edited, n, isDocument, err := injectDocument(doc, encoded, i+1)
		if err != nil {
			return nil, 0, err
		}
		if isDocument {
			documents++
		}
		out.Write(edited)
		count += n
		if i < len(bounds) {
			out.Write(data[bounds[i][0]:bounds[i][1]])
			start = bounds[i][1]
		}
	}
	if documents == 0 {
		return nil, 0, errors.New("no documents found")
	}
	return out.Bytes(), count, nil
}

// clientConfigs returns the clientConfig nodes of the document's webhooks, after checking the
// document decodes strictly as its kind; none for other kinds.
func clientConfigs(root *yaml.Node, doc []byte, index int) ([]*yaml.Node, error) {
	var head unstructured.Unstructured
	if err := sigsyaml.Unmarshal(doc, &head.Object); err != nil {
		return nil, fmt.Errorf("document %d: %w", index, err)
	}
	strict := func(into any) error {
		if err := sigsyaml.UnmarshalStrict(doc, into); err != nil {
			return fmt.Errorf("document %d (%s %s): %w", index, head.GetKind(), head.GetName(), err)
		}
		return nil
	}
	switch {
	case head.GetAPIVersion() == "admissionregistration.k8s.io/v1" && head.GetKind() == "MutatingWebhookConfiguration":
		if err := strict(&admissionregistrationv1.MutatingWebhookConfiguration{}); err != nil {
			return nil, err
		}
	case head.GetAPIVersion() == "admissionregistration.k8s.io/v1" && head.GetKind() == "ValidatingWebhookConfiguration":
		if err := strict(&admissionregistrationv1.ValidatingWebhookConfiguration{}); err != nil {
			return nil, err
		}
	case head.GetAPIVersion() == "apiextensions.k8s.io/v1" && head.GetKind() == "CustomResourceDefinition":
		var crd apiextensionsv1.CustomResourceDefinition
		if err := strict(&crd); err != nil {
			return nil, err
		}
		if c := crd.Spec.Conversion; c == nil || c.Strategy != apiextensionsv1.WebhookConverter || c.Webhook == nil || c.Webhook.ClientConfig == nil {
			return nil, nil
		}
		cc := lookupNode(root, "spec", "conversion", "webhook", "clientConfig")
		if cc == nil {
			return nil, nil
		}
		return []*yaml.Node{cc}, nil
	default:
		return nil, nil
	}
	var out []*yaml.Node
	if webhooks := lookupNode(root, "webhooks"); webhooks != nil && webhooks.Kind == yaml.SequenceNode {
		for _, w := range webhooks.Content {
			if cc := lookupNode(w, "clientConfig"); cc != nil {
				out = append(out, cc)
			}
		}
	}
	return out, nil
}

// lookupNode follows mapping keys from n.
func lookupNode(n *yaml.Node, keys ...string) *yaml.Node {
	for _, key := range keys {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// lineEdit replaces, on one line (0-based), the bytes from column from to column to.
type lineEdit struct {
	line, from, to int
	text           string
	// insert adds text as a new line before line instead.
	insert bool
}

// injectDocument edits one document's client configurations in place; isDocument is false for
// one with nothing but comments and space.
func injectDocument(doc []byte, encoded string, index int) (_ []byte, _ int, isDocument bool, _ error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return doc, 0, false, nil
	}
	var file yaml.Node
	if err := yaml.Unmarshal(doc, &file); err != nil {
		return nil, 0, false, fmt.Errorf("document %d: %w", index, err)
	}
	if len(file.Content) == 0 {
		return doc, 0, false, nil
	}
	root := file.Content[0]
	configs, err := clientConfigs(root, doc, index)
	if err != nil || len(configs) == 0 {
		return doc, 0, true, err
	}
	lines := strings.SplitAfter(string(doc), "\n")
	var edits []lineEdit
	inPlace := true
	for _, cc := range configs {
		edit, ok := caBundleEdit(cc, lines, encoded)
		if !ok {
			inPlace = false
			break
		}
		edits = append(edits, edit)
	}
	if !inPlace {
		// Write the document back from its nodes: comments stay, the layout may not.
		for _, cc := range configs {
			setCABundleNode(cc, encoded)
		}
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(&file); err != nil {
			return nil, 0, true, fmt.Errorf("document %d: %w", index, err)
		}
		if err := enc.Close(); err != nil {
			return nil, 0, true, fmt.Errorf("document %d: %w", index, err)
		}
		return buf.Bytes(), len(configs), true, nil
	}
	// From the bottom up, so that the lines above keep their numbers.
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if e.insert {
			lines = append(lines[:e.line], append([]string{e.text}, lines[e.line:]...)...)
			continue
		}
		l := lines[e.line]
		lines[e.line] = l[:e.from] + e.text + l[e.to:]
	}
	return []byte(strings.Join(lines, "")), len(configs), true, nil
}

// caBundleEdit is the edit that gives a block-style clientConfig the caBundle: its value
// replaced when it is a one-line scalar, or a line inserted before the first key. ok is false
// when the clientConfig cannot be edited in place.
func caBundleEdit(cc *yaml.Node, lines []string, encoded string) (lineEdit, bool) {
	if cc.Kind != yaml.MappingNode || cc.Style&yaml.FlowStyle != 0 || len(cc.Content) == 0 {
		return lineEdit{}, false
	}
	for i := 0; i+1 < len(cc.Content); i += 2 {
		key, value := cc.Content[i], cc.Content[i+1]
		if key.Value != "caBundle" {
			continue
		}
		if value.Kind != yaml.ScalarNode || value.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || value.Line != key.Line {
			return lineEdit{}, false
		}
		line := lines[value.Line-1]
		from := value.Column - 1
		to := scalarEnd(line, from)
		if to < 0 {
			return lineEdit{}, false
		}
		return lineEdit{line: value.Line - 1, from: from, to: to, text: encoded}, true
	}
	first := cc.Content[0]
	indent := strings.Repeat(" ", first.Column-1)
	if strings.TrimSpace(lines[first.Line-1][:first.Column-1]) != "" {
		return lineEdit{}, false // the first key shares its line ("- clientConfig: {...}" or "- url: ...")
	}
	return lineEdit{line: first.Line - 1, text: indent + "caBundle: " + encoded + "\n", insert: true}, true
}

// scalarEnd returns where a one-line scalar starting at from ends on line: before a comment or
// the line break; -1 when the scalar does not end on the line.
func scalarEnd(line string, from int) int {
	rest := line[from:]
	switch {
	case strings.HasPrefix(rest, `"`):
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				return from + i + 1
			}
		}
		return -1
	case strings.HasPrefix(rest, `'`):
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return from + i + 1
			}
		}
		return -1
	}
	end := len(strings.TrimRight(rest, "\r\n"))
	if c := strings.Index(rest, " #"); c >= 0 && c < end {
		end = c
	}
	return from + len(strings.TrimRight(rest[:end], " \t"))
}

// setCABundleNode sets caBundle in a clientConfig mapping node.
func setCABundleNode(cc *yaml.Node, encoded string) {
	for i := 0; i+1 < len(cc.Content); i += 2 {
		if cc.Content[i].Value == "caBundle" {
			cc.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: encoded}
			return
		}
	}
	cc.Content = append([]*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "caBundle"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: encoded}}, cc.Content...)
	cc.Style &^= yaml.FlowStyle
}
