package structured

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// The structured formats.
const (
	JSON = "json"
	YAML = "yaml"
)

// Write writes v as indented JSON (two spaces, a final newline) or as YAML.
func Write(w io.Writer, format string, v any) error {
	switch format {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		// Output for people and scripts, not for embedding in HTML: "<stdin>" stays readable.
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	case YAML:
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("structured: unsupported format %q", format)
}

// JSONItem is v as Write's JSON writes it as an item of a top-level object's array: indented
// for that depth, without a newline before or after.
func JSONItem(v any) ([]byte, error) { return JSONAt(v, "    ") }

// Compact is v as Write's JSON encodes it, without indentation or a final newline: what a
// MarshalJSON of a value written in structured output returns, "<" and "&" left as they are.
func Compact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// JSONAt is v as Write's JSON writes it where its first line is indented by indent: the lines
// after its first indented so, without a newline before or after.
func JSONAt(v any, indent string) ([]byte, error) {
	compact, err := Compact(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, indent, "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// YAMLItem is v as Write's YAML writes it as an item of a top-level mapping's sequence: "- "
// and its lines, each ending in a newline. v is encoded in the place it takes there, so that
// long lines fold where they fold in the whole.
func YAMLItem(v any) ([]byte, error) { return YAMLItemAt(v, "items") }

// YAMLItemAt is v as Write's YAML writes it as an item of the sequence that keys lead to, each
// key but the first that of a mapping which is itself a sequence's item: ("suites", "cases")
// is a case of `suites: [{cases: [...]}]`. Its lines are indented for that place, so that they
// are the whole's bytes where they stand in it.
func YAMLItemAt(v any, keys ...string) ([]byte, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("structured: an item needs the keys of its place")
	}
	var nested any = []any{v}
	for j := len(keys) - 1; j >= 0; j-- {
		nested = map[string]any{keys[j]: nested}
		if j > 0 {
			nested = []any{nested}
		}
	}
	b, err := yaml.Marshal(nested)
	if err != nil {
		return nil, err
	}
	// A sequence under a mapping's key is written at the key's indentation: "- " and no more.
	head := keys[0] + ":\n"
	for j, key := range keys[1:] {
		head += strings.Repeat("  ", j) + "- " + key + ":\n"
	}
	if !bytes.HasPrefix(b, []byte(head)) {
		return nil, fmt.Errorf("structured: an item encoded as %q", b)
	}
	return b[len(head):], nil
}
