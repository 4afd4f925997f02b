package patch

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// firstSpecial is the byte-at-a-time definition specialBytes must match.
func firstSpecial(word []byte) int {
	for i, c := range word {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return -1
}

func TestSpecialBytesFindsTheFirstSpecialByte(t *testing.T) {
	check := func(word []byte) {
		t.Helper()
		want := firstSpecial(word)
		got := -1
		if m := specialBytes(binary.LittleEndian.Uint64(word)); m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != want {
			t.Fatalf("first special byte of %q at %d, want %d", word, got, want)
		}
	}
	// Every byte value in every lane, among plain bytes.
	for lane := range 8 {
		for c := range 256 {
			word := []byte("abcdefgh")
			word[lane] = byte(c)
			check(word)
		}
	}
	// Random words, biased towards the boundary values.
	rng := rand.New(rand.NewPCG(1, 2))
	interesting := []byte{0x00, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 0x7f, 0x80, 0xff}
	for range 100000 {
		word := make([]byte, 8)
		for i := range word {
			if rng.IntN(2) == 0 {
				word[i] = interesting[rng.IntN(len(interesting))]
			} else {
				word[i] = byte(rng.IntN(256))
			}
		}
		check(word)
	}
}

func TestParseTokens(t *testing.T) {
	doc, err := parse("test", []byte(` {"a" : [1, "x\n", {}], "b":null} `))
	if err != nil {
		t.Fatal(err)
	}
	type tok struct {
		text string
		kind kind
		next int32
	}
	want := []tok{
		{`{"a" : [1, "x\n", {}], "b":null}`, kindObject, 8}, // next of the root: the token count
		{`"a"`, kindString, 2},
		{`[1, "x\n", {}]`, kindArray, 6},
		{`1`, kindNumber, 4},
		{`"x\n"`, kindString, 5},
		{`{}`, kindObject, 6},
		{`"b"`, kindString, 7},
		{`null`, kindNull, 8},
	}
	if len(doc.tokens) != len(want) {
		t.Fatalf("got %d tokens, want %d", len(doc.tokens), len(want))
	}
	for i, w := range want {
		got := tok{string(doc.bytesOf(int32(i))), doc.tokens[i].kind, doc.tokens[i].next}
		if got != w {
			t.Errorf("token %d = %+v, want %+v", i, got, w)
		}
	}
	if !doc.tokens[4].escaped || doc.tokens[1].escaped {
		t.Errorf("escaped flags: %q %t, %q %t", doc.bytesOf(4), doc.tokens[4].escaped, doc.bytesOf(1), doc.tokens[1].escaped)
	}
	if !doc.spaced {
		t.Error("a document with whitespace between tokens is not marked spaced")
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{`{"a":[1,2.5e3,"x\u00e9",true,null]}`, true},
		{` [ ] `, true},
		{`"\ud800"`, true}, // a lone surrogate escape is valid JSON text
		{``, false},
		{`{"a":1,}`, false},
		{`[1] [2]`, false},
		{"\"\xff\"", false}, // encoding/json.Valid accepts invalid UTF-8; Valid does not
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), false},
	}
	for _, tt := range tests {
		if got := Valid([]byte(tt.data)); got != tt.want {
			t.Errorf("Valid(%.40q) = %t, want %t", tt.data, got, tt.want)
		}
	}
}
