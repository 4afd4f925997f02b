package structured

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// list is a top-level object whose array holds the items, as a List does.
type list struct {
	Items []any `json:"items"`
}

// entry is an item with the shapes an item holds: nested objects and arrays, empty ones, raw
// JSON and strings of every kind.
type entry struct {
	Source  string            `json:"source"`
	Note    string            `json:"note,omitempty"`
	Labels  map[string]string `json:"labels"`
	Values  []int             `json:"values"`
	Object  json.RawMessage   `json:"object,omitempty"`
	Nested  map[string]any    `json:"nested,omitempty"`
	Missing *entry            `json:"missing"`
}

// long is longer than a YAML line: it folds.
const long = "a value with spaces that goes on well past the eighty columns where a YAML emitter folds a plain scalar onto its next line"

// fromItems is the list's encoding assembled from its items encoded alone, as a writer that
// streams the list writes it.
func fromItems(t *testing.T, format string, items []any) string {
	t.Helper()
	var b strings.Builder
	for i, item := range items {
		var data []byte
		var err error
		switch format {
		case JSON:
			if i == 0 {
				b.WriteString("{\n  \"items\": [\n    ")
			} else {
				b.WriteString(",\n    ")
			}
			data, err = JSONItem(item)
		case YAML:
			if i == 0 {
				b.WriteString("items:\n")
			}
			data, err = YAMLItem(item)
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	if format == JSON {
		b.WriteString("\n  ]\n}\n")
	}
	return b.String()
}

// JSONItem and YAMLItem encode an item as the whole list's encoding holds it: the items written
// one after another are the list written at once.
func TestItemsAreTheWhole(t *testing.T) {
	tests := []struct {
		name  string
		items []any
	}{
		{name: "one scalar", items: []any{"<stdin>"}},
		{name: "scalars", items: []any{1, "two & <three>", true, nil, 4.5, ""}},
		{name: "an entry", items: []any{entry{Source: "a.yaml:1"}}},
		{name: "entries", items: []any{
			entry{Source: "<stdin>:1", Note: long, Labels: map[string]string{"b": "2", "a": "1"}, Values: []int{}, Object: json.RawMessage(`{"kind":"ConfigMap","data":{"x":"<&>"}}`)},
			entry{Source: "café.yaml:3", Note: "line one\nline two\n  indented\n", Nested: map[string]any{"deep": []any{map[string]any{"k": long}, []any{}, map[string]any{}}}},
			entry{Source: "日本語.yaml:1", Note: "- looks like a list", Values: []int{1, 2, 3}, Missing: &entry{Source: "inner"}},
		}},
		{name: "arrays and objects", items: []any{[]any{1, []any{2, 3}}, map[string]any{}, []any{}, map[string]any{"z": nil, "a": map[string]any{"b": long}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, format := range []string{JSON, YAML} {
				var whole bytes.Buffer
				if err := Write(&whole, format, list{Items: tt.items}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(whole.String(), fromItems(t, format, tt.items)); diff != "" {
					t.Errorf("%s (-whole +items):\n%s", format, diff)
				}
			}
		})
	}
}

// The JSON leaves "<" and "&" as they are, and the YAML folds a long string, in an item as in
// the whole.
func TestItemEncoding(t *testing.T) {
	j, err := JSONItem(entry{Source: "<stdin> & more", Note: long})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(j, []byte(`"source": "<stdin> & more"`)) || !bytes.Contains(j, []byte(long)) {
		t.Errorf("JSONItem:\n%s", j)
	}
	y, err := YAMLItem(entry{Source: "a", Note: long})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(y, []byte("- ")) || bytes.Contains(y, []byte(long)) || !bytes.HasSuffix(y, []byte("\n")) {
		t.Errorf("YAMLItem: want an item of the sequence with the long note folded:\n%s", y)
	}
}

// What does not encode is an error, as for Write; so is a format other than json and yaml.
func TestItemErrors(t *testing.T) {
	if _, err := JSONItem(make(chan int)); err == nil {
		t.Error("JSONItem(chan): no error")
	}
	if _, err := YAMLItem(make(chan int)); err == nil {
		t.Error("YAMLItem(chan): no error")
	}
	if err := Write(&bytes.Buffer{}, "text", 1); err == nil || err.Error() != `structured: unsupported format "text"` {
		t.Errorf("Write(text): %v", err)
	}
}
