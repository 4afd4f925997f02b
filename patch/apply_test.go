package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApply(t *testing.T) {
	const pod = `{"metadata":{"name":"p","labels":{"app":"web","a/b":"1","c~d":"2"},"annotations":null},` +
		`"spec":{"containers":[{"name":"app","ports":[80,1.0e2]},{"name":"side"}],"dup":1,"dup":2}}`
	tests := []struct {
		name  string
		doc   string
		patch Patch
		want  string // the patched document, exactly
	}{
		{
			name:  "an empty patch compacts and keeps everything as written",
			doc:   "{ \"a\" : [ 1.0e2 , \"\\u0061\" ] }",
			patch: Patch{},
			want:  `{"a":[1.0e2,"\u0061"]}`,
		},
		{
			name:  "add a member, a label with escapes, an element at the end; an object gone through loses its duplicate keys",
			doc:   pod,
			patch: Patch{{Op: OpAdd, Path: "/metadata/labels/x~1y", Value: json.RawMessage(`"z"`)}, {Op: OpAdd, Path: "/spec/containers/-", Value: json.RawMessage(`{"name":"new"}`)}},
			want: `{"metadata":{"name":"p","labels":{"app":"web","a/b":"1","c~d":"2","x/y":"z"},"annotations":null},` +
				`"spec":{"containers":[{"name":"app","ports":[80,1.0e2]},{"name":"side"},{"name":"new"}],"dup":2}}`,
		},
		{
			name:  "add overwrites a member in place; remove takes out a duplicated key whole",
			doc:   pod,
			patch: Patch{{Op: OpAdd, Path: "/metadata/name", Value: json.RawMessage(`"q"`)}, {Op: OpRemove, Path: "/spec/dup"}},
			want: `{"metadata":{"name":"q","labels":{"app":"web","a/b":"1","c~d":"2"},"annotations":null},` +
				`"spec":{"containers":[{"name":"app","ports":[80,1.0e2]},{"name":"side"}]}}`,
		},
		{
			name: "negative indices count from the end: -1 appends on add and names the last element otherwise",
			doc:  `{"a":[1,2,3]}`,
			patch: Patch{
				{Op: OpAdd, Path: "/a/-1", Value: json.RawMessage(`4`)},
				{Op: OpAdd, Path: "/a/-5", Value: json.RawMessage(`0`)},
				{Op: OpReplace, Path: "/a/-1", Value: json.RawMessage(`"last"`)},
				{Op: OpRemove, Path: "/a/-2"},
			},
			want: `{"a":[0,1,2,"last"]}`,
		},
		{
			name:  "replace of a missing member adds it; add and replace without a value write null",
			doc:   `{"a":1}`,
			patch: Patch{{Op: OpReplace, Path: "/b", Value: json.RawMessage(`2`)}, {Op: OpAdd, Path: "/c"}, {Op: OpReplace, Path: "/a"}},
			want:  `{"a":null,"b":2,"c":null}`,
		},
		{
			name:  "a tilde that escapes nothing stands for itself",
			doc:   `{"~2":1}`,
			patch: Patch{{Op: OpReplace, Path: "/~2", Value: json.RawMessage(`2`)}},
			want:  `{"~2":2}`,
		},
		{
			name:  "operations reach into values added before them",
			doc:   `{}`,
			patch: Patch{{Op: OpAdd, Path: "/x", Value: json.RawMessage(`{ "y" : [ ] }`)}, {Op: OpAdd, Path: "/x/y/0", Value: json.RawMessage(`1`)}},
			want:  `{"x":{"y":[1]}}`,
		},
		{
			name:  "move and copy",
			doc:   `{"a":{"b":[1]},"c":{}}`,
			patch: Patch{{Op: OpMove, From: "/a/b", Path: "/c/b"}, {Op: OpCopy, From: "/c/b", Path: "/c/b/-"}, {Op: OpMove, From: "/c", Path: "/c"}},
			want:  `{"a":{},"c":{"b":[1,[1]]}}`,
		},
		{
			name:  "test compares by value",
			doc:   `{"n":1.0,"s":"\u0061","o":{"x":[1],"y":null}}`,
			patch: Patch{{Op: OpTest, Path: "/n", Value: json.RawMessage(`1`)}, {Op: OpTest, Path: "/s", Value: json.RawMessage(`"a"`)}, {Op: OpTest, Path: "/o", Value: json.RawMessage(`{"y":null,"x":[1e0]}`)}},
			want:  `{"n":1.0,"s":"\u0061","o":{"x":[1],"y":null}}`,
		},
		{
			name:  "replace the document",
			doc:   `{"a":1}`,
			patch: Patch{{Op: OpReplace, Path: "", Value: json.RawMessage(`[true]`)}, {Op: OpAdd, Path: "/0", Value: json.RawMessage(`false`)}},
			want:  `[false,true]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := []byte(tt.doc)
			got, err := Apply(doc, tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Apply (-want +got):\n%s", diff)
			}
			if string(doc) != tt.doc {
				t.Errorf("Apply changed its input to %s", doc)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	const doc = `{"a":{"b":[1,2]},"s":"x","n":null}`
	tests := []struct {
		name  string
		doc   string
		patch Patch
		want  string
	}{
		{"a document that is not JSON", `{"a":`, nil, "target document: invalid JSON at offset 5: unexpected end of input, expected a value"},
		{"a document that is not an object or array", `"x"`, nil, "target document: not a JSON object or array"},
		{"a value that is not JSON", doc, Patch{{Op: OpAdd, Path: "/x", Value: json.RawMessage(`{`)}},
			`operation 0 (add "/x"): value document: invalid JSON at offset 1: unexpected end of input in object, expected a member name`},
		{"an unknown op", doc, Patch{{Op: "Add", Path: "/x"}}, `operation 0 (Add "/x"): unknown op "Add"`},
		{"a path without its slash", doc, Patch{{Op: OpRemove, Path: "a"}}, `operation 0 (remove "a"): path must start with "/"`},
		{"through a missing member", doc, Patch{{Op: OpAdd, Path: "/x/y", Value: json.RawMessage(`1`)}}, `operation 0 (add "/x/y"): no value at "/x"`},
		{"through null", doc, Patch{{Op: OpAdd, Path: "/n/y", Value: json.RawMessage(`1`)}}, `operation 0 (add "/n/y"): the value at "/n" is not an object or array`},
		{"through a string", doc, Patch{{Op: OpAdd, Path: "/s/y", Value: json.RawMessage(`1`)}}, `operation 0 (add "/s/y"): the value at "/s" is not an object or array`},
		{"through an element out of range", doc, Patch{{Op: OpAdd, Path: "/a/b/2/c", Value: json.RawMessage(`1`)}}, `operation 0 (add "/a/b/2/c"): no value at "/a/b/2"`},
		{"add beyond the end", doc, Patch{{Op: OpAdd, Path: "/a/b/3", Value: json.RawMessage(`1`)}},
			`operation 0 (add "/a/b/3"): index 3 is out of range for inserting into an array of 2 elements`},
		{"add too far from the end", doc, Patch{{Op: OpAdd, Path: "/a/b/-4", Value: json.RawMessage(`1`)}},
			`operation 0 (add "/a/b/-4"): index -4 is out of range for inserting into an array of 2 elements`},
		{"an index that is no number", doc, Patch{{Op: OpReplace, Path: "/a/b/x", Value: json.RawMessage(`1`)}}, `operation 0 (replace "/a/b/x"): "x" is not an array index`},
		{"remove \"-\"", doc, Patch{{Op: OpRemove, Path: "/a/b/-"}}, `operation 0 (remove "/a/b/-"): "-" is not an array index`},
		{"replace beyond the end", doc, Patch{{Op: OpReplace, Path: "/a/b/2", Value: json.RawMessage(`1`)}},
			`operation 0 (replace "/a/b/2"): index 2 is out of range for an array of 2 elements`},
		{"remove a missing member", doc, Patch{{Op: OpRemove, Path: "/x"}}, `operation 0 (remove "/x"): no member "x"`},
		{"add to the document itself", doc, Patch{{Op: OpAdd, Path: "", Value: json.RawMessage(`{}`)}}, `operation 0 (add ""): cannot add to the document itself; replace it`},
		{"remove the document", doc, Patch{{Op: OpRemove, Path: ""}}, `operation 0 (remove ""): cannot remove the document itself`},
		{"replace the document with a string", doc, Patch{{Op: OpReplace, Path: "", Value: json.RawMessage(`"x"`)}},
			`operation 0 (replace ""): the document can only be replaced by an object or array`},
		{"move into itself", doc, Patch{{Op: OpMove, From: "/a", Path: "/a/c"}}, `operation 0 (move "/a/c"): no value at "/a"`},
		{"move from a missing member", doc, Patch{{Op: OpMove, From: "/x", Path: "/y"}}, `operation 0 (move "/y"): from: no member "x"`},
		{"move a missing member onto itself", doc, Patch{{Op: OpMove, From: "/x", Path: "/x"}}, `operation 0 (move "/x"): no member "x"`},
		{"copy from a missing member", doc, Patch{{Op: OpCopy, From: "/x", Path: "/y"}}, `operation 0 (copy "/y"): from: no member "x"`},
		{"test a missing member", doc, Patch{{Op: OpTest, Path: "/x", Value: json.RawMessage(`1`)}}, `operation 0 (test "/x"): no member "x": test failed`},
		{"test a different value", doc, Patch{{Op: OpTest, Path: "/a/b", Value: json.RawMessage(`[1,2,3]`)}}, `operation 0 (test "/a/b"): value differs: test failed`},
		{"the second operation fails", doc, Patch{{Op: OpRemove, Path: "/s"}, {Op: OpRemove, Path: "/s"}}, `operation 1 (remove "/s"): no member "s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply([]byte(tt.doc), tt.patch)
			if err == nil {
				t.Fatalf("Apply = %s, want error %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyChanged(t *testing.T) {
	const doc = `{"a":{"b":[1,2],"c":"x"},"d":1.0,"e":"\u0061","f":{"g":1,"g":2}}`
	tests := []struct {
		name    string
		patch   string
		changed bool
	}{
		{"nothing", `[]`, false},
		{"a value replaced by itself", `[{"op":"replace","path":"/a/c","value":"x"}]`, false},
		{"a number respelled", `[{"op":"replace","path":"/d","value":1}]`, false},
		{"a string re-escaped", `[{"op":"add","path":"/e","value":"a"}]`, false},
		{"an object rebuilt in another order", `[{"op":"replace","path":"/a","value":{"c":"x","b":[1,2.0]}}]`, false},
		{"a member removed and added back", `[{"op":"remove","path":"/a/c"},{"op":"add","path":"/a/c","value":"x"}]`, false},
		{"an element removed and added back", `[{"op":"remove","path":"/a/b/0"},{"op":"add","path":"/a/b/0","value":1}]`, false},
		{"the duplicate that counts, rewritten", `[{"op":"replace","path":"/f/g","value":2}]`, false},
		{"the document replaced by itself", `[{"op":"replace","path":"","value":{"d":1,"e":"a","f":{"g":2},"a":{"b":[1,2],"c":"x"}}}]`, false},
		{"tests only", `[{"op":"test","path":"/a/b/1","value":2}]`, false},
		{"a member added", `[{"op":"add","path":"/a/z","value":null}]`, true},
		{"an element added", `[{"op":"add","path":"/a/b/-","value":3}]`, true},
		{"elements swapped", `[{"op":"move","from":"/a/b/0","path":"/a/b/-"}]`, true},
		{"a number changed", `[{"op":"replace","path":"/d","value":1.5}]`, true},
		{"a member renamed", `[{"op":"move","from":"/a/c","path":"/a/C"}]`, true},
		{"a value replaced by one of another type", `[{"op":"replace","path":"/a/c","value":["x"]}]`, true},
		{"a value changed inside an added one", `[{"op":"replace","path":"/a","value":{"b":[1,2],"c":"x"}},{"op":"add","path":"/a/b/-","value":3}]`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Patch
			if err := json.Unmarshal([]byte(tt.patch), &p); err != nil {
				t.Fatal(err)
			}
			_, changed, err := ApplyChanged([]byte(doc), p)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tt.changed {
				t.Errorf("changed = %t, want %t", changed, tt.changed)
			}
		})
	}
}

func TestApplyErrorTypes(t *testing.T) {
	_, err := Apply([]byte(`{"a":1}`), Patch{{Op: OpTest, Path: "/a", Value: json.RawMessage(`2`)}})
	var applyErr *ApplyError
	if !errors.As(err, &applyErr) || applyErr.Index != 0 || applyErr.Op != OpTest || applyErr.Path != "/a" {
		t.Errorf("error %#v is not an *ApplyError naming operation 0 (test /a)", err)
	}
	if !errors.Is(err, ErrTestFailed) {
		t.Errorf("error %v does not wrap ErrTestFailed", err)
	}
	_, err = Apply([]byte(`{}`), Patch{{Op: OpAdd, Path: "/a", Value: json.RawMessage(`tru`)}})
	var syntax *SyntaxError
	if !errors.As(err, &syntax) || syntax.Document != "value" || syntax.Offset != 0 {
		t.Errorf("error %#v does not wrap the value's *SyntaxError", err)
	}
}

// TestApplyCopyLimit checks that a patch cannot grow a document without bound by copying a
// member into itself, the attack kube-apiserver's copy limit stops.
func TestApplyCopyLimit(t *testing.T) {
	doc := []byte(`{"a":["` + strings.Repeat("x", 1000) + `"]}`)
	var p Patch
	for range 20 {
		p = append(p, Operation{Op: OpCopy, From: "/a", Path: "/a/-"})
	}
	_, err := Apply(doc, p)
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 3145728") {
		t.Fatalf("Apply = %v, want the copy limit's error", err)
	}
	var applyErr *ApplyError
	if !errors.As(err, &applyErr) || applyErr.Index >= 20 || applyErr.Index < 10 {
		t.Errorf("the limit stopped operation %v; each copy doubles the array, so it is reached after about 11", applyErr)
	}
}

// FuzzApply checks that Apply never panics, never changes its input, and returns valid compact
// JSON or an error. Its agreement with evanphx, operation by operation and with the documented
// departures only, is dispatch's FuzzPatchApplyMatchesEvanphx (which can import evanphx).
func FuzzApply(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":null}],"c~d":"e"}`), []byte(`[{"op":"add","path":"/a/-","value":2},{"op":"remove","path":"/c~0d"}]`))
	f.Add([]byte(`[[],{}]`), []byte(`[{"op":"move","from":"/0","path":"/1/x"},{"op":"copy","from":"/0","path":"/-1"},{"op":"test","path":"/0/x","value":[]}]`))
	f.Add([]byte(`{"a":1}`), []byte(`[{"op":"replace","path":"","value":{"b":[ 1 ]}},{"op":"add","path":"/b/-1","value":0}]`))
	f.Fuzz(func(t *testing.T, doc, rawPatch []byte) {
		var p Patch
		if json.Unmarshal(rawPatch, &p) != nil {
			return
		}
		original := bytes.Clone(doc)
		got, err := Apply(doc, p)
		if !bytes.Equal(doc, original) {
			t.Fatalf("Apply changed its input from %q to %q", original, doc)
		}
		if err != nil {
			return
		}
		if _, changed, _ := ApplyChanged(doc, p); checkChanged(doc, got, changed) != nil {
			t.Fatalf("Apply(%q, %s): %v", doc, rawPatch, checkChanged(doc, got, changed))
		}
		if !json.Valid(got) {
			t.Fatalf("Apply(%q, %s) = %q, not JSON", doc, rawPatch, got)
		}
		var compact bytes.Buffer
		_ = json.Compact(&compact, got)
		if !bytes.Equal(compact.Bytes(), got) {
			t.Fatalf("Apply(%q, %s) = %q, not compact", doc, rawPatch, got)
		}
	})
}

func TestPointerTokens(t *testing.T) {
	tests := []struct {
		pointer string
		want    []string
		err     string
	}{
		{pointer: "", want: nil},
		{pointer: "/", want: []string{""}},
		{pointer: "/metadata/labels/a~1b", want: []string{"metadata", "labels", "a/b"}},
		{pointer: "/a~01/~2/-", want: []string{"a~1", "~2", "-"}},
		{pointer: "a/b", err: `JSON pointer "a/b" does not start with "/"`},
	}
	for _, tt := range tests {
		got, err := PointerTokens(tt.pointer)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("PointerTokens(%q) error = %v, want %q", tt.pointer, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("PointerTokens(%q) (-want +got):\n%s", tt.pointer, diff)
		}
	}
}

// Like kube-apiserver's library, a test of a missing member with null succeeds; with any other
// value it fails, and so does a test below a missing member.
func TestApplyTestOfAMissingMember(t *testing.T) {
	doc := []byte(`{"a":{}}`)
	if _, err := Apply(doc, Patch{{Op: OpTest, Path: "/a/x", Value: json.RawMessage(`null`)}}); err != nil {
		t.Errorf("test null of a missing member: %v", err)
	}
	if _, err := Apply(doc, Patch{{Op: OpTest, Path: "/a/x"}}); err != nil {
		t.Errorf("test without a value (null) of a missing member: %v", err)
	}
	if _, err := Apply(doc, Patch{{Op: OpTest, Path: "/b/x", Value: json.RawMessage(`null`)}}); err == nil {
		t.Error("test below a missing member succeeded")
	}
}
