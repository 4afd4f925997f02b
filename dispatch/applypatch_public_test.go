package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/internal/fuzzcorpus"
	"github.com/admitkit/admit/patch"
)

// patchApplySeeds are FuzzPatchApplyMatchesEvanphx's seeds: an object, and a patch or the bytes
// generatePatch makes one of. The tests include one that holds by meaning and not by spelling
// (ports[1] is written 1.0e2), one that does not hold at all, and one without a value.
var patchApplySeeds = [][2]string{
	{sampleObject, `[{"op":"move","from":"/spec/containers/0","path":"/spec/containers/-"},{"op":"copy","from":"/metadata","path":"/status/m"}]`},
	{sampleObject, `[{"op":"test","path":"/spec/priority","value":0},{"op":"replace","path":"","value":{"a":1}}]`},
	{sampleObject, `[{"op":"test","path":"/spec/containers/0/ports/1","value":100},{"op":"add","path":"/metadata/labels/x","value":"y"}]`},
	{sampleObject, `[{"op":"add","path":"/n","value":{"a":[1.0,"\u0061"]}},{"op":"test","path":"/n","value":{"a":[1,"a"]}},{"op":"remove","path":"/n/a/0"}]`},
	{sampleObject, `[{"op":"test","path":"/metadata/name","value":"q"}]`},
	{sampleObject, `[{"op":"test","path":"/metadata/annotations"}]`},
	{sampleObject, string([]byte{6, 7, 3, 7, 12, 0, 8, 40, 5, 4, 3, 9})},
	{`{"a":[{"b":{}}],"c":null}`, string([]byte{6, 1, 2, 7, 3, 4, 8, 5, 6})},
	{`[1,[2,{"x":null}]]`, string([]byte{7, 0, 1, 6, 2, 0, 4, 1, 3})},
}

// FuzzPatchApplyMatchesEvanphx holds the public patch.Apply, for every operation (move, copy,
// test, the root's replace, not only the fast path's add/remove/replace below the root), to
// kube-apiserver's library: both fail, or both give the same JSON value. patch.Apply's three
// documented departures are the only differences allowed: a copy from a missing member fails
// (evanphx writes null), so does a path that is not a JSON pointer (evanphx guesses), and test
// compares values by meaning (evanphx by spelling).
func FuzzPatchApplyMatchesEvanphx(f *testing.F) {
	for _, seed := range patchApplySeeds {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, object, program []byte) { checkPatchApply(t, object, program) })
}

// What checkPatchApply did with an input.
const (
	notCompared   = iota // not a patch patch.Apply can be given, or one evanphx refuses
	compared             // both fail, or both give the same value, or a departure but test's
	testByMeaning        // evanphx fails a test that holds by meaning, and patch.Apply passes it
)

// checkPatchApply compares patch.Apply with evanphx on object and the patch program is or makes,
// and says what it compared.
func checkPatchApply(t *testing.T, object, program []byte) int {
	t.Helper()
	raw := program
	if _, err := jsonpatch.DecodePatch(program); err != nil {
		raw = generatePatch(object, program)
	}
	// Member names are matched by case, as evanphx does ("pAth" is no path).
	var ops patch.Patch
	if kjson.UnmarshalCaseSensitivePreserveInts(raw, &ops) != nil || !json.Valid(object) || !utf8.Valid(object) || !utf8.Valid(raw) {
		return notCompared // not a patch patch.Apply can be given, or JSON it refuses by contract (RFC 8259: UTF-8)
	}
	if _, err := jsonpatch.DecodePatch(raw); err != nil {
		return notCompared // evanphx refuses the patch itself: nothing to compare
	}
	want, wantErr := decodeAndApply(object, raw, applyEvanphx)
	got, gotErr := patch.Apply(bytes.Clone(object), ops)
	var applyErr *patch.ApplyError
	outcome := compared
	switch {
	case wantErr != nil && gotErr != nil:
		return compared
	case wantErr == nil && gotErr != nil:
		if errors.As(gotErr, &applyErr) && applyErr.Op == "copy" && copiesAMissingMember(object, ops, applyErr.Index) {
			return compared // departure: a copy from a missing member
		}
		if errors.As(gotErr, &applyErr) && notAPointer(ops[applyErr.Index]) {
			return compared // departure: a path that is not a JSON pointer
		}
		t.Fatalf("object %s, patch %s:\nevanphx:     %s\npatch.Apply: %v", object, raw, want, gotErr)
	case wantErr != nil && gotErr == nil:
		if !strings.Contains(wantErr.Error(), "testing value") || !hasOp(ops, "test") {
			t.Fatalf("object %s, patch %s:\nevanphx:     %v\npatch.Apply: %s", object, raw, wantErr, got)
		}
		// Departure: test by meaning, where evanphx compares spelling. It holds only if every
		// test holds by meaning; the patch then does what it does without its tests.
		want, outcome = checkTestsByMeaning(t, object, raw, ops), testByMeaning
	}
	if !bytes.Equal(want, got) {
		if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, got)); diff != "" {
			t.Fatalf("object %s, patch %s:\nevanphx:     %s\npatch.Apply: %s\n(-evanphx +patch.Apply):\n%s", object, raw, want, got, diff)
		}
	}
	return outcome
}

// checkTestsByMeaning fails t unless each test operation of raw holds by meaning on the document
// as evanphx leaves it after the operations before it, and returns what evanphx makes of the
// patch without its tests. Neither the comparison nor the path's reading is patch.Apply's: the
// values are decoded by encoding/json and numbers compared as exact rationals; paths are read
// as evanphx reads them.
func checkTestsByMeaning(t *testing.T, object, raw []byte, ops patch.Patch) []byte {
	t.Helper()
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil || len(elems) != len(ops) {
		t.Fatalf("patch %s: %d operations, %d elements: %v", raw, len(ops), len(elems), err)
	}
	var kept []json.RawMessage
	without := func() []byte { return []byte("[" + string(bytes.Join(asBytes(kept), []byte(","))) + "]") }
	for i, op := range ops {
		if op.Op != "test" {
			kept = append(kept, elems[i])
			continue
		}
		doc, err := decodeAndApply(object, without(), applyEvanphx)
		if err != nil {
			t.Fatalf("object %s, patch %s: evanphx fails before test %d, which patch.Apply passes: %v", object, raw, i, err)
		}
		value := op.Value
		if value == nil {
			value = json.RawMessage("null") // a test without a value tests for null
		}
		at, found := evanphxValueAt(t, doc, op.Path)
		if !found {
			at = nil // a missing member tests equal to null, as evanphx has it
		}
		if !sameJSON(at, decodeNumbers(t, value)) {
			t.Fatalf("object %s, patch %s: patch.Apply passes test %d, but %s at %q is not %s by meaning", object, raw, i, doc, op.Path, value)
		}
	}
	want, err := decodeAndApply(object, without(), applyEvanphx)
	if err != nil {
		t.Fatalf("object %s, patch %s: without its tests, evanphx fails: %v", object, raw, err)
	}
	return want
}

func asBytes(elems []json.RawMessage) [][]byte {
	out := make([][]byte, len(elems))
	for i, e := range elems {
		out[i] = e
	}
	return out
}

// evanphxValueAt reads the value at path in doc as evanphx's test does: "~1" and "~0" decoded in
// one pass, array indexes by strconv.Atoi (signs and leading zeros accepted), negative ones
// counted from the end; found is false for a missing object member at the end of the path.
func evanphxValueAt(t *testing.T, doc []byte, path string) (v any, found bool) {
	t.Helper()
	cur := decodeNumbers(t, doc)
	if path == "" {
		return cur, true
	}
	tokens := strings.Split(path, "/")[1:]
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	for i, tok := range tokens {
		tok = unescape.Replace(tok)
		last := i == len(tokens)-1
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok && last {
				return nil, false
			}
			if !ok || (!last && next == nil) {
				t.Fatalf("evanphx compared a value at %q, which %s does not have", path, doc)
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(tok)
			if n < 0 {
				n += len(c)
			}
			if err != nil || n < 0 || n >= len(c) {
				t.Fatalf("evanphx compared a value at %q, which %s does not have", path, doc)
			}
			cur = c[n]
		default:
			t.Fatalf("evanphx compared a value at %q, below a scalar of %s", path, doc)
		}
	}
	return cur, true
}

// decodeNumbers decodes JSON with its numbers as written.
func decodeNumbers(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return v
}

// sameJSON compares decoded JSON values by meaning: numbers as exact rationals (1, 1.0 and 1e0
// are one number), strings as decoded, objects by member and arrays by element.
func sameJSON(x, y any) bool {
	switch x := x.(type) {
	case json.Number:
		y, ok := y.(json.Number)
		if !ok {
			return false
		}
		a, okA := new(big.Rat).SetString(string(x))
		b, okB := new(big.Rat).SetString(string(y))
		return okA && okB && a.Cmp(b) == 0
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := y.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return x == y
}

// The seeds and the committed corpus of FuzzPatchApplyMatchesEvanphx reach the comparison, and
// some of them the departure for test, where evanphx fails and patch.Apply passes.
func TestFuzzPatchApplyMatchesEvanphxCorpusReachesTheComparison(t *testing.T) {
	inputs := patchApplySeeds[:]
	for _, e := range fuzzcorpus.Read(t, "FuzzPatchApplyMatchesEvanphx") {
		inputs = append(inputs, [2]string{string(e.Values[0].([]byte)), string(e.Values[1].([]byte))})
	}
	outcomes := map[int]int{}
	for _, in := range inputs {
		outcomes[checkPatchApply(t, []byte(in[0]), []byte(in[1]))]++
	}
	t.Logf("of %d inputs: %d compared, %d of them where test holds by meaning only", len(inputs), outcomes[compared]+outcomes[testByMeaning], outcomes[testByMeaning])
	if outcomes[compared] < 7 || outcomes[testByMeaning] < 2 {
		t.Errorf("%d inputs compared, %d where test holds by meaning only; want at least 7 and 2", outcomes[compared], outcomes[testByMeaning])
	}
}

// notAPointer reports an operation whose path or from is not a JSON pointer.
func notAPointer(op patch.Operation) bool {
	for _, p := range []string{op.Path, op.From} {
		if p != "" && !strings.HasPrefix(p, "/") {
			return true
		}
	}
	return false
}

func hasOp(ops patch.Patch, op string) bool {
	for _, o := range ops {
		if o.Op == op {
			return true
		}
	}
	return false
}

// copiesAMissingMember reports whether operation i is a copy whose from evanphx finds missing in
// the document as the operations before it left it.
func copiesAMissingMember(object []byte, ops patch.Patch, i int) bool {
	before, err := patch.Apply(object, ops[:i])
	if err != nil {
		return false
	}
	tokens, err := patch.PointerTokens(ops[i].From)
	if err != nil {
		return false
	}
	var cur any
	if json.Unmarshal(before, &cur) != nil {
		return false
	}
	for _, tok := range tokens {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return true
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(v) {
				return true
			}
			cur = v[n]
		default:
			return true
		}
	}
	return false
}
