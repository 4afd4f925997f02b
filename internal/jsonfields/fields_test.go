package jsonfields

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

type inner struct {
	Shared string `json:"shared"`
	Deep   string `json:"deep"`
}

type tagged struct {
	Shared string `json:"shared"`
}

type other struct {
	Tie string `json:"tie"`
}

type twin struct {
	Tie string `json:"tie"`
}

type members struct {
	inner
	*other
	twin
	Plain    string
	Renamed  string `json:"renamed,omitempty"`
	Zero     int    `json:"zero,omitzero"`
	Quoted   int    `json:"quoted,string"`
	Skipped  string `json:"-"`
	Dash     string `json:"-,"`
	Bad      string `json:"a\"b"`
	private  string
	Embedded tagged `json:"embedded"`
}

// The members Of finds are the names encoding/json writes for a value with every field set,
// with the options they were declared with.
func TestOfAgreesWithEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value any
	}{
		{"every rule", members{inner: inner{Shared: "s", Deep: "d"}, other: &other{Tie: "o"}, twin: twin{Tie: "t"}, Plain: "p", Renamed: "r", Zero: 1, Quoted: 2, Skipped: "x", Dash: "y", Bad: "z", private: "h", Embedded: tagged{Shared: "e"}}},
		{"a Kubernetes object", corev1.Pod{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.value)
			if err != nil {
				t.Fatal(err)
			}
			var encoded map[string]any
			if err := json.Unmarshal(data, &encoded); err != nil {
				t.Fatal(err)
			}
			fields, ok := Of(reflect.TypeOf(tc.value))
			if !ok {
				t.Fatal("Of refused the type")
			}
			var names []string
			for _, f := range fields {
				names = append(names, f.Name)
			}
			want := slices.Sorted(func(yield func(string) bool) {
				for name := range encoded {
					if !yield(name) {
						return
					}
				}
			})
			if tc.name == "a Kubernetes object" {
				// A zero Pod omits its empty members: every name it does write must be found.
				for _, name := range want {
					if !slices.Contains(names, name) {
						t.Errorf("encoding/json writes %q, Of does not find it (found %v)", name, names)
					}
				}
				return
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("member names (-encoding/json +Of):\n%s", diff)
			}
		})
	}
}

func TestOfOptions(t *testing.T) {
	fields, _ := Of(reflect.TypeFor[members]())
	got := map[string]Field{}
	for _, f := range fields {
		got[f.Name] = f
	}
	checks := []struct {
		name string
		ok   func(Field) bool
	}{
		{"renamed", func(f Field) bool { return f.Tagged && f.OmitEmpty && !f.OmitZero }},
		{"zero", func(f Field) bool { return f.OmitZero && !f.OmitEmpty }},
		{"quoted", func(f Field) bool { return f.Quoted }},
		{"Plain", func(f Field) bool { return !f.Tagged }},
		{"deep", func(f Field) bool {
			return slices.Equal(f.Index, []int{0, 1}) && !f.ViaPointer && f.Type == reflect.TypeFor[string]()
		}},
	}
	for _, c := range checks {
		if f, found := got[c.name]; !found || !c.ok(f) {
			t.Errorf("member %q: %+v (found %v)", c.name, f, found)
		}
	}
	if _, found := got["tie"]; found {
		t.Errorf("tie is declared twice at one depth: encoding/json drops it, Of kept it")
	}
}

// Two embeddings of one struct type at one depth are resolved by a rule Of does not reproduce:
// it says so rather than guess.
func TestOfRefusesTwiceEmbedded(t *testing.T) {
	type a struct{ inner }
	type b struct{ inner }
	type both struct {
		a
		b
	}
	if _, ok := Of(reflect.TypeFor[both]()); ok {
		t.Error("Of accepted a struct embedding inner twice at one depth")
	}
}
