package fuzzcorpus

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []any
		err  bool
	}{
		{"go test fuzz v1\n[]byte(\"{\\\"a\\\":\\x00}\")\n", []any{[]byte("{\"a\":\x00}")}, false},
		{"go test fuzz v1\n[]byte(\"x\")\nbyte('\\x02')\n", []any{[]byte("x"), byte(2)}, false},
		{"go test fuzz v1\nstring(\"é\")\nbyte('é')\nuint8(7)\nint(-3)\nbool(true)\n", []any{"é", byte(0xe9), byte(7), -3, true}, false},
		{"go test fuzz v1\nbyte('\\'')\n", []any{byte('\'')}, false},
		{"go test fuzz v1\nint64(-9)\nuint64(18446744073709551615)\n", []any{int64(-9), uint64(18446744073709551615)}, false},
		{"go test fuzz v1\n", nil, true},
		{"go test fuzz v2\n[]byte(\"x\")\n", nil, true},
		{"go test fuzz v1\nfloat64(1)\n", nil, true},
		{"go test fuzz v1\n[]byte(x)\n", nil, true},
		{"go test fuzz v1\nbyte('世')\n", nil, true},
	} {
		got, err := Decode([]byte(tc.file))
		if (err != nil) != tc.err {
			t.Errorf("Decode(%q): error %v, want error %t", tc.file, err, tc.err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Decode(%q) (-want +got):\n%s", tc.file, diff)
		}
	}
}

// The committed corpora of admit's fuzz targets are all read.
func TestReadsAFuzzTargetsCorpus(t *testing.T) {
	t.Chdir("../typedjson")
	entries := Read(t, "FuzzDecode")
	if len(entries) < 100 {
		t.Fatalf("read %d entries of internal/typedjson's FuzzDecode corpus", len(entries))
	}
	for _, e := range entries {
		if _, ok := e.Values[0].([]byte); !ok || len(e.Values) != 2 {
			t.Fatalf("%s: %#v", e.Name, e.Values)
		}
	}
}
