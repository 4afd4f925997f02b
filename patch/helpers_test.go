package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"

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
	return out, nil
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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
	return canonicalNumbers(v)
}

func canonicalNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = canonicalNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = canonicalNumbers(e)
		}
	case json.Number:
		return canonicalNumber(string(v))
	}
	return v
}

// canonicalNumber writes a number as an exact fraction. Exponents so large
// that the fraction would be huge are left as text; tests avoid them.
func canonicalNumber(s string) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+")); err != nil || e > 1000 || e < -1000 {
			return "text:" + s
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "text:" + s
	}
	return "num:" + r.RatString()
}
