package chain

import (
	"fmt"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// decodePlainCases are objects the one-pass decode must take or leave exactly as the
// serializer would: other spellings of apiVersion and kind, other kinds, missing type
// information, unknown and duplicate members, numbers of every shape, invalid text.
var decodePlainCases = []string{
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}]}]}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"unknown":{"x":[1,2.5,"s",null,true]}}`,
	`{"apiVersion":"v1","kind":"Pod","KIND":"Service","metadata":{"name":"p"}}`,
	`{"apiVersion":"v1","kind":"Pod","ApiVersion":"apps/v1","metadata":{"name":"p"}}`,
	`{"apiVersion":"v1","kind":"Pod","\u212aind":"Service","metadata":{"name":"p"}}`,
	`{"apiVersion":"v1","kind":"Pod","` + "\u212a" + `ind":"Service"}`, // a Kelvin sign folds to k
	`{"apiVersion":"v1","kind":"Pod","Kind":"Pod"}`,
	`{"metadata":{"name":"no type information"}}`,
	`{"kind":"Pod","metadata":{"name":"no apiVersion"}}`,
	`{"apiVersion":"v1","metadata":{"name":"no kind"}}`,
	`{"apiVersion":"v1","kind":"Service","metadata":{"name":"another kind"}}`,
	`{"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"another group"}}`,
	`{"apiVersion":"/v1","kind":"Pod","metadata":{"name":"odd but equal"}}`,
	`{"apiVersion":"a/b/c","kind":"Pod"}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dup","name":"licate"}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"terminationGracePeriodSeconds":1.5}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"terminationGracePeriodSeconds":"30"}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"100m"}}}]}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"\u00e9\ud83d\ude00"}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2026-01-01T00:00:00Z"}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"yesterday"}}`,
	`{"apiVersion":"v1","kind":"Pod","spec":{"containers":{}}}`,
	`{"apiVersion":"v1","kind":"Pod"`,
	`{"apiVersion":"v1","kind":"Pod"} trailing`,
	`[]`,
	`null`,
}

// TestDecodePlainIsTheSerializers holds decodePlain, which decodes in one pass where it can,
// to the webhook plugin's serializer: the same object or the same error, for every case.
func TestDecodePlainIsTheSerializers(t *testing.T) {
	c := newCodec(nil, nil, nil, "")
	for _, kind := range []schema.GroupVersionKind{{Version: "v1", Kind: "Pod"}, {Group: "apps", Version: "v1", Kind: "Deployment"}} {
		for _, data := range decodePlainCases {
			t.Run(kind.Kind+"/"+data, func(t *testing.T) {
				checkDecodePlain(t, c, []byte(data), kind)
			})
		}
	}
}

func FuzzDecodePlain(f *testing.F) {
	for _, data := range decodePlainCases {
		f.Add([]byte(data))
	}
	c := newCodec(nil, nil, nil, "")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodePlain(t, c, data, schema.GroupVersionKind{Version: "v1", Kind: "Pod"})
	})
}

func checkDecodePlain(t *testing.T, c *codec, data []byte, kind schema.GroupVersionKind) {
	t.Helper()
	into, err := c.scheme.New(kind)
	if err != nil {
		t.Fatal(err)
	}
	want, _, wantErr := c.plain.Decode(data, nil, into)
	got, gotErr := c.decodePlain(data, kind)
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
		t.Fatalf("%s:\nserializer:  %v\ndecodePlain: %v", data, wantErr, gotErr)
	}
	if wantErr == nil && !reflect.DeepEqual(want, got) {
		t.Fatalf("%s:\nserializer:  %#v\ndecodePlain: %#v", data, want, got)
	}
}

// The one-pass decode takes the common shape and leaves what only the serializer reads right.
func TestDecodeOnePassTakesTheCommonShape(t *testing.T) {
	c := newCodec(nil, nil, nil, "")
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, tc := range []struct {
		data string
		want bool
	}{
		{decodePlainCases[0], true},
		{decodePlainCases[1], true},
		{`{"apiVersion":"v1","kind":"Pod","KIND":"Service"}`, false},
		{`{"apiVersion":"v1","kind":"Pod","\u212aind":"Service"}`, false},
		{`{"apiVersion":"v1","kind":"Pod","` + "\u212a" + `ind":"Service"}`, false},
		{`{"metadata":{"name":"no type information"}}`, false},
		{`{"apiVersion":"v1","kind":"Service"}`, false},
		{`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dup","name":"licate"}}`, false},
	} {
		into, err := c.scheme.New(pod)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.decodeOnePass([]byte(tc.data), pod, into); got != tc.want {
			t.Errorf("decodeOnePass(%s) = %t, want %t", tc.data, got, tc.want)
		}
	}
}
