package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocumentMatchesTheByteFunctions holds a parsed Document to Diff and ApplyChanged on the
// same bytes: parsing once changes how often the work is done, never its result.
func TestDocumentMatchesTheByteFunctions(t *testing.T) {
	tests := []struct {
		name, original, modified, patch string
	}{
		{"equal", `{"a":1}`, `{"a":1}`, `[{"op":"replace","path":"/a","value":1}]`},
		{"spelled differently", `{"a": [1, 2.0]}`, `{"a":[1,2]}`, `[{"op":"add","path":"/a/-","value":3}]`},
		{"member added", `{"metadata":{"name":"web"}}`, `{"metadata":{"name":"web","labels":{"x":"y"}}}`,
			`[{"op":"add","path":"/metadata/labels","value":{"x":"y"}}]`},
		{"element removed", `{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`, `{"spec":{"containers":[{"name":"a"}]}}`,
			`[{"op":"remove","path":"/spec/containers/0"}]`},
		{"bad path", `{"a":{}}`, `{"a":{"b":1}}`, `[{"op":"replace","path":"/missing/x","value":1}]`},
		{"modified invalid", `{"a":1}`, `{"a":`, `[{"op":"remove","path":"/a"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse([]byte(tc.original))
			if err != nil {
				t.Fatal(err)
			}
			if string(doc.Bytes()) != tc.original {
				t.Errorf("Bytes() = %s, want the text parsed", doc.Bytes())
			}
			wantDiff, wantDiffErr := Diff([]byte(tc.original), []byte(tc.modified))
			gotDiff, gotDiffErr := doc.Diff([]byte(tc.modified))
			if d := cmp.Diff(fmt.Sprint(wantDiff, wantDiffErr), fmt.Sprint(gotDiff, gotDiffErr)); d != "" {
				t.Errorf("Diff (-bytes +document):\n%s", d)
			}
			var ops Patch
			if err := json.Unmarshal([]byte(tc.patch), &ops); err != nil {
				t.Fatal(err)
			}
			wantOut, wantChanged, wantErr := ApplyChanged([]byte(tc.original), ops)
			gotOut, gotChanged, gotErr := doc.ApplyChanged(ops)
			if d := cmp.Diff(fmt.Sprint(string(wantOut), wantChanged, wantErr), fmt.Sprint(string(gotOut), gotChanged, gotErr)); d != "" {
				t.Errorf("ApplyChanged (-bytes +document):\n%s", d)
			}
		})
	}
}

func TestParseNamesTheDocument(t *testing.T) {
	_, err := Parse([]byte(`{"a":tru}`))
	var syntax *SyntaxError
	if !errors.As(err, &syntax) || syntax.Document != "document" || syntax.Offset != 5 {
		t.Fatalf("Parse = %v, want a SyntaxError in the document at offset 5", err)
	}
}

// A Document is shared by an admission's steps, which may run in parallel: patches applied to
// it never change it.
func TestDocumentIsNotChangedByUse(t *testing.T) {
	original := `{"metadata":{"labels":{"a":"b"}},"list":[1,2,3]}`
	doc, err := Parse([]byte(original))
	if err != nil {
		t.Fatal(err)
	}
	ops := Patch{
		{Op: OpReplace, Path: "/metadata/labels/a", Value: json.RawMessage(`"c"`)},
		{Op: OpRemove, Path: "/list/1"},
		{Op: OpAdd, Path: "/list/-", Value: json.RawMessage(`{"x":[]}`)},
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			patched, changed, err := doc.ApplyChanged(ops)
			if err != nil || !changed {
				t.Errorf("ApplyChanged = %s, %v, %v", patched, changed, err)
				return
			}
			if _, err := doc.Diff(patched); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	again, err := doc.Diff([]byte(original))
	if err != nil || len(again) != 0 {
		t.Errorf("the document changed: Diff against its own text = %v, %v", again, err)
	}
}
