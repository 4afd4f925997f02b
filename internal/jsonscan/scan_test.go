package jsonscan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Members visits each key once, in order, and SkipValue lands after each value, strings with
// brackets and escaped quotes included; what the scan cannot follow is reported.
func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		text   string
		keys   []string
		values []string
		ok     bool
	}{
		{`{}`, nil, nil, true},
		{` { "a" : 1 , "b":[1,{"c":"]}"}], "d":"x\"}" ,"e":null} `, []string{"a", "b", "d", "e"}, []string{"1", `[1,{"c":"]}"}]`, `"x\"}"`, "null"}, true},
		{`{"a":{"b":{}}}`, []string{"a"}, []string{`{"b":{}}`}, true},
		// A quote after an even number of backslashes ends the string; after an odd one it does not.
		{`{"a":"x\\","b":"y\\\"z\\\\","c":""}`, []string{"a", "b", "c"}, []string{`"x\\"`, `"y\\\"z\\\\"`, `""`}, true},
		{`{"a":"\\\"}`, []string{"a"}, nil, false},
		{`{"\u0061":1}`, nil, nil, false},
		{`{"a" 1}`, nil, nil, false},
		{`{"a":1 "b":2}`, []string{"a"}, []string{"1"}, false},
		{`{"a":"unterminated}`, []string{"a"}, nil, false},
		{`[1]`, nil, nil, false},
		{``, nil, nil, false},
	} {
		s := Scanner{Data: []byte(tc.text)}
		var keys, values []string
		ok := s.Members(func(key []byte) bool {
			keys = append(keys, string(key))
			s.Space()
			start := s.Pos
			if !s.SkipValue() {
				return false
			}
			values = append(values, string(s.Data[start:s.Pos]))
			return true
		})
		if ok != tc.ok {
			t.Errorf("Members(%s) reported %v, want %v", tc.text, ok, tc.ok)
		}
		if diff := cmp.Diff(tc.keys, keys); diff != "" {
			t.Errorf("keys of %s (-want +got):\n%s", tc.text, diff)
		}
		if diff := cmp.Diff(tc.values, values); diff != "" {
			t.Errorf("values of %s (-want +got):\n%s", tc.text, diff)
		}
	}
}
