package dispatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/fuzzcorpus"
	"github.com/admitkit/admit/patch"
)

// sampleObject has what paths go through in real patches: nested objects, arrays of objects,
// keys that need escaping in a pointer, nulls, numbers spelled two ways and a duplicate key.
const sampleObject = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web","a/b":"1","c~d":"2"},"annotations":null},
 "spec":{"containers":[{"name":"app","image":"nginx","env":[{"name":"A","value":"1"}],"ports":[80, 1.0e2]},{"name":"side","image":"x"}],
 "volumes":[],"priority":0,"dup":1,"dup":2},"status":{}}`

// TestApplyPatchMatchesEvanphx holds applyPatch to evanphx on patches that reach each of its
// departures from RFC 6902, the fast path's edges, and patches only evanphx applies.
func TestApplyPatchMatchesEvanphx(t *testing.T) {
	patches := []string{
		`[]`,
		`[{"op":"add","path":"/metadata/labels/new","value":"x"}]`,
		`[{"op":"add","path":"/metadata/labels/app","value":"overwritten"}]`,
		`[{"op":"add","path":"/metadata/labels/a~1b","value":"slash"},{"op":"remove","path":"/metadata/labels/c~0d"}]`,
		`[{"op":"add","path":"/metadata/labels/x~2y","value":"a tilde that escapes nothing"}]`,
		`[{"op":"add","path":"/spec/containers/-","value":{"name":"sidecar","image":"busybox"}}]`,
		`[{"op":"add","path":"/spec/containers/0","value":{"name":"first"}}]`,
		`[{"op":"add","path":"/spec/containers/2","value":{"name":"last"}}]`,
		`[{"op":"add","path":"/spec/containers/3","value":{"name":"beyond"}}]`,
		`[{"op":"add","path":"/spec/containers/-1","value":{"name":"negative appends"}}]`,
		`[{"op":"add","path":"/spec/containers/-3","value":{"name":"negative prepends"}}]`,
		`[{"op":"add","path":"/spec/containers/-4","value":{"name":"too negative"}}]`,
		`[{"op":"add","path":"/spec/containers/+1","value":{"name":"signed"}}]`,
		`[{"op":"add","path":"/spec/containers/01","value":{"name":"leading zero"}}]`,
		`[{"op":"add","path":"/spec/containers/x","value":{}}]`,
		`[{"op":"add","path":"/spec/containers/0/env/-","value":{"name":"B","value":"2"}}]`,
		`[{"op":"add","path":"/spec/containers/-1/env/-","value":{"name":"B"}}]`,
		`[{"op":"add","path":"/spec/containers/5/env/-","value":{"name":"B"}}]`,
		`[{"op":"add","path":"/metadata/annotations/a","value":"below null"}]`,
		`[{"op":"add","path":"/metadata/missing/a","value":"below nothing"}]`,
		`[{"op":"add","path":"/metadata/name/a","value":"below a string"}]`,
		`[{"op":"add","path":"/spec/priority/a","value":"below a number"}]`,
		`[{"op":"add","path":"/metadata/labels/new"}]`,
		`[{"op":"add","path":"/metadata/labels/new","value":null}]`,
		`[{"op":"add","path":"/x","value":{"y":[1]}},{"op":"add","path":"/x/y/-","value":2},{"op":"add","path":"/x/z","value":3}]`,
		`[{"op":"add","path":"/x","value":null},{"op":"add","path":"/x/y","value":1}]`,
		`[{"op":"add","path":"","value":{}}]`,
		`[{"op":"add","path":"/","value":"empty key"}]`,
		`[{"op":"add","path":"metadata/labels","value":{}}]`,
		`[{"op":"add","path":"a/b","value":1}]`,
		`[{"op":"remove","path":"/metadata/labels/app"}]`,
		`[{"op":"remove","path":"/metadata/labels/absent"}]`,
		`[{"op":"remove","path":"/metadata/annotations"}]`,
		`[{"op":"remove","path":"/spec/containers/1"},{"op":"remove","path":"/spec/containers/1"}]`,
		`[{"op":"remove","path":"/spec/containers/-1"}]`,
		`[{"op":"remove","path":"/spec/containers/-3"}]`,
		`[{"op":"remove","path":"/spec/containers/-"}]`,
		`[{"op":"remove","path":"/spec/dup"}]`,
		`[{"op":"remove","path":"/spec/volumes/0"}]`,
		`[{"op":"remove","path":""}]`,
		`[{"op":"replace","path":"/metadata/name","value":"q"}]`,
		`[{"op":"replace","path":"/metadata/absent","value":"replace adds a missing member"}]`,
		`[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:2"}]`,
		`[{"op":"replace","path":"/spec/containers/-2/image","value":"negative"}]`,
		`[{"op":"replace","path":"/spec/containers/2","value":{}}]`,
		`[{"op":"replace","path":"/spec/containers/-","value":{}}]`,
		`[{"op":"replace","path":"/spec/dup","value":3}]`,
		`[{"op":"replace","path":"/metadata/annotations","value":{"a":"b"}},{"op":"add","path":"/metadata/annotations/c","value":"d"}]`,
		`[{"op":"replace","path":"/metadata/labels"}]`,
		`[{"op":"replace","path":"","value":{"kind":"Other"}}]`,
		`[{"op":"replace","path":"","value":"a string"}]`,
		`[{"op":"move","from":"/metadata/labels/app","path":"/metadata/labels/application"}]`,
		`[{"op":"move","from":"/metadata","path":"/metadata/x"}]`,
		`[{"op":"copy","from":"/spec/containers/0","path":"/spec/containers/-"}]`,
		`[{"op":"copy","from":"/metadata/absent","path":"/metadata/copied"}]`,
		`[{"op":"add","path":"/n","value":null},{"op":"copy","from":"/n","path":"/c"},{"op":"add","path":"/c/x","value":1}]`,
		`[{"op":"test","path":"/spec/containers/0/ports/1","value":100}]`,
		`[{"op":"test","path":"/spec/containers/0/ports/1","value":1.0e2}]`,
		`[{"op":"test","path":"/metadata/annotations","value":null}]`,
		`[{"op":"test","path":"/metadata/labels/app","value":"other"}]`,
		`[{"op":"Add","path":"/metadata/labels/x","value":"1"}]`,
		`[{"path":"/metadata/labels/x","value":"1"}]`,
		`[{"op":"add","value":"1"}]`,
		`[{"op":"add","path":1,"value":"1"}]`,
		`[{"op":"add","path":"/metadata/labels/x","value":"1","extra":true}]`,
		`[{"op":"add","path":"/metadata/labels/x","value":"<&>"}]`,
		`[{"op":"add", "path" : "/metadata/labels/x", "value" : { "spaced" : [ 1 , 2 ] } }]`,
	}
	objects := []string{sampleObject, `{}`, ` {"a":1}`, `[1,2]`, `{"a":{"a":{"a":[[],[{}]]}}}`}
	for _, object := range objects {
		for _, p := range patches {
			t.Run(fmt.Sprintf("%.12s %s", object, p), func(t *testing.T) {
				checkApplyPatch(t, []byte(object), []byte(p))
			})
		}
	}
}

// FuzzApplyMatchesEvanphx applies JSON patches with applyPatch and with evanphx: both fail with
// the same message, or both succeed with the same JSON value. The patch is either the second
// input as it is, or, when that is no JSON patch, operations generated from its bytes against
// the document's own paths, which is how the fuzzer reaches deep into the fast path.
func FuzzApplyMatchesEvanphx(f *testing.F) {
	f.Add([]byte(sampleObject), []byte(`[{"op":"add","path":"/spec/containers/-","value":{"name":"s"}}]`))
	f.Add([]byte(sampleObject), []byte{0, 7, 3, 1, 12, 0, 2, 40, 5, 0, 3, 9})
	f.Add([]byte(`{"a":[{"b":{}}],"c":null}`), []byte{0, 1, 2, 2, 3, 4, 1, 5, 6})
	f.Add([]byte(`{"a":{"b~c":[1,[2]],"d/e":""}}`), []byte{0, 2, 1, 0, 3, 6, 2, 4, 7, 1, 1, 1})
	f.Fuzz(func(t *testing.T, object, program []byte) {
		p := program
		if _, err := jsonpatch.DecodePatch(program); err != nil {
			p = generatePatch(object, program)
		}
		checkApplyPatch(t, object, p)
	})
}

// The committed corpus of FuzzApplyMatchesEvanphx reaches patch.Apply: applyPatch leaves every
// other patch to evanphx, and the fuzz target then compares evanphx with itself. A patch is
// applied by patch.Apply when applyPatch's condition holds: add, remove and replace below the
// root of an object, applied without error, with UTF-8 as the result.
func TestFuzzApplyMatchesEvanphxCorpusReachesTheFastPath(t *testing.T) {
	entries := fuzzcorpus.Read(t, "FuzzApplyMatchesEvanphx")
	fast := 0
	for _, e := range entries {
		object, program := e.Values[0].([]byte), e.Values[1].([]byte)
		raw := program
		if _, err := jsonpatch.DecodePatch(program); err != nil {
			raw = generatePatch(object, program)
		}
		checkApplyPatch(t, object, raw)
		ops, err := jsonpatch.DecodePatch(raw)
		if err != nil {
			continue
		}
		if p, ok := fastPatch(ops); ok && len(object) > 0 && object[0] == '{' {
			if patched, err := patch.Apply(object, p); err == nil && utf8.Valid(patched) {
				fast++
			}
		}
	}
	t.Logf("patch.Apply took %d of %d corpus patches", fast, len(entries))
	const floor = 68
	if fast < floor {
		t.Errorf("patch.Apply took %d corpus patches, fewer than %d", fast, floor)
	}
}

func checkApplyPatch(t *testing.T, object, rawPatch []byte) {
	t.Helper()
	// Each side decodes the patch itself: neither may see what the other did to it.
	want, wantErr := decodeAndApply(object, rawPatch, applyEvanphx)
	// The dispatcher passes the object parsed when it is the request's; both ways must agree.
	parsed, _ := patch.Parse(object)
	for _, parsed := range []*patch.Document{nil, parsed} {
		got, gotErr := decodeAndApply(object, rawPatch, func(object []byte, ops jsonpatch.Patch) ([]byte, error) {
			applied, err := applyPatch(object, parsed, ops)
			return applied.object, err
		})
		if wantErr != nil || gotErr != nil {
			if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
				t.Fatalf("object %s, patch %s, parsed %t:\nevanphx:    %s %v\napplyPatch: %s %v", object, rawPatch, parsed != nil, want, wantErr, got, gotErr)
			}
			continue
		}
		if bytes.Equal(want, got) { // also for an empty object, which evanphx returns as it is
			continue
		}
		if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, got)); diff != "" {
			t.Fatalf("object %s, patch %s, parsed %t:\nevanphx:    %s\napplyPatch: %s\n(-evanphx +applyPatch):\n%s", object, rawPatch, parsed != nil, want, got, diff)
		}
	}
}

func decodeAndApply(object, rawPatch []byte, apply func([]byte, jsonpatch.Patch) ([]byte, error)) ([]byte, error) {
	ops, err := jsonpatch.DecodePatch(rawPatch)
	if err != nil {
		return nil, err
	}
	return apply(bytes.Clone(object), ops)
}

// jsonValue decodes a document for comparison by value, numbers kept as written.
func jsonValue(t *testing.T, doc []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("a patched document is not JSON: %v\n%s", err, doc)
	}
	return v
}

// generatePatch writes up to eight operations chosen by program's bytes, three per operation:
// the op, a path (one of the document's own, or one derived from it: an index at or beyond an
// end, negative, signed, "-", a new or escaped key) and a value.
func generatePatch(object, program []byte) []byte {
	var doc any
	paths := []string{""}
	if json.Unmarshal(object, &doc) == nil {
		paths = collectPaths(doc, "", paths)
	}
	values := []string{`null`, `1`, `"s"`, `{}`, `[]`, `{"a":[1,{"b":null}]}`, `[1, 2]`, `{ "x" : { "y" : 1 } }`, `true`, `"<&>"`}
	ops := []string{"add", "add", "add", "remove", "replace", "replace", "move", "copy", "test"}
	suffixes := []string{"", "/-", "/0", "/1", "/-1", "/-2", "/9", "/+0", "/01", "/new", "/a~1b", "/c~0d", "/~2", "/", "/null"}
	var out []string
	for i := 0; i+2 < len(program) && len(out) < 8; i += 3 {
		op := ops[int(program[i])%len(ops)]
		path := paths[int(program[i+1])%len(paths)] + suffixes[int(program[i+1])/len(paths)%len(suffixes)]
		value := values[int(program[i+2])%len(values)]
		switch op {
		case "remove":
			out = append(out, fmt.Sprintf(`{"op":%q,"path":%s}`, op, strconv.Quote(path)))
		case "move", "copy":
			from := paths[int(program[i+2])%len(paths)]
			out = append(out, fmt.Sprintf(`{"op":%q,"from":%s,"path":%s}`, op, strconv.Quote(from), strconv.Quote(path)))
		default:
			if program[i+2] >= 250 { // an add or replace without a value
				out = append(out, fmt.Sprintf(`{"op":%q,"path":%s}`, op, strconv.Quote(path)))
				continue
			}
			out = append(out, fmt.Sprintf(`{"op":%q,"path":%s,"value":%s}`, op, strconv.Quote(path), value))
		}
	}
	return []byte("[" + strings.Join(out, ",") + "]")
}

// collectPaths appends the JSON pointer of every value in doc, in a stable order.
func collectPaths(doc any, prefix string, paths []string) []string {
	switch v := doc.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := prefix + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			paths = collectPaths(v[k], p, append(paths, p))
		}
	case []any:
		for i, e := range v {
			p := prefix + "/" + strconv.Itoa(i)
			paths = collectPaths(e, p, append(paths, p))
		}
	}
	return paths
}

// TestApplyPatchFastPath checks that the patches webhooks send are applied by patch.Apply, not
// by the evanphx fallback, which would leave the dispatcher correct but slow.
func TestApplyPatchFastPath(t *testing.T) {
	tests := []struct {
		patch string
		fast  bool
	}{
		{`[{"op":"add","path":"/metadata/labels/new","value":"x"},{"op":"add","path":"/spec/containers/-","value":{"name":"s"}}]`, true},
		{`[{"op":"replace","path":"/spec/containers/0/image","value":"mirror/nginx"},{"op":"remove","path":"/metadata/labels/app"}]`, true},
		{`[{"op":"add","path":"/spec/containers/-1","value":{}},{"op":"replace","path":"/metadata/absent","value":1}]`, true},
		{`[{"op":"add","path":"/metadata/labels/x"}]`, true},
		{`[{"op":"move","from":"/metadata/labels/app","path":"/metadata/labels/b"}]`, false},
		{`[{"op":"test","path":"/metadata/name","value":"p"}]`, false},
		{`[{"op":"replace","path":"","value":{}}]`, false},
		{`[{"op":"add","path":"metadata/labels","value":{}}]`, false},
		{`[{"op":"remove","path":"/metadata/labels/absent"}]`, false}, // fails: evanphx writes the message
	}
	for _, tt := range tests {
		ops, err := jsonpatch.DecodePatch([]byte(tt.patch))
		if err != nil {
			t.Fatal(err)
		}
		fast, ok := fastPatch(ops)
		taken := ok
		if ok {
			_, err := patch.Apply([]byte(sampleObject), fast)
			taken = err == nil
		}
		if taken != tt.fast {
			t.Errorf("patch %s: fast path taken = %t, want %t", tt.patch, taken, tt.fast)
		}
	}
}

// A patch can carry bytes that are not UTF-8 (a JSON patch holds raw bytes). kube-apiserver
// decodes the patched object, which turns each into U+FFFD; the dispatcher does the same, and
// the result can then be diffed and encoded.
func TestApplyPatchReplacesInvalidUTF8(t *testing.T) {
	tests := []struct {
		name, patch, want string
	}{
		{"below the root (patch.Apply)", "[{\"op\":\"add\",\"path\":\"/a\",\"value\":\"x\xe5y\"}]", `{"a":"x` + "\ufffd" + `y","b":1}`},
		{"at the empty key (evanphx)", "[{\"op\":\"add\",\"path\":\"/\",\"value\":\"\xe5\"}]", `{"":"` + "\ufffd" + `","b":1}`},
		{"in a key", "[{\"op\":\"add\",\"path\":\"/k\xff\",\"value\":1}]", `{"b":1,"k` + "\ufffd" + `":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, err := jsonpatch.DecodePatch([]byte(tt.patch))
			if err != nil {
				t.Fatal(err)
			}
			got, err := applyPatch([]byte(`{"b":1}`), nil, ops)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(got.object) || !engine.SemanticallyEqual(got.object, []byte(tt.want)) || !got.changed {
				t.Errorf("patched %q (changed %v), want %s", got.object, got.changed, tt.want)
			}
		})
	}
}
