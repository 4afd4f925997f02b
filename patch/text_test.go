package patch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnquote(t *testing.T) {
	tests := []struct {
		quoted string
		want   string
	}{
		{`"plain"`, "plain"},
		{`""`, ""},
		{`"a\"b\\c\/d"`, `a"b\c/d`},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t"},
		{`"\u00e9\u20AC"`, "é€"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\ufffd"},              // lone high surrogate
		{`"\ude00x"`, "\ufffdx"},            // lone low surrogate
		{`"\ud83d\u0041"`, "\ufffdA"},       // high surrogate followed by a non-surrogate
		{`"\ud83d\ud83d\ude00"`, "\ufffd😀"}, // the second high surrogate pairs
	}
	for _, tt := range tests {
		escaped := false
		for i := 0; i < len(tt.quoted); i++ {
			escaped = escaped || tt.quoted[i] == '\\'
		}
		if got := string(unquote([]byte(tt.quoted), escaped)); got != tt.want {
			t.Errorf("unquote(%s) = %q, want %q", tt.quoted, got, tt.want)
		}
	}
}

func TestAppendPointerToken(t *testing.T) {
	tests := map[string]string{
		"plain":            "plain",
		"":                 "",
		"a/b":              "a~1b",
		"m~n":              "m~0n",
		"~1":               "~01",
		"/~":               "~1~0",
		"example.com/name": "example.com~1name",
	}
	for key, want := range tests {
		if got := string(appendPointerToken([]byte("/"), []byte(key))); got != "/"+want {
			t.Errorf("pointer token for %q = %q, want %q", key, got, "/"+want)
		}
	}
}

func TestAppendCompact(t *testing.T) {
	in := " { \"a b\" : [ 1 ,\n\t\"x \\\" y\" ] , \"c\\\\\" : \"\\\\\" } "
	want := `{"a b":[1,"x \" y"],"c\\":"\\"}`
	if diff := cmp.Diff(want, string(appendCompact(nil, []byte(in)))); diff != "" {
		t.Errorf("appendCompact mismatch (-want +got):\n%s", diff)
	}
}
