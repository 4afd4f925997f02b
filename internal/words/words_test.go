package words

import "testing"

func TestWords(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Plural(0, "write", "writes"), "0 writes"},
		{Plural(1, "write", "writes"), "1 write"},
		{Plural(2, "policy", "policies"), "2 policies"},
		{OneLine("one"), "one"},
		{OneLine("one\ntwo"), "one …"},
		{OneLine(""), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("%q, want %q", tt.got, tt.want)
		}
	}
}
