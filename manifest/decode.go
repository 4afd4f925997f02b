package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Object is one object read, with where it came from.
type Object struct {
	Source Source
	Object *unstructured.Unstructured
	// JSON is the object's JSON as read when it is a whole document; nil for a List's item.
	JSON []byte
}

// maxListDepth bounds Lists nested in Lists; real inputs nest one level at most.
const maxListDepth = 8

// result is one thing a piece decodes to: an object, or a problem with one part of it.
type result struct {
	object Object
	err    error
}

// decode turns one piece of a file into its objects and problems, in the order of the text. It
// depends on nothing but the piece, so pieces decode in parallel.
func decode(file string, p piece) []result {
	switch p.kind {
	case listItem:
		return decodeItem(file, p)
	case listHead:
		return decodeHead(file, p)
	}
	source := Source{File: file, Document: p.document, Line: p.firstLine + firstContentLine(p.text) - 1}
	content, raw, err := decodeText(p, source)
	if err != nil {
		return []result{{err: err}}
	}
	if content == nil {
		return nil // a document that is only null ("~")
	}
	object, ok := content.(map[string]any)
	if !ok {
		return []result{{err: fmt.Errorf("%s: expected an object with apiVersion and kind, got %s", source, describe(content))}}
	}
	return expand(object, raw, source, newLocator(p.text, p.firstLine), nil, 0)
}

// decodeText reads a piece's text into JSON values: YAML converted strictly (a key set twice in
// one mapping is an error, as for kubectl), numbers kept as integers where they are.
func decodeText(p piece, source Source) (content any, raw []byte, err error) {
	raw = p.text
	if !p.json {
		converted, err := yaml.YAMLToJSONStrict(p.text)
		if err != nil && overridesOnlyMergedKeys(p.text) {
			// A key that overrides one merged in with "<<" is not a duplicate: kubectl reads
			// such documents, and so does the non-strict conversion.
			converted, err = yaml.YAMLToJSON(p.text)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", yamlErrorSource(source, p, err), fileLines(err, p))
		}
		raw = converted
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &content); err != nil {
		if p.json {
			if located := jsonSyntaxError(p, source); located != nil {
				return nil, nil, located
			}
		}
		return nil, nil, fmt.Errorf("%s: decoding the document: %w", source, err)
	}
	return content, raw, nil
}

// jsonSyntaxError places JSON text's syntax error at its line, as a JSON decoder reading the
// file would report it; nil when the text is not malformed (the error was another).
func jsonSyntaxError(p piece, source Source) error {
	var syntax *json.SyntaxError
	if err := json.Unmarshal(p.text, new(json.RawMessage)); errors.As(err, &syntax) {
		offset := min(max(int(syntax.Offset), 0), len(p.text))
		return fmt.Errorf("%s: %w", source.at(p.lineInFile(1+bytes.Count(p.text[:offset], []byte("\n")))), err)
	} else if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	return nil
}

// decodeItem reads one item of a List read an item at a time.
func decodeItem(file string, p piece) []result {
	source := Source{File: file, Document: p.document, Line: p.firstLine + firstContentLine(p.text) - 1, Item: p.item}
	content, _, err := decodeText(p, source)
	if err != nil {
		return []result{{err: err}}
	}
	listKind := p.listKind
	if listKind == "" {
		listKind = "List"
	}
	object, ok := content.(map[string]any)
	if !ok {
		return []result{{err: fmt.Errorf("%s: %s item %d: expected an object, got %s", source, listKind, p.item, describe(content))}}
	}
	defaultItemType(object, p.listKind, p.listAPIVersion)
	loc := newLocator(p.text, p.firstLine)
	loc.columnShift = p.indent
	return expand(object, nil, source, loc, nil, 1)
}

// decodeHead checks the keys of a List read an item at a time, once its items are read: it must
// say it is a List.
func decodeHead(file string, p piece) []result {
	source := Source{File: file, Document: p.document, Line: p.firstLine + firstContentLine(p.text) - 1}
	content, _, err := decodeText(p, source)
	if err != nil {
		return []result{{err: err}}
	}
	object, _ := content.(map[string]any)
	if object == nil {
		object = map[string]any{}
	}
	_, kindName, err := typeMeta(object, true)
	if err != nil {
		return []result{{err: fmt.Errorf("%s: %w", source, err)}}
	}
	if !strings.HasSuffix(kindName, "List") {
		return []result{{err: fmt.Errorf("%s: a document over %d MiB whose items are a list is read an item at a time as a List, but its kind is %s: split it into documents", source, wholeLimit>>20, kindName)}}
	}
	return nil
}

// ObjectsOf turns a decoded document (or a Go value's content) into its objects: itself, or a
// List's items (nested Lists too), each with its source. raw is the document's JSON, kept in
// the Object of a whole document; nil when it is not at hand.
func ObjectsOf(object map[string]any, raw []byte, source Source) ([]Object, []error) {
	var objects []Object
	var errs []error
	for _, r := range expand(object, raw, source, nil, nil, 0) {
		if r.err != nil {
			errs = append(errs, r.err)
		} else {
			objects = append(objects, r.object)
		}
	}
	return objects, errs
}

// expand is ObjectsOf in the text loc locates fields in; path is where object is in that text.
func expand(object map[string]any, raw []byte, source Source, loc *locator, path []any, depth int) []result {
	fail := func(source Source, err error) []result { return []result{{err: fmt.Errorf("%s: %w", source, err)}} }
	_, hasItems := object["items"].([]any)
	apiVersion, kindName, err := typeMeta(object, hasItems)
	if err != nil {
		return fail(source, err)
	}
	if items, isList := listItems(kindName, object); isList {
		return expandList(apiVersion, kindName, items, source, loc, path, depth)
	}
	if loc != nil {
		source.fields = &fieldLocator{loc: loc, prefix: path}
	}
	if apiVersion == "" {
		return fail(source, fmt.Errorf("%s has no apiVersion", subject(kindName, object)))
	}
	if _, err := schema.ParseGroupVersion(apiVersion); err != nil {
		return fail(source, fmt.Errorf("%s: %w", subject(kindName, object), err))
	}
	return []result{{object: Object{Source: source, Object: &unstructured.Unstructured{Object: object}, JSON: raw}}}
}

func expandList(apiVersion, kindName string, items []any, source Source, loc *locator, path []any, depth int) []result {
	if depth >= maxListDepth {
		return []result{{err: fmt.Errorf("%s: lists nested more than %d deep are not supported", source, maxListDepth)}}
	}
	var out []result
	for i, item := range items {
		itemPath := append(append([]any{}, path...), "items", i)
		itemSource := source.at(loc.line(itemPath))
		itemSource.Item = i + 1
		object, ok := item.(map[string]any)
		if !ok {
			out = append(out, result{err: fmt.Errorf("%s: %s item %d: expected an object, got %s", itemSource, kindName, i+1, describe(item))})
			continue
		}
		defaultItemType(object, kindName, apiVersion)
		out = append(out, expand(object, nil, itemSource, loc, itemPath, depth+1)...)
	}
	return out
}

// defaultItemType gives an item of a typed List (a PodList) that names no kind or apiVersion
// its List's: such items may omit them.
func defaultItemType(object map[string]any, listKind, listAPIVersion string) {
	itemKind := strings.TrimSuffix(listKind, "List")
	if itemKind == "" {
		return
	}
	if _, has := object["kind"]; !has {
		object["kind"] = itemKind
	}
	if _, has := object["apiVersion"]; !has && listAPIVersion != "" {
		object["apiVersion"] = listAPIVersion
	}
}

// typeMeta reads an object's apiVersion and kind; a missing kind is an error. hasItems says the
// object has a list of items: a List, whose kind kubectl writes after its items, so that an input
// cut off in them has none.
func typeMeta(object map[string]any, hasItems bool) (apiVersion, kindName string, err error) {
	apiVersion, ok := object["apiVersion"].(string)
	if !ok && object["apiVersion"] != nil {
		return "", "", fmt.Errorf("apiVersion must be a string, got %s", describe(object["apiVersion"]))
	}
	kindName, ok = object["kind"].(string)
	if !ok && object["kind"] != nil {
		return "", "", fmt.Errorf("kind must be a string, got %s", describe(object["kind"]))
	}
	if kindName == "" {
		if hasItems {
			return "", "", errors.New("a List without its kind: the input looks cut off (kubectl writes a List's kind after its items)")
		}
		return "", "", fmt.Errorf("%s has no kind", subject("object", object))
	}
	return apiVersion, kindName, nil
}

// listItems returns the items of a List: a kind ending in "List" with an items array (or no
// items at all, for kind List).
func listItems(kindName string, object map[string]any) ([]any, bool) {
	if !strings.HasSuffix(kindName, "List") {
		return nil, false
	}
	items, present := object["items"]
	switch items := items.(type) {
	case []any:
		return items, true
	case nil:
		return nil, kindName == "List" || present
	default:
		return nil, false
	}
}

// subject names an object in messages: its kind and quoted name, e.g.
// `MutatingWebhookConfiguration "pod-defaults"`, or just its kind when it has no name.
func subject(kindName string, object map[string]any) string {
	if metadata, ok := object["metadata"].(map[string]any); ok {
		if name, ok := metadata["name"].(string); ok && name != "" {
			return kindName + " " + strconv.Quote(name)
		}
	}
	return kindName
}

// Subject names an object in messages as the reader does: `Kind "name"`, or its kind alone.
func Subject(kindName string, object map[string]any) string { return subject(kindName, object) }

func describe(value any) string {
	switch value.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	default:
		return "a number"
	}
}

// yamlLine finds the line numbers in the parser's messages ("yaml: line 3: ...").
var yamlLine = regexp.MustCompile(`\bline (\d+)\b`)

// fileLines rewrites the line numbers of a YAML error, which count from the start of the
// piece's text, to count from the start of the file, and names the line once: the message is
// placed at the parser's first line already ("f.yaml:9: yaml: did not find expected key", not
// "f.yaml:9: yaml: line 9: ..."). The original error stays wrapped.
func fileLines(err error, p piece) error {
	text := yamlLine.ReplaceAllStringFunc(err.Error(), func(match string) string {
		n, convErr := strconv.Atoi(strings.TrimPrefix(match, "line "))
		if convErr != nil {
			return match
		}
		return "line " + strconv.Itoa(p.lineInFile(n))
	})
	return &rewrittenError{text: lineNamedOnce(text), err: err}
}

// yamlLineAgain matches the line a YAML message names where it is the place's: "yaml: line 3: "
// and, for a decoder's single error, "yaml: unmarshal errors:\n  line 5: ".
var yamlLineAgain = regexp.MustCompile(`^yaml: (?:line \d+: |unmarshal errors:\n +line \d+: ([^\n]*)$)`)

// lineNamedOnce drops a YAML message's first line number, which its place names: the parser's
// first line is where the message is placed (yamlErrorSource). A decoder's message with several
// lines keeps them all.
func lineNamedOnce(text string) string {
	m := yamlLineAgain.FindStringSubmatchIndex(text)
	switch {
	case m == nil:
		return text
	case m[2] >= 0: // a single unmarshal error
		return "yaml: " + text[m[2]:m[3]]
	}
	return "yaml: " + text[m[1]:]
}

// yamlErrorSource is the source of a YAML error: the line the parser names, counted in the file.
func yamlErrorSource(source Source, p piece, err error) Source {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			return source.at(p.lineInFile(n))
		}
	}
	return source
}

type rewrittenError struct {
	text string
	err  error
}

func (e *rewrittenError) Error() string { return e.text }
func (e *rewrittenError) Unwrap() error { return e.err }
