package testsuite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/admitkit/admit/manifest"
)

// document reads a mapping given inline or as a file holding one document; file is the file,
// "" for an inline one.
func (p *parser) document(n *yaml.Node, caseName, what, one string) (doc map[string]any, file string, ok bool) {
	var value any
	switch n.Kind {
	case yaml.ScalarNode:
		file = p.resolve(n.Value)
		if value, ok = p.fileDocument(n, file, caseName, what, one); !ok {
			return nil, "", false
		}
	case yaml.MappingNode:
		if err := n.Decode(&value); err != nil {
			p.errorf(n, "case %q: %s: %v", caseName, what, err)
			return nil, "", false
		}
	default:
		p.errorf(n, "case %q: %s must be a file name or a mapping", caseName, what)
		return nil, "", false
	}
	doc, ok = value.(map[string]any)
	if !ok {
		p.fileErrorf(n, "case %q: %s must be a mapping", caseName, what)
	}
	return doc, file, ok
}

// fileDocument reads the one document of a file a case names.
func (p *parser) fileDocument(n *yaml.Node, file, caseName, what, one string) (any, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		p.fileErrorf(n, "case %q: %s: %v", caseName, what, err)
		return nil, false
	}
	var docs []any
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var doc any
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			p.fileErrorf(n, "case %q: %s: %s", caseName, what, yamlError(file, err))
			return nil, false
		}
		if doc != nil {
			docs = append(docs, doc)
		}
	}
	if len(docs) != 1 {
		p.fileErrorf(n, "case %q: %s: %s holds %d %s", caseName, what, file, len(docs), one)
		return nil, false
	}
	return docs[0], true
}

// object reads a case's object: a file holding one object, read as every input is read (package
// manifest), or the object inline.
func (p *parser) object(n *yaml.Node, caseName, what string) (json.RawMessage, string) {
	if n.Kind == yaml.ScalarNode {
		return p.objectFile(n, caseName, what)
	}
	obj, _, ok := p.document(n, caseName, what, "objects; a case admits one")
	if !ok {
		return nil, ""
	}
	if obj["apiVersion"] == nil || obj["kind"] == nil {
		p.errorf(n, "case %q: %s: not a Kubernetes object (apiVersion and kind are needed)", caseName, what)
		return nil, ""
	}
	data, err := json.Marshal(obj)
	if err != nil {
		p.errorf(n, "case %q: %s: %v", caseName, what, err)
		return nil, ""
	}
	return data, fmt.Sprintf("%s:%d", p.path, n.Line)
}

// objectFile reads a case's object from the file it names, which must hold one.
func (p *parser) objectFile(n *yaml.Node, caseName, what string) (json.RawMessage, string) {
	file := p.resolve(n.Value)
	data, err := os.ReadFile(file)
	if err != nil {
		p.fileErrorf(n, "case %q: %s: %v", caseName, what, err)
		return nil, ""
	}
	objects, err := manifest.Parse(file, data)
	switch {
	case err != nil:
		p.fileErrorf(n, "case %q: %s: %v", caseName, what, err)
		return nil, ""
	case len(objects) != 1:
		p.fileErrorf(n, "case %q: %s: %s holds %d objects; a case admits one", caseName, what, file, len(objects))
		return nil, ""
	}
	raw, err := json.Marshal(objects[0].Object.Object)
	if err != nil {
		p.fileErrorf(n, "case %q: %s: %v", caseName, what, err)
		return nil, ""
	}
	return raw, file
}

func (p *parser) expect(n *yaml.Node, caseName string) Expect {
	keys := []string{"allowed", "code", "reason", "message", "messageRegexp", "warnings", "auditAnnotations", "called", "outcomes", "fields", "object", "wholeObject"}
	f := p.fields(n, fmt.Sprintf("case %q: expect", caseName), keys...)
	var e Expect
	if err := n.Decode(&e); err != nil {
		p.errorf(n, "case %q: expect: %v", caseName, err)
		return e
	}
	if d := f["object"]; d != nil {
		if doc, file, ok := p.document(d, caseName, "expect.object", "documents; it is one"); ok {
			e.Object, e.ObjectFile = normalize(doc).(map[string]any), file
		}
	}
	if d := f["wholeObject"]; d != nil {
		if doc, file, ok := p.document(d, caseName, "expect.wholeObject", "documents; it is one"); ok {
			e.WholeObject, e.WholeObjectFile = normalize(doc).(map[string]any), file
		}
	}
	e.set = map[string]bool{}
	for k := range f {
		e.set[k] = true
	}
	if e.Allowed == nil {
		p.errorf(n, "case %q: expect.allowed: say whether the object must be admitted (true) or rejected (false)", caseName)
	}
	if e.Message != nil && e.MessageRegexp != "" {
		p.errorf(n, "case %q: expect: give message or messageRegexp, not both", caseName)
	}
	if e.MessageRegexp != "" {
		if _, err := compileRegexp(e.MessageRegexp); err != nil {
			p.errorf(f["messageRegexp"], "case %q: expect.messageRegexp: %v", caseName, err)
		}
	}
	for path := range e.Fields {
		if _, err := parseFieldPath(path); err != nil {
			p.errorf(f["fields"], "case %q: expect.fields: %v", caseName, err)
		}
	}
	for name, outcome := range e.Outcomes {
		if !slices.Contains(knownOutcomes(), outcome) {
			p.errorf(f["outcomes"], "case %q: expect.outcomes[%q]: %q is not an outcome (%s)", caseName, name, outcome, strings.Join(knownOutcomes(), ", "))
		}
	}
	return e
}

// knownOutcomes are the outcomes a webhook or policy can have in a result.
func knownOutcomes() []string {
	return []string{"allowed", "patched", "denied", "error", "failed-open", "skipped"}
}
