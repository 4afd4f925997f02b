package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name               string
		original, modified string
		want               string // the patch as JSON
		// scalarRoot marks documents that are not objects or arrays, which
		// the apply oracle (evanphx/json-patch v4) cannot patch; the patch
		// itself is still compared.
		scalarRoot bool
	}{
		{name: "identical", original: `{"a":1}`, modified: `{"a":1}`, want: `[]`},
		{name: "equal but formatted differently", original: `{"a": [1, {"b": "x"}], "c": null}`, modified: `{"c":null,"a":[1,{"b":"x"}]}`, want: `[]`},
		{name: "equal numbers written differently", original: `{"a":1,"b":-0,"c":0.5}`, modified: `{"a":1.0,"b":0,"c":5e-1}`, want: `[]`},
		{name: "equal strings written differently", original: `{"a":"\u00e9\/"}`, modified: `{"a":"é/"}`, want: `[]`},
		{name: "large integers are not rounded", original: `{"n":9007199254740993}`, modified: `{"n":9007199254740992}`,
			want: `[{"op":"replace","path":"/n","value":9007199254740992}]`},
		{name: "add member", original: `{"a":1}`, modified: `{"a":1,"b":{"c":[]}}`,
			want: `[{"op":"add","path":"/b","value":{"c":[]}}]`},
		{name: "remove member", original: `{"a":1,"b":2}`, modified: `{"b":2}`,
			want: `[{"op":"remove","path":"/a"}]`},
		{name: "replace with null keeps the value", original: `{"a":1}`, modified: `{"a":null}`,
			want: `[{"op":"replace","path":"/a","value":null}]`},
		{name: "type change", original: `{"a":{"b":1}}`, modified: `{"a":[1]}`,
			want: `[{"op":"replace","path":"/a","value":[1]}]`},
		{name: "nested change only", original: `{"m":{"labels":{"a":"1","b":"2"},"name":"x"}}`, modified: `{"m":{"labels":{"a":"1","b":"3"},"name":"x"}}`,
			want: `[{"op":"replace","path":"/m/labels/b","value":"3"}]`},
		{name: "operations in key order", original: `{"z":1,"a":1,"m":1}`, modified: `{"m":2,"z":2,"b":0}`,
			want: `[{"op":"remove","path":"/a"},{"op":"add","path":"/b","value":0},{"op":"replace","path":"/m","value":2},{"op":"replace","path":"/z","value":2}]`},
		{name: "pointer escaping", original: `{"a/b":1,"c~d":1,"~1":1}`, modified: `{"a/b":2,"c~d":2,"~1":2}`,
			want: `[{"op":"replace","path":"/a~1b","value":2},{"op":"replace","path":"/c~0d","value":2},{"op":"replace","path":"/~01","value":2}]`},
		{name: "escaped key is decoded", original: `{"\u0061":1}`, modified: `{"a":2}`,
			want: `[{"op":"replace","path":"/a","value":2}]`},
		{name: "empty key", original: `{"":1}`, modified: `{"":2}`, want: `[{"op":"replace","path":"/","value":2}]`},
		{name: "duplicate keys: the last one counts", original: `{"a":1,"a":2}`, modified: `{"a":2}`, want: `[]`},
		{name: "whitespace in values is compacted", original: `{}`, modified: "{\"a\": { \"b\" : [ 1 , \"x y\" ] }\n}",
			want: `[{"op":"add","path":"/a","value":{"b":[1,"x y"]}}]`},
		{name: "scalar root", original: `1`, modified: `"x"`, want: `[{"op":"replace","path":"","value":"x"}]`, scalarRoot: true},
		{name: "root type change", original: `{"a":1}`, modified: `[1]`, want: `[{"op":"replace","path":"","value":[1]}]`},

		{name: "array append", original: `[1,2]`, modified: `[1,2,3,4]`,
			want: `[{"op":"add","path":"/2","value":3},{"op":"add","path":"/3","value":4}]`},
		{name: "array prepend", original: `[1,2]`, modified: `[0,1,2]`,
			want: `[{"op":"add","path":"/0","value":0}]`},
		{name: "array remove in the middle", original: `[1,2,3,4]`, modified: `[1,4]`,
			want: `[{"op":"remove","path":"/2"},{"op":"remove","path":"/1"}]`},
		{name: "array edit in place recurses", original: `[{"n":"a","v":1},{"n":"b","v":1}]`, modified: `[{"n":"a","v":1},{"n":"b","v":2}]`,
			want: `[{"op":"replace","path":"/1/v","value":2}]`},
		{name: "array edit and shrink", original: `[1,2,3,9]`, modified: `[1,5,9]`,
			want: `[{"op":"replace","path":"/1","value":5},{"op":"remove","path":"/2"}]`},
		{name: "array edit and grow", original: `[1,2,9]`, modified: `[1,5,6,7,9]`,
			want: `[{"op":"replace","path":"/1","value":5},{"op":"add","path":"/2","value":6},{"op":"add","path":"/3","value":7}]`},
		{name: "array repeated elements", original: `[1,1,1]`, modified: `[1,1]`, want: `[{"op":"remove","path":"/2"}]`},
		{name: "array emptied", original: `{"a":[1,2]}`, modified: `{"a":[]}`,
			want: `[{"op":"remove","path":"/a/1"},{"op":"remove","path":"/a/0"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Diff([]byte(tt.original), []byte(tt.modified))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			encoded, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("marshalling the patch: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(encoded)); diff != "" {
				t.Errorf("patch mismatch (-want +got):\n%s", diff)
			}
			if tt.scalarRoot {
				return
			}
			applied := mustApply(t, []byte(tt.original), got)
			if diff := cmp.Diff(semantic(t, []byte(tt.modified)), semantic(t, applied)); diff != "" {
				t.Errorf("applying the patch did not give modified (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffInvalidJSON(t *testing.T) {
	tests := []struct {
		name               string
		original, modified string
		want               SyntaxError
	}{
		{name: "empty original", original: ``, modified: `{}`,
			want: SyntaxError{Document: "original", Offset: 0, Reason: "unexpected end of input, expected a value"}},
		{name: "identical but invalid", original: `{`, modified: `{`,
			want: SyntaxError{Document: "original", Offset: 1, Reason: "unexpected end of input in object, expected a member name"}},
		{name: "trailing comma", original: `{}`, modified: `{"a":1,}`,
			want: SyntaxError{Document: "modified", Offset: 7, Reason: `unexpected character '}', expected a member name in double quotes`}},
		{name: "trailing data", original: `{} {}`, modified: `{}`,
			want: SyntaxError{Document: "original", Offset: 3, Reason: `unexpected character '{' after the top-level value`}},
		{name: "bad literal", original: `[tru]`, modified: `[]`,
			want: SyntaxError{Document: "original", Offset: 1, Reason: `invalid literal, expected "true"`}},
		{name: "leading zero", original: `{}`, modified: `[01]`,
			want: SyntaxError{Document: "modified", Offset: 2, Reason: `unexpected character '1' in array, expected ',' or ']'`}},
		{name: "bare fraction", original: `{}`, modified: `[1.]`,
			want: SyntaxError{Document: "modified", Offset: 3, Reason: `invalid number, expected a digit after the decimal point`}},
		{name: "bad exponent", original: `{}`, modified: `[1e+]`,
			want: SyntaxError{Document: "modified", Offset: 4, Reason: `invalid number, expected a digit in the exponent`}},
		{name: "minus alone", original: `-`, modified: `[]`,
			want: SyntaxError{Document: "original", Offset: 1, Reason: `invalid number, expected a digit`}},
		{name: "unterminated string", original: `{}`, modified: `{"abc`,
			want: SyntaxError{Document: "modified", Offset: 1, Reason: `unterminated string`}},
		{name: "control character", original: "[\"a\tb\"]", modified: `[]`,
			want: SyntaxError{Document: "original", Offset: 3, Reason: `control character byte 0x09 in string (must be escaped)`}},
		{name: "invalid UTF-8", original: "[\"ab\xff\"]", modified: `[]`,
			want: SyntaxError{Document: "original", Offset: 4, Reason: `invalid UTF-8 in string`}},
		{name: "bad escape", original: `["\x"]`, modified: `[]`,
			want: SyntaxError{Document: "original", Offset: 2, Reason: `invalid escape sequence \character 'x'`}},
		{name: "short unicode escape", original: `["\u12"]`, modified: `[]`,
			want: SyntaxError{Document: "original", Offset: 2, Reason: `invalid \u escape, expected four hexadecimal digits`}},
		{name: "missing colon", original: `{"a" 1}`, modified: `[]`,
			want: SyntaxError{Document: "original", Offset: 5, Reason: `expected ':' after member name`}},
		{name: "non-JSON byte", original: "\x00", modified: `[]`,
			want: SyntaxError{Document: "original", Offset: 0, Reason: `unexpected byte 0x00, expected a value`}},
		{name: "too deep", original: strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), modified: `[]`,
			want: SyntaxError{Document: "original", Offset: maxDepth, Reason: fmt.Sprintf("nesting deeper than %d levels", maxDepth)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Diff([]byte(tt.original), []byte(tt.modified))
			if got != nil {
				t.Errorf("Diff returned a patch with its error: %v", got)
			}
			var syntaxErr *SyntaxError
			if !errors.As(err, &syntaxErr) {
				t.Fatalf("Diff error = %v, want a *SyntaxError", err)
			}
			if diff := cmp.Diff(tt.want, *syntaxErr); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffAcceptsMaximumDepth(t *testing.T) {
	deep := []byte(strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth))
	modified := bytes.Replace(deep, []byte("[]"), []byte("[1]"), 1)
	got, err := Diff(deep, modified)
	if err != nil {
		t.Fatalf("Diff at the maximum depth: %v", err)
	}
	if len(got) != 1 || got[0].Op != OpAdd || string(got[0].Value) != "1" {
		t.Errorf("Diff = %v, want one add of 1", got)
	}
}

func TestDiffDoesNotAliasInputs(t *testing.T) {
	original, modified := []byte(`{"a":"x"}`), []byte(`{"a":"y"}`)
	got, err := Diff(original, modified)
	if err != nil {
		t.Fatal(err)
	}
	copy(modified, `{"a":"z"}`)
	if diff := cmp.Diff(`"y"`, string(got[0].Value)); diff != "" {
		t.Errorf("the patch changed with its input (-want +got):\n%s", diff)
	}
}
