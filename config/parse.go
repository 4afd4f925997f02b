package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// maxListDepth bounds Lists nested in Lists; real inputs nest one level at most.
const maxListDepth = 8

// Parse reads the objects in data, named name in sources and errors (e.g. "<stdin>"). data is
// YAML, possibly several documents separated by "---" lines, or JSON, one or more objects; a
// name ending in .json means JSON, .yaml or .yml YAML, anything else is JSON when the first
// character is "{". Lists (kind List, or any kind ending in List with items) are expanded.
//
// Webhook configurations must be admissionregistration.k8s.io/v1; they are decoded strictly
// (an unknown or duplicate field is an error, as with kubectl's default --validate=strict: a
// misspelt namespaceSelector must not silently match every namespace) and then defaulted with
// SetDefaultsMutating or SetDefaultsValidating. They are not validated: see Set.Validate.
// Objects of other kinds are kept as read, in Set.Others. Duplicate keys are errors in any
// YAML document; a key overriding one merged in with "<<" is not a duplicate.
//
// Every problem is reported, each error starting with "file:line: ". A file that does not read
// and looks like a template ("{{ ... }}") gets a last error saying to render it first. On
// error no Set is returned.
func Parse(name string, data []byte) (*Set, error) {
	p := &parser{set: &Set{}}
	p.parseFile(name, data)
	if len(p.errs) > 0 && looksLikeTemplate(data) {
		p.errs = append(p.errs, fmt.Errorf("%s: this looks like a template ({{ ... }}), not a manifest: render it first (helm template RELEASE CHART, or your templating tool) and read the output", name))
	}
	if err := errors.Join(p.errs...); err != nil {
		return nil, err
	}
	return p.set, nil
}

// looksLikeTemplate says whether data holds Go template actions, as Helm charts do.
func looksLikeTemplate(data []byte) bool {
	open := bytes.Index(data, []byte("{{"))
	return open >= 0 && bytes.Contains(data[open:], []byte("}}"))
}

type parser struct {
	set  *Set
	errs []error
}

func (p *parser) fail(source Source, err error) {
	p.errs = append(p.errs, fmt.Errorf("%s: %w", source, err))
}

func (p *parser) parseFile(name string, data []byte) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	var docs []document
	var err error
	if isJSON(name, data) {
		docs, err = splitJSON(data)
	} else {
		docs, err = splitYAML(data)
	}
	// Documents decode independently, in parallel; their objects are added in order, so that
	// the Set and the errors are the same however the decoding was scheduled.
	decoded := make([]decodedDocument, len(docs))
	forEachParallel(len(docs), func(i int) {
		decoded[i] = decodeDocument(docs[i], Source{File: name, Document: i + 1, Line: docs[i].line})
	})
	for i, d := range decoded {
		switch {
		case d.err != nil:
			p.errs = append(p.errs, d.err)
		case d.object != nil:
			doc := docs[i]
			p.addObject(d.object, d.raw, d.source, &locator{text: doc.text, firstLine: doc.firstLine}, nil, 0)
		}
	}
	if err != nil {
		var located *lineError
		line := 0
		if errors.As(err, &located) {
			line = located.line
		}
		p.fail(Source{File: name, Document: len(docs) + 1, Line: line}, err)
	}
}

// decodedDocument is one document read into JSON and decoded: an object, nothing (a document
// that is only "null" or "~"), or the error that says where it went wrong.
type decodedDocument struct {
	source Source
	raw    []byte
	object map[string]any
	err    error
}

// decodeDocument reads one document; it depends on nothing but the document.
func decodeDocument(doc document, source Source) decodedDocument {
	fail := func(source Source, err error) decodedDocument {
		return decodedDocument{err: fmt.Errorf("%s: %w", source, err)}
	}
	raw := doc.text
	if !doc.json {
		converted, err := yaml.YAMLToJSONStrict(doc.text)
		if err != nil && overridesOnlyMergedKeys(doc.text) {
			// A key that overrides one merged in with "<<" is not a duplicate: kubectl reads
			// such documents, and so does the non-strict conversion.
			converted, err = yaml.YAMLToJSON(doc.text)
		}
		if err != nil {
			return fail(yamlErrorSource(source, doc, err), fileLines(err, doc.firstLine))
		}
		raw = converted
	}
	var content any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &content); err != nil {
		return fail(source, fmt.Errorf("decoding the document: %w", err))
	}
	if content == nil {
		return decodedDocument{source: source}
	}
	object, ok := content.(map[string]any)
	if !ok {
		return fail(source, fmt.Errorf("expected an object with apiVersion and kind, got %s", describe(content)))
	}
	return decodedDocument{source: source, raw: raw, object: object}
}

// forEachParallel calls f for 0 to n-1 on as many goroutines as the process may run at once,
// and returns when every call has.
func forEachParallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// yamlLine finds the line numbers in the parser's messages ("yaml: line 3: ...").
var yamlLine = regexp.MustCompile(`\bline (\d+)\b`)

// fileLines rewrites the line numbers of a YAML error, which count from the start of the
// document, to count from the start of the file. The original error stays wrapped.
func fileLines(err error, firstLine int) error {
	text := yamlLine.ReplaceAllStringFunc(err.Error(), func(match string) string {
		n, convErr := strconv.Atoi(strings.TrimPrefix(match, "line "))
		if convErr != nil {
			return match
		}
		return "line " + strconv.Itoa(firstLine+n-1)
	})
	return &rewrittenError{text: text, err: err}
}

func yamlErrorSource(source Source, doc document, err error) Source {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			return source.at(doc.firstLine + n - 1)
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

// addObject adds one decoded object: a List's items, a webhook configuration, or another
// object. raw is its JSON when it is a whole document (nil for List items); path is where it is
// in its document, for locating lines.
func (p *parser) addObject(object map[string]any, raw []byte, source Source, loc *locator, path []any, depth int) {
	apiVersion, kindName, err := typeMeta(object)
	if err != nil {
		p.fail(source, err)
		return
	}
	if items, isList := listItems(kindName, object); isList {
		p.addListItems(apiVersion, kindName, items, source, loc, path, depth)
		return
	}
	source.fields = &fieldLocator{loc: loc, prefix: path}
	if apiVersion == "" {
		p.fail(source, fmt.Errorf("%s has no apiVersion", subject(kindName, object)))
		return
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		p.fail(source, fmt.Errorf("%s: %w", subject(kindName, object), err))
		return
	}
	gk := gv.WithKind(kindName).GroupKind()
	if err := checkPolicyVersion(gv, kindName); err != nil {
		p.fail(source, err)
		return
	}
	if gk != mutatingKind && gk != validatingKind {
		p.set.Others = append(p.set.Others, Object{Source: source, Object: &unstructured.Unstructured{Object: object}})
		return
	}
	if err := checkWebhookVersion(gv, kindName); err != nil {
		p.fail(source, err)
		return
	}
	if raw == nil {
		if raw, err = json.Marshal(object); err != nil {
			p.fail(source, fmt.Errorf("encoding %s: %w", subject(kindName, object), err))
			return
		}
	}
	if gk == mutatingKind {
		config := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if p.decodeStrict(raw, config, kindName, object, source, loc, path) {
			SetDefaultsMutating(config)
			p.set.Mutating = append(p.set.Mutating, Mutating{Source: source, Config: config})
		}
		return
	}
	config := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if p.decodeStrict(raw, config, kindName, object, source, loc, path) {
		SetDefaultsValidating(config)
		p.set.Validating = append(p.set.Validating, Validating{Source: source, Config: config})
	}
}

func (p *parser) addListItems(apiVersion, kindName string, items []any, source Source, loc *locator, path []any, depth int) {
	if depth >= maxListDepth {
		p.fail(source, fmt.Errorf("lists nested more than %d deep are not supported", maxListDepth))
		return
	}
	// Items of a typed list (e.g. MutatingWebhookConfigurationList) may omit their kind.
	itemKind := strings.TrimSuffix(kindName, "List")
	for i, item := range items {
		itemPath := append(append([]any{}, path...), "items", i)
		itemSource := source.at(loc.line(itemPath))
		itemSource.Item = i + 1
		object, ok := item.(map[string]any)
		if !ok {
			p.fail(itemSource, fmt.Errorf("%s item %d: expected an object, got %s", kindName, i+1, describe(item)))
			continue
		}
		if itemKind != "" {
			if _, has := object["kind"]; !has {
				object["kind"] = itemKind
			}
			if _, has := object["apiVersion"]; !has && apiVersion != "" {
				object["apiVersion"] = apiVersion
			}
		}
		p.addObject(object, nil, itemSource, loc, itemPath, depth+1)
	}
}

// decodeStrict decodes a webhook configuration, reporting every unknown or duplicate field at
// its own line.
func (p *parser) decodeStrict(raw []byte, into any, kindName string, object map[string]any, source Source, loc *locator, path []any) bool {
	strictErrs, err := sigsjson.UnmarshalStrict(raw, into)
	if err != nil {
		p.fail(source, fmt.Errorf("decoding %s: %w", subject(kindName, object), err))
		return false
	}
	type located struct {
		source Source
		err    error
	}
	found := make([]located, len(strictErrs))
	for i, strictErr := range strictErrs {
		found[i] = located{source: source, err: strictErr}
		var fieldErr sigsjson.FieldError
		if errors.As(strictErr, &fieldErr) {
			found[i].source = source.at(loc.line(append(append([]any{}, path...), parseFieldPath(fieldErr.FieldPath())...)))
		}
	}
	// YAML documents reach the decoder with their keys sorted: report in the file's order.
	sort.SliceStable(found, func(a, b int) bool { return found[a].source.Line < found[b].source.Line })
	for _, f := range found {
		p.fail(f.source, fmt.Errorf("%s: %w", subject(kindName, object), f.err))
	}
	return len(strictErrs) == 0
}

func checkWebhookVersion(gv schema.GroupVersion, kindName string) error {
	switch gv.Version {
	case "v1":
		return nil
	case "v1beta1":
		return fmt.Errorf("%s %s is not served since Kubernetes 1.22: use %s (where sideEffects and admissionReviewVersions are required, and failurePolicy defaults to Fail)",
			gv, kindName, admissionregistrationv1.SchemeGroupVersion)
	default:
		return fmt.Errorf("%s %s is not supported: use %s", gv, kindName, admissionregistrationv1.SchemeGroupVersion)
	}
}

// checkPolicyVersion refuses admission policies and bindings of the versions Kubernetes 1.36
// no longer serves by default (v1alpha1, v1beta1): kubectl finds no such kind there, and
// running them anyway would answer for a cluster that does not exist.
func checkPolicyVersion(gv schema.GroupVersion, kindName string) error {
	if gv.Group != admissionregistrationv1.GroupName || gv.Version == "v1" {
		return nil
	}
	switch kindName {
	case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return fmt.Errorf("no matches for kind %q in version %q: Kubernetes 1.36 serves admission policies as %s, with the same fields",
			kindName, gv, admissionregistrationv1.SchemeGroupVersion)
	}
	return nil
}

func typeMeta(object map[string]any) (apiVersion, kindName string, err error) {
	apiVersion, ok := object["apiVersion"].(string)
	if !ok && object["apiVersion"] != nil {
		return "", "", fmt.Errorf("apiVersion must be a string, got %s", describe(object["apiVersion"]))
	}
	kindName, ok = object["kind"].(string)
	if !ok && object["kind"] != nil {
		return "", "", fmt.Errorf("kind must be a string, got %s", describe(object["kind"]))
	}
	if kindName == "" {
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
