package engine

import (
	"encoding/json"
	"testing"

	"github.com/admitkit/admit/internal/fuzzcorpus"
)

func TestObjectName(t *testing.T) {
	for _, tc := range []struct {
		obj, want string
	}{
		{`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"name":"not-this"}},"spec":{}}`, "web"},
		{`{"spec":{"metadata":{"name":"template"}},"metadata":{"namespace":"a","name":"outer"}}`, "outer"},
		{` { "metadata" : { "name" : "spaced" } } `, "spaced"},
		{`{"metadata":{"generateName":"web-"}}`, ""},
		{`{"metadata":null}`, ""},
		{`{"metadata":{"name":"first"},"metadata":null}`, "first"},
		{`{"metadata":{"name":"first"},"metadata":{"labels":{}}}`, "first"},
		{`{"metadata":{"name":"a","name":"b"}}`, "b"},
		{`{"metadata":{"name":"caf\u00e9\"x"}}`, "café\"x"},
		{`{"metadata":{"Name":"wrong-case"}}`, ""},
		{`{"Metadata":{"name":"wrong-case"}}`, ""},
		{`{"metadata":{"nam\u0065":"escaped-key"}}`, "escaped-key"},
		{`{"metadata":{"name":7}}`, ""},
		{`{"metadata":{"name":null}}`, ""},
		{`{"metadata":"text"}`, ""},
		{`[]`, ""},
		{``, ""},
	} {
		if got := objectName([]byte(tc.obj)); got != tc.want {
			t.Errorf("objectName(%s) = %q, want %q", tc.obj, got, tc.want)
		}
		if json.Valid([]byte(tc.obj)) {
			if got := decodedName([]byte(tc.obj)); got != tc.want {
				t.Errorf("the decoder reads %q from %s; the table says %q", got, tc.obj, tc.want)
			}
		}
	}
}

// On any valid JSON, the scan agrees with the decoder.
func FuzzObjectName(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"web"}}`))
	f.Add([]byte(`{"a":[1,{"b":"}"}],"metadata":{"x":"\\","name":"n\"m"}}`))
	f.Add([]byte(`{"metadata":{"name":"a"},"metadata":{"name":"b"}}`))
	f.Fuzz(func(t *testing.T, obj []byte) {
		got := objectName(obj)
		if !json.Valid(obj) {
			return
		}
		if want := decodedName(obj); got != want {
			t.Fatalf("objectName(%q) = %q, the decoder reads %q", obj, got, want)
		}
	})
}

// The committed corpus of FuzzObjectName reaches the scan: an input that is not JSON returns
// early, and one the scan leaves to the decoder compares the decoder with itself. Both shapes
// the scan decides count, objects with a name and objects without one.
func TestFuzzObjectNameCorpusReachesTheScan(t *testing.T) {
	corpus := fuzzcorpus.Bytes(t, "FuzzObjectName")
	valid, named, unnamed := 0, 0, 0
	for _, obj := range corpus {
		if !json.Valid(obj) {
			continue
		}
		valid++
		name, ok := scanName(obj)
		switch {
		case !ok:
			continue
		case name != decodedName(obj):
			t.Errorf("scanName(%q) = %q, the decoder reads %q", obj, name, decodedName(obj))
		case name == "":
			unnamed++
		default:
			named++
		}
	}
	t.Logf("of %d corpus inputs, %d are JSON; the scan decides %d with a name and %d without", len(corpus), valid, named, unnamed)
	const wantNamed, wantUnnamed = 28, 12
	if named < wantNamed || unnamed < wantUnnamed {
		t.Errorf("the scan decides %d corpus inputs with a name and %d without, want at least %d and %d", named, unnamed, wantNamed, wantUnnamed)
	}
}
