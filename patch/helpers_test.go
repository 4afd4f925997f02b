package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// apply applies p to doc with the library kube-apiserver uses for webhook
// patches, so the tests check what a cluster would really do.
func apply(doc []byte, p Patch) ([]byte, error) {
	encoded, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("marshalling patch: %w", err)
	}
	decoded, err := jsonpatch.DecodePatch(encoded)
	if err != nil {
		return nil, fmt.Errorf("decoding patch %s: %w", encoded, err)
	}
	// The v4 library picks array or object from the first byte only.
	out, err := decoded.Apply(bytes.TrimSpace(doc))
	if err != nil {
		return nil, fmt.Errorf("applying patch %s: %w", encoded, err)
	}
	// Apply must agree, so every test and fuzz target that applies a patch checks it too.
	own, changed, err := ApplyChanged(doc, p)
	if err != nil {
		return nil, fmt.Errorf("patch.Apply failed where evanphx applied %s: %w", encoded, err)
	}
	if !sameJSON(out, own) {
		return nil, fmt.Errorf("applying %s: evanphx gave %s, patch.Apply %s", encoded, out, own)
	}
	if err := checkChanged(doc, own, changed); err != nil {
		return nil, fmt.Errorf("applying %s: %w", encoded, err)
	}
	return out, nil
}

// checkChanged holds ApplyChanged's answer to Diff's.
func checkChanged(doc, patched []byte, changed bool) error {
	ops, err := Diff(doc, patched)
	if err != nil {
		return err
	}
	if changed != (len(ops) > 0) {
		return fmt.Errorf("ApplyChanged said changed = %t, but Diff(doc, patched) = %v", changed, ops)
	}
	return nil
}

// sameJSON compares two valid documents by value, numbers by their spelling.
func sameJSON(x, y []byte) bool {
	decode := func(data []byte) any {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil
		}
		return v
	}
	vx, vy := decode(x), decode(y)
	return vx != nil && cmp.Equal(vx, vy)
}

// mustApply is apply for tests whose inputs are known to be valid.
func mustApply(t testing.TB, doc []byte, p Patch) []byte {
	t.Helper()
	out, err := apply(doc, p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// semantic decodes JSON for comparison with cmp: numbers become canonical
// exact decimals (so 1 and 1.0 compare equal, 2^53+1 and 2^53 do not).
func semantic(t testing.TB, data []byte) any {
	t.Helper()
	return canonical(decodeNumbers(t, data))
}

// decodeNumbers decodes JSON keeping numbers as written.
func decodeNumbers(t testing.TB, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
	return v
}

// canonical returns a copy of a decoded value with its json.Numbers made exact.
func canonical(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = canonical(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = canonical(e)
		}
		return out
	case json.Number:
		return canonicalNumber(string(v))
	}
	return v
}

// exactNumber is a JSON number as an exact fraction, a type of its own so
// that it never compares equal to a string.
type exactNumber string

// inexactNumber is a number whose exponent is too large to expand; tests
// skip documents that have one.
type inexactNumber string

func canonicalNumber(s string) any {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+")); err != nil || e > 1000 || e < -1000 {
			return inexactNumber(s)
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return inexactNumber(s)
	}
	return exactNumber(r.RatString())
}
