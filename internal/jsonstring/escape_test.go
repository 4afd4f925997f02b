package jsonstring

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendEscape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		n    int
	}{
		{`\"rest`, `"`, 2},
		{`\\`, `\`, 2},
		{`\/`, `/`, 2},
		{`\b\f`, "\b", 2},
		{`\n`, "\n", 2},
		{`\r`, "\r", 2},
		{`\t`, "\t", 2},
		{`\u00e9`, "é", 6},
		{`\u00E9`, "é", 6},
		{`\ud83d\ude00`, "😀", 12},
		{`\ud83d`, "\uFFFD", 6},        // a lone high surrogate
		{`\ude00\ud83d`, "\uFFFD", 6},  // a low one first
		{`\ud83d\u0041`, "\uFFFD", 6},  // not followed by a low one: that escape is read next
		{`\ud83dx\ude00`, "\uFFFD", 6}, // nothing between the two halves
		{`\ud83d\uzz00`, "\uFFFD", 6},  // the second escape is invalid: read, and refused, next
		{`\u12`, "", 0},
		{`\u12g4`, "", 0},
		{`\x`, "", 0},
		{`\`, "", 0},
		{`a`, "", 0},
		{``, "", 0},
	} {
		got, n := AppendEscape([]byte("<"), []byte(tc.in))
		want := "<" + tc.want
		if diff := cmp.Diff(want, string(got)); diff != "" || n != tc.n {
			t.Errorf("AppendEscape(%q) = %q, %d; want %q, %d", tc.in, got, n, want, tc.n)
		}
	}
}

// What AppendEscape makes of an escape is what encoding/json decodes it to.
func FuzzAppendEscape(f *testing.F) {
	for _, s := range []string{`\n`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ud83d\u0041`, `\uD800\uDC00`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, n := AppendEscape(nil, []byte(s))
		if n == 0 {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+s[:n]+`"`), &want); err != nil {
			t.Fatalf("AppendEscape read %q, which encoding/json refuses: %v", s[:n], err)
		}
		if string(got) != want {
			t.Fatalf("AppendEscape(%q) = %q, encoding/json %q", s[:n], got, want)
		}
	})
}
