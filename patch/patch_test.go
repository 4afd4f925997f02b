package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPatchMarshalJSON(t *testing.T) {
	tests := []struct {
		name  string
		patch Patch
		want  string
	}{
		{name: "nil", patch: nil, want: `[]`},
		{name: "empty", patch: Patch{}, want: `[]`},
		{name: "value kept verbatim", patch: Patch{{Op: OpAdd, Path: "/a", Value: json.RawMessage(`{"b":1.50,"c":"\u00e9"}`)}},
			want: `[{"op":"add","path":"/a","value":{"b":1.50,"c":"\u00e9"}}]`},
		{name: "value compacted", patch: Patch{{Op: OpReplace, Path: "/a", Value: json.RawMessage("[ 1,\n\t\"x y\" ]")}},
			want: `[{"op":"replace","path":"/a","value":[1,"x y"]}]`},
		{name: "null value", patch: Patch{{Op: OpAdd, Path: "/a", Value: json.RawMessage(`null`)}},
			want: `[{"op":"add","path":"/a","value":null}]`},
		{name: "missing value written as null where required", patch: Patch{{Op: OpAdd, Path: "/a"}, {Op: OpReplace, Path: "/b"}, {Op: OpTest, Path: "/c"}},
			want: `[{"op":"add","path":"/a","value":null},{"op":"replace","path":"/b","value":null},{"op":"test","path":"/c","value":null}]`},
		{name: "no value where none is needed", patch: Patch{{Op: OpRemove, Path: "/a"}, {Op: OpMove, From: "/b", Path: "/c"}},
			want: `[{"op":"remove","path":"/a"},{"op":"move","path":"/c","from":"/b"}]`},
		{name: "path escaping", patch: Patch{{Op: OpRemove, Path: "/a\"b\\c\n\x01é\xff"}},
			want: `[{"op":"remove","path":"/a\"b\\c\n\u0001é\ufffd"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.patch.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("MarshalJSON mismatch (-want +got):\n%s", diff)
			}
			// encoding/json must accept it and agree.
			viaEncoding, err := json.Marshal(tt.patch)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(viaEncoding)); diff != "" {
				t.Errorf("json.Marshal mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPatchMarshalJSONRejectsInvalidValue(t *testing.T) {
	p := Patch{{Op: OpAdd, Path: "/ok", Value: json.RawMessage(`1`)}, {Op: OpAdd, Path: "/a", Value: json.RawMessage(`{"b":}`)}}
	_, err := p.MarshalJSON()
	var syntaxErr *SyntaxError
	if !errors.As(err, &syntaxErr) || syntaxErr.Offset != 5 {
		t.Fatalf("MarshalJSON error = %v, want a *SyntaxError at offset 5", err)
	}
	if want := `operation 1: add "/a": value document: invalid JSON at offset 5: unexpected character '}', expected a value`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestOperationRoundTrip(t *testing.T) {
	in := Patch{
		{Op: OpAdd, Path: "/a~1b/0", Value: json.RawMessage(`{"x":[null]}`)},
		{Op: OpReplace, Path: "/c", Value: json.RawMessage(`null`)},
		{Op: OpCopy, From: "/a", Path: "/d"},
	}
	encoded, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Patch
	if err := json.Unmarshal(encoded, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip mismatch (-in +out):\n%s", diff)
	}
}

// An operation is read as kube-apiserver's patch library reads it: what it refuses for a missing
// member is refused, and names match exactly.
func TestOperationUnmarshalJSON(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Operation
		wantErr string
	}{
		{in: `{"op":"add","path":"/a","value":{"b": 1}}`, want: Operation{Op: OpAdd, Path: "/a", Value: json.RawMessage(`{"b": 1}`)}},
		{in: `{"op":"replace","path":"","value":null}`, want: Operation{Op: OpReplace, Value: json.RawMessage(`null`)}},
		{in: `{"op":"remove","path":"/a"}`, want: Operation{Op: OpRemove, Path: "/a"}},
		{in: `{"op":"move","from":"/a","path":"/b"}`, want: Operation{Op: OpMove, Path: "/b", From: "/a"}},
		{in: `{"op":"add","path":"/a","path":"/b"}`, want: Operation{Op: OpAdd, Path: "/b"}},
		{in: `{"op":"replace","value":{}}`, wantErr: `replace operation: missing "path"`},
		{in: `{"op":"replace","path":null,"value":{}}`, wantErr: `replace operation: missing "path"`},
		{in: `{"op":"replace","Path":"/a","value":{}}`, wantErr: `replace operation: missing "path"`},
		{in: `{"path":"/a"}`, wantErr: `missing "op"`},
		{in: `{"op":"copy","path":"/a"}`, wantErr: `copy operation: missing "from"`},
		{in: `{"op":"add","path":3}`, wantErr: `add operation: "path": json: cannot unmarshal number into Go value of type string`},
		{in: `null`, wantErr: "patch operation is null, not an object"},
		{in: `[]`, wantErr: "json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
	} {
		var got Operation
		err := json.Unmarshal([]byte(tc.in), &got)
		if fmt.Sprint(err) != fmt.Sprint(errorOrNil(tc.wantErr)) {
			t.Errorf("%s: error %v, want %v", tc.in, err, errorOrNil(tc.wantErr))
			continue
		}
		if err == nil {
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.in, diff)
			}
		}
	}
}

func errorOrNil(text string) error {
	if text == "" {
		return nil
	}
	return errors.New(text)
}

// fmt prints a patch as the JSON a webhook sends, not as Go structs.
func TestPatchPrintsAsJSON(t *testing.T) {
	p := Patch{{Op: OpAdd, Path: "/metadata/labels/team", Value: json.RawMessage(`"web"`)}, {Op: OpRemove, Path: "/spec/x"}}
	const want = `[{"op":"add","path":"/metadata/labels/team","value":"web"},{"op":"remove","path":"/spec/x"}]`
	for _, verb := range []string{"%s", "%v"} {
		if got := fmt.Sprintf(verb, p); got != want {
			t.Errorf("Sprintf(%q) = %s, want %s", verb, got, want)
		}
	}
	if got := fmt.Sprint(Patch(nil)); got != "[]" {
		t.Errorf("a nil patch prints %s, want []", got)
	}
}
