package patch

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/internal/fuzzcorpus"
)

// fuzzSeeds returns document pairs shaped like admission webhook traffic.
func fuzzSeeds() [][2]string {
	return [][2]string{
		{`{}`, `{}`},
		{`{"a":1}`, `{"a":1.0,"b":[1,2]}`},
		{`{"metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
			`{"metadata":{"name":"p","labels":{"a":"b","x":"y"}},"spec":{"containers":[{"name":"c","image":"i"},{"name":"s","image":"j"}]}}`},
		{`{"env":[{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","value":"3"}]}`,
			`{"env":[{"name":"A","value":"1"},{"name":"C","value":"4"}]}`},
		{`[1,[2,3],{"k":null}]`, `[[2,3],{"k":false},4]`},
		{`{"a/b":{"~":"\u00e9"},"e":1e2}`, `{"a/b":{"~":"é","x":{}},"e":100}`},
		{`{"a":{"b":{"c":[true]}}}`, `{"a":{"b":[true]}}`},
	}
}

// FuzzDiff checks that applying Diff(original, modified) to original with
// evanphx/json-patch v4 (what kube-apiserver uses) yields modified, and
// that invalid input is reported, never accepted or panicked on.
func FuzzDiff(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(checkDiff)
}

func checkDiff(t *testing.T, original, modified []byte) {
	got, err := Diff(original, modified)
	valid := strictlyValid(original) && strictlyValid(modified)
	if (err == nil) != valid {
		t.Fatalf("Diff error = %v, but the inputs are valid = %t", err, valid)
	}
	if err != nil {
		return
	}
	if !isContainer(original) || !isContainer(modified) || !exactNumbers(original) || !exactNumbers(modified) {
		return // outside what the apply oracle and the comparison can judge
	}
	applied, err := apply(original, got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(semantic(t, modified), semantic(t, applied)); diff != "" {
		t.Fatalf("applying %v to %q did not give %q (-want +got):\n%s", got, original, modified, diff)
	}
	if self, err := Diff(modified, applied); err != nil || len(self) != 0 {
		t.Fatalf("Diff(modified, applied) = %v, %v; want an empty patch", self, err)
	}
}

// FuzzLossless builds raw from before the way a webhook receives it from a
// newer API server: with members the type does not know and without some
// members that only exist in the typed round trip. Applying
// Lossless(raw, before, after) to raw must give after, plus the unknown
// members wherever their parent survives, minus those artefacts.
func FuzzLossless(f *testing.F) {
	for i, s := range fuzzSeeds() {
		f.Add([]byte(s[0]), []byte(s[1]), uint64(i))
	}
	f.Fuzz(checkLossless)
}

// The committed corpus of FuzzLossless reaches the comparison: a pair that is not two exact
// JSON containers returns before it.
func TestFuzzLosslessCorpusReachesTheComparison(t *testing.T) {
	entries := fuzzcorpus.Read(t, "FuzzLossless")
	reached := 0
	for _, e := range entries {
		if losslessInput(e.Values[0].([]byte), e.Values[1].([]byte)) {
			reached++
		}
	}
	t.Logf("%d of %d corpus pairs reach the comparison", reached, len(entries))
	const floor = 33
	if reached < floor {
		t.Errorf("%d corpus pairs reach the comparison, fewer than %d", reached, floor)
	}
}

// losslessInput reports whether checkLossless compares before and after: both strictly valid
// JSON containers whose numbers are exact.
func losslessInput(before, after []byte) bool {
	return strictlyValid(before) && strictlyValid(after) &&
		isContainer(before) && isContainer(after) && exactNumbers(before) && exactNumbers(after)
}

func checkLossless(t *testing.T, before, after []byte, seed uint64) {
	if !losslessInput(before, after) {
		return
	}
	beforeTree, expected := decodeNumbers(t, before), semantic(t, after)
	if usesUnknownPrefix(beforeTree) || usesUnknownPrefix(expected) {
		return
	}
	m := mutator{rng: rand.New(rand.NewPCG(seed, seed>>32))}
	rawTree := m.raw(beforeTree, expected, true, true)
	raw, err := json.Marshal(rawTree)
	if err != nil {
		t.Fatal(err)
	}

	got, err := Lossless(raw, before, after)
	if err != nil {
		t.Fatalf("Lossless: %v", err)
	}
	applied, err := apply(raw, got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(expected, semantic(t, applied)); diff != "" {
		t.Fatalf("raw %s, before %s, after %s: applying %v gave (-want +got):\n%s", raw, before, after, got, diff)
	}

	// With nothing unknown and nothing lost, Lossless is a plain diff.
	plain, err := Lossless(before, before, after)
	if err != nil {
		t.Fatal(err)
	}
	applied, err = apply(before, plain)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(semantic(t, after), semantic(t, applied)); diff != "" {
		t.Fatalf("Lossless(before, before, after) does not give after (-want +got):\n%s", diff)
	}
}

// FuzzGenerated derives a pair of documents from a seed: a random document
// and a random edit of it (members added, removed and changed, elements
// inserted, removed and changed, values replaced, at times by the same
// number spelled differently).
// Byte-level fuzzing rarely produces two valid, related documents; this
// target explores the diff itself. Both properties above must hold.
func FuzzGenerated(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		g := generator{rng: rand.New(rand.NewPCG(seed, ^seed))}
		doc := g.container(0)
		original, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		modified, err := json.Marshal(g.edit(doc, 0))
		if err != nil {
			t.Fatal(err)
		}
		checkDiff(t, original, modified)
		checkLossless(t, original, modified, seed)
	})
}

// generator makes random JSON values from a small vocabulary, so that
// equal keys, equal elements and equal numbers written differently are common.
type generator struct{ rng *rand.Rand }

func (g generator) container(depth int) any {
	if g.rng.IntN(2) == 0 {
		return g.object(depth)
	}
	return g.array(depth)
}

func (g generator) object(depth int) map[string]any {
	keys := []string{"a", "b", "c", "name", "a/b", "~", "é", ""}
	m := map[string]any{}
	for range g.rng.IntN(5) {
		m[keys[g.rng.IntN(len(keys))]] = g.value(depth + 1)
	}
	return m
}

func (g generator) array(depth int) []any {
	a := make([]any, g.rng.IntN(6))
	for i := range a {
		a[i] = g.value(depth + 1)
	}
	return a
}

func (g generator) value(depth int) any {
	if depth < 4 && g.rng.IntN(3) == 0 {
		return g.container(depth)
	}
	switch g.rng.IntN(5) {
	case 0:
		return nil
	case 1:
		return g.rng.IntN(2) == 0
	case 2:
		numbers := []string{"0", "-0", "1", "1.0", "10e-1", "2", "9007199254740993", "9007199254740992", "0.5", "5e-1"}
		return json.Number(numbers[g.rng.IntN(len(numbers))])
	default:
		strs := []string{"x", "y", "a/b", "~1", "é", "\u0000", "<&>", ""}
		return strs[g.rng.IntN(len(strs))]
	}
}

// edit returns a changed deep copy of v.
func (g generator) edit(v any, depth int) any {
	if g.rng.IntN(8) == 0 {
		return g.value(depth) // replace outright, possibly with another type
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range sortedKeys(v) {
			switch g.rng.IntN(6) {
			case 0: // removed
			case 1:
				out[k] = g.edit(v[k], depth+1)
			default:
				out[k] = v[k]
			}
		}
		if g.rng.IntN(3) == 0 {
			for k, e := range g.object(depth) {
				out[k] = e
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(v)+2)
		for _, e := range v {
			switch g.rng.IntN(8) {
			case 0: // removed
			case 1:
				out = append(out, g.edit(e, depth+1))
			case 2:
				out = append(out, g.value(depth+1), e) // inserted before
			default:
				out = append(out, e)
			}
		}
		if g.rng.IntN(3) == 0 {
			out = append(out, g.value(depth+1))
		}
		return out
	default:
		return v
	}
}

const unknownPrefix = "zz-unknown-"

// mutator derives raw from before, recording in expected (a copy of after
// it edits in place) what the lossless patch must preserve or leave out.
type mutator struct {
	rng   *rand.Rand
	count int
}

// raw returns b (decoded with json.Number) with unknown members added and
// equal members dropped. a is after's value at the same place (canonical). correspond says whether a really
// is at the same place (every step of the path exists in after, through
// objects and through arrays of equal length), so that expected must carry
// the same edits. Inside an array whose length changed, b is left alone:
// which elements keep their unknown members is then up to the pairing.
func (m *mutator) raw(b, a any, correspond, free bool) any {
	switch b := b.(type) {
	case map[string]any:
		am, aIsMap := a.(map[string]any)
		correspond = correspond && aIsMap
		out := make(map[string]any, len(b)+1)
		for _, k := range sortedKeys(b) {
			av, inAfter := am[k]
			if free && correspond && inAfter && m.rng.IntN(4) == 0 && cmp.Equal(canonical(b[k]), av) {
				delete(am, k) // a round-trip artefact: the patch must not add it
				continue
			}
			out[k] = m.raw(b[k], av, correspond && inAfter, free)
		}
		if free && m.rng.IntN(3) == 0 {
			k := fmt.Sprintf("%s%d", unknownPrefix, m.count)
			m.count++
			out[k] = "unknown"
			if correspond {
				am[k] = "unknown"
			}
		}
		return out
	case []any:
		aa, aIsArray := a.([]any)
		sameLength := aIsArray && len(aa) == len(b)
		if correspond && aIsArray && !sameLength {
			free = false
		}
		out := make([]any, len(b))
		for i := range b {
			var av any
			if sameLength {
				av = aa[i]
			}
			out[i] = m.raw(b[i], av, correspond && sameLength, free)
		}
		return out
	default:
		return b
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func usesUnknownPrefix(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if strings.HasPrefix(k, unknownPrefix) || usesUnknownPrefix(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(v, usesUnknownPrefix)
	}
	return false
}

// strictlyValid is the input this package accepts: JSON that encoding/json
// accepts, in valid UTF-8.
func strictlyValid(data []byte) bool {
	return json.Valid(data) && utf8.Valid(data)
}

// isContainer reports an object or array document, the only kinds
// evanphx/json-patch v4 can patch.
func isContainer(data []byte) bool {
	data = []byte(strings.TrimLeft(string(data), " \t\r\n"))
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// exactNumbers reports whether every number in data is small enough for
// the test comparison to evaluate exactly.
func exactNumbers(data []byte) bool {
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				if !walk(e) {
					return false
				}
			}
		case []any:
			return !slices.ContainsFunc(v, func(e any) bool { return !walk(e) })
		case inexactNumber:
			return false
		}
		return true
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return false
	}
	return walk(canonical(v))
}
