package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/review"
)

// A dump — `kubectl get -A -o yaml` (one List of every object), `-o json`, multi-document YAML,
// a directory of manifests — is read an object at a time, so that a dump of a whole cluster is
// never held at once: YAML documents are split at "---", a List's items at the lines that start
// them, and JSON Lists are decoded an item at a time.

// maxDumpLine bounds one line of a dump: a base64 ConfigMap or a CRD's schema on one line.
const maxDumpLine = 64 << 20

// eachDumpObject calls fn with every object of the file at path (label names it in sources), in
// order. fn's error stops the reading and is returned.
func eachDumpObject(path, label string, fn func(review.Input) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	first, err := firstByte(r)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	if first == '{' || first == '[' {
		emitted, err := eachJSONObject(r, label, fn)
		var syntax *json.SyntaxError
		if err == nil || emitted > 0 || !errors.As(err, &syntax) {
			return err
		}
		// Not JSON from its start: YAML in flow style ({apiVersion: v1, ...}).
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		r.Reset(f)
	}
	return eachYAMLObject(r, label, fn)
}

// firstByte is the first byte of r that is not white space, left unread.
func firstByte(r *bufio.Reader) (byte, error) {
	for {
		b, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			return b, r.UnreadByte()
		}
	}
}

// eachJSONObject reads JSON values one after the other: objects, Lists (their items one at a
// time) and arrays of objects. emitted counts the objects given to fn.
func eachJSONObject(r io.Reader, label string, fn func(review.Input) error) (emitted int, err error) {
	n := 0
	err = jsonObjects(r, label, func(raw json.RawMessage) error {
		n++
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("%s: object %d: %w", label, n, err)
		}
		return fn(review.Input{Source: fmt.Sprintf("%s: object %d", label, n), Object: obj})
	})
	return n, err
}

// jsonObjects reads the JSON values of r and emits each object: a List's items one at a time.
func jsonObjects(r io.Reader, label string, emit func(json.RawMessage) error) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		switch tok {
		case json.Delim('['):
			if err := eachJSONElement(dec, emit); err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
		case json.Delim('{'):
			// An object, or a List whose items come one at a time: the members are read in
			// order, items decoded as they come; an object without items is emitted whole.
			members := map[string]json.RawMessage{}
			sawItems := false
			for dec.More() {
				keyTok, err := dec.Token()
				if err != nil {
					return fmt.Errorf("%s: %w", label, err)
				}
				key, _ := keyTok.(string)
				if key == "items" {
					open, err := dec.Token()
					if err != nil {
						return fmt.Errorf("%s: %w", label, err)
					}
					if open == nil {
						continue // items: null
					}
					if open != json.Delim('[') {
						return fmt.Errorf("%s: items is not a list", label)
					}
					sawItems = true
					if err := eachJSONElement(dec, emit); err != nil {
						return fmt.Errorf("%s: %w", label, err)
					}
					continue
				}
				var value json.RawMessage
				if err := dec.Decode(&value); err != nil {
					return fmt.Errorf("%s: %w", label, err)
				}
				members[key] = value
			}
			if _, err := dec.Token(); err != nil { // the closing brace
				return fmt.Errorf("%s: %w", label, err)
			}
			if !sawItems {
				whole, err := json.Marshal(members)
				if err != nil {
					return err
				}
				if err := emit(whole); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("%s: a JSON dump holds objects or Lists, not %v", label, tok)
		}
	}
}

// eachJSONElement emits the elements of an array whose opening bracket was read, and reads its
// closing one.
func eachJSONElement(dec *json.Decoder, emit func(json.RawMessage) error) error {
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := emit(raw); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// yamlDocument is one document of a YAML stream, or one item of a List, by lines, with the line
// it starts at.
type yamlDocument struct {
	lines []string
	first int
}

// yamlReader splits a YAML stream into documents at "---", and a List in the block style kubectl
// prints —
//
//	apiVersion: v1
//	items:
//	- apiVersion: v1
//	  kind: Pod
//	  ...
//	kind: List
//
// — into its items as they come: each is emitted once the next one starts, so that a List of a
// whole cluster is never held. A document without a top-level "items:" list is parsed whole.
type yamlReader struct {
	label string
	fn    func(review.Input) error
	// doc is the current document's lines outside a List's items: a whole object, or the List's
	// own keys.
	doc yamlDocument
	// inItems: the lines are a List's items, whose dash is at column len(dash); item is the one
	// being read.
	inItems, sawItems, dashKnown bool
	dash                         string
	item                         *yamlDocument
}

// eachYAMLObject reads a YAML stream an object at a time.
func eachYAMLObject(r *bufio.Reader, label string, fn func(review.Input) error) error {
	y := &yamlReader{label: label, fn: fn, doc: yamlDocument{first: 1}}
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: %w", label, err)
		}
		if len(line) > maxDumpLine {
			return fmt.Errorf("%s:%d: a line longer than %d MiB", label, lineNo, maxDumpLine>>20)
		}
		if line != "" {
			if lerr := y.line(lineNo, strings.TrimRight(line, "\r\n")); lerr != nil {
				return lerr
			}
		}
		if err == io.EOF {
			return y.endDocument(lineNo + 1)
		}
	}
}

// line takes the next line of the stream.
func (y *yamlReader) line(n int, text string) error {
	if text == "---" || strings.HasPrefix(text, "--- ") || text == "..." {
		return y.endDocument(n + 1)
	}
	if !y.inItems {
		if text == "items:" {
			y.inItems, y.sawItems, y.dashKnown = true, true, false
			return nil
		}
		y.doc.lines = append(y.doc.lines, text)
		return nil
	}
	trimmed := strings.TrimSpace(text)
	if trimmed == "" || strings.HasPrefix(trimmed, "#") {
		if y.item != nil {
			y.item.lines = append(y.item.lines, "")
		}
		return nil
	}
	indent := len(text) - len(strings.TrimLeft(text, " "))
	if !y.dashKnown {
		if !strings.HasPrefix(text[indent:], "- ") && text[indent:] != "-" {
			// "items:" holds no list: an ordinary key of an ordinary document.
			y.inItems, y.sawItems = false, false
			y.doc.lines = append(y.doc.lines, "items:", text)
			return nil
		}
		// The items' dash is at column 0 (kubectl) or indented (other emitters): as the first's.
		y.dash, y.dashKnown = text[:indent], true
	}
	switch {
	case strings.HasPrefix(text, y.dash+"- ") || text == y.dash+"-":
		if err := y.endItem(); err != nil {
			return err
		}
		// The dash becomes indentation, which endItem takes off every line with the rest.
		rest := strings.TrimPrefix(strings.TrimPrefix(text, y.dash+"-"), " ")
		y.item = &yamlDocument{first: n, lines: []string{"  " + rest}}
	case strings.HasPrefix(text, y.dash+"  ") && y.item != nil:
		y.item.lines = append(y.item.lines, text[len(y.dash):])
	case indent < len(y.dash) || (y.dash == "" && indent == 0 && text[0] != '-'):
		// The next key of the List itself (kind, metadata): the items are over.
		if err := y.endItem(); err != nil {
			return err
		}
		y.inItems = false
		y.doc.lines = append(y.doc.lines, text)
	default:
		return fmt.Errorf("%s:%d: a line of a List's items that is not indented as its items are", y.label, n)
	}
	return nil
}

// endItem emits the List item read so far.
func (y *yamlReader) endItem() error {
	item := y.item
	if item == nil {
		return nil
	}
	y.item = nil
	for i, l := range item.lines {
		item.lines[i] = strings.TrimPrefix(l, "  ")
	}
	data, err := yaml.YAMLToJSON([]byte(strings.Join(item.lines, "\n") + "\n"))
	if err != nil {
		return fmt.Errorf("%s:%d: %w", y.label, item.first, err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		return fmt.Errorf("%s:%d: %w", y.label, item.first, err)
	}
	return y.fn(review.Input{Source: fmt.Sprintf("%s:%d", y.label, item.first), Object: obj})
}

// endDocument emits what is left of the document and starts the next at line next.
func (y *yamlReader) endDocument(next int) error {
	if err := y.endItem(); err != nil {
		return err
	}
	doc, sawItems := y.doc, y.sawItems
	y.doc, y.inItems, y.sawItems = yamlDocument{first: next}, false, false
	if sawItems || blankDocument(doc.lines) {
		return nil // a List's own keys, or nothing
	}
	// Blank lines in front keep the parser's line numbers those of the file.
	text := strings.Repeat("\n", doc.first-1) + strings.Join(doc.lines, "\n") + "\n"
	objects, err := review.Parse(y.label, []byte(text))
	if err != nil {
		return err
	}
	for _, in := range objects {
		if err := y.fn(in); err != nil {
			return err
		}
	}
	return nil
}

func blankDocument(lines []string) bool {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// spoolStdin copies standard input to a temporary file, so that a dump read from it can be read
// twice (its state first, then its objects); remove removes the file.
func spoolStdin(stdin io.Reader) (path string, remove func(), err error) {
	f, err := os.CreateTemp("", "admit-audit-stdin-*")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.Remove(f.Name()) }
	if _, err := io.Copy(f, stdin); err != nil {
		f.Close()
		remove()
		return "", nil, fmt.Errorf("reading standard input: %w", err)
	}
	if err := f.Close(); err != nil {
		remove()
		return "", nil, err
	}
	return f.Name(), remove, nil
}
