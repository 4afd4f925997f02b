package structured

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

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
func JSONItem(v any) ([]byte, error) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), "    ", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// YAMLItem is v as Write's YAML writes it as an item of a top-level mapping's sequence: "- "
// and its lines, each ending in a newline. v is encoded in the place it takes there, so that
// long lines fold where they fold in the whole.
func YAMLItem(v any) ([]byte, error) {
	b, err := yaml.Marshal(map[string]any{"items": []any{v}})
	if err != nil {
		return nil, err
	}
	const head = "items:\n"
	if !bytes.HasPrefix(b, []byte(head)) {
		return nil, fmt.Errorf("structured: an item encoded as %q", b)
	}
	return b[len(head):], nil
}
