package typedjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/internal/fuzzcorpus"
)

// reference is what the webhook decoded with before: sigs.k8s.io/json, duplicates refused.
func reference(data []byte, v any) error {
	strict, err := kjson.UnmarshalStrict(data, v, kjson.DisallowDuplicateFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return fmt.Errorf("strict: %v", strict)
	}
	return nil
}

// shapes holds what a Go type can make of JSON, beyond the Kubernetes types: embedded structs,
// pointers, maps, byte slices, every number kind, types with their own UnmarshalJSON, and what
// the Decoder leaves to the reference (interfaces, quoted values, non-string map keys).
type shapes struct {
	metav1.TypeMeta `json:",inline"`
	Embedded
	Named    string `json:"named,omitempty"`
	Untagged string
	Ptr      *string              `json:"ptr"`
	PtrPtr   **string             `json:"ptrPtr"`
	Map      map[string]int32     `json:"map"`
	Labels   map[string]string    `json:"labels"`
	Keys     map[int]string       `json:"keys"`
	Bytes    []byte               `json:"bytes"`
	Int8     int8                 `json:"int8"`
	Uint     uint16               `json:"uint"`
	Float    float32              `json:"float"`
	Bool     bool                 `json:"bool"`
	Time     metav1.Time          `json:"time"`
	TimePtr  *metav1.Time         `json:"timePtr"`
	Quantity resource.Quantity    `json:"quantity"`
	Port     intstr.IntOrString   `json:"port"`
	Raw      runtime.RawExtension `json:"raw"`
	Any      any                  `json:"any"`
	Quoted   int                  `json:"quoted,string"`
	List     []Embedded           `json:"list"`
	Nested   *shapes              `json:"nested"`
	hidden   string
	Skipped  string `json:"-"`
}

type Embedded struct {
	Inner  string `json:"inner"`
	Shadow string `json:"named"` // hidden by the shallower shapes.Named
}

// The Decoder agrees with the reference on these inputs: wherever it decodes, the reference
// decodes the same value without error.
func TestDecodeMatchesReference(t *testing.T) {
	pod, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{
		string(pod),
		`{}`, `null`, ` { } `, `[]`, `"x"`, `{"kind":"Pod","metadata":null,"spec":{"containers":null}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"a":"b","c":null}}}`,
		`{"metadata":{"labels":{"a":"b","a":"c"}}}`,
		`{"kind":"Pod","kind":"Pod"}`,
		`{"metadata":{"name":"\u00e9\ud83d\ude00\ud800x\n\"\\\/"}}`,
		`{"metadata":{"name":"caf` + "\xc3\xa9" + `"}}`,
		`{"metadata":{"name":"bad` + "\xff" + `"}}`,
		`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80.0}]}]}}`,
		`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":1e2}]}]}}`,
		`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":-0}]}]}}`,
		`{"spec":{"containers":[{"resources":{"limits":{"cpu":"100m","memory":12e6}}}]}}`,
		`{"spec":{"containers":[{"resources":{"limits":{"cpu":"bogus"}}}]}}`,
		`{"spec":{"priority":2147483648}}`,
		`{"spec":{"priority":-2147483648}}`,
		`{"unknown":{"a":[1,2,{"b":null}]},"kind":"Pod"}`,
		`{"unknown":[1,2,}`,
		`{"Kind":"Pod"}`,
		`{"kind":"Pod"} x`,
		`{"kind":"Pod",}`,
		`{"kind" "Pod"}`,
		`{"metadata":{"creationTimestamp":null,"deletionTimestamp":null}}`,
		`{"metadata":{"creationTimestamp":"2026-01-02T03:04:05Z"}}`,
		`{"metadata":{"creationTimestamp":"yesterday"}}`,
		`{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{}},"fieldsType":"FieldsV1"}]}}`,
		`{"spec":{"containers":[{"name":"a","livenessProbe":{"httpGet":{"port":"http"}}},{"name":"b","livenessProbe":{"httpGet":{"port":8080}}}]}}`,
		`{"metadata":{"name":tru}}`,
		`{"metadata":{"name":"a"`,
		`{"metadata":{"name":"a\u00"}}`,
		`{"spec":{"containers":[]}}`,
		`{"spec":{"containers":[{}]}}`,
		`{"spec":{"hostNetwork":true,"hostPID":false}}`,
		`{"spec":{"hostNetwork":1}}`,
		`{"spec":{"terminationGracePeriodSeconds":null}}`,
	}
	types := []func() any{
		func() any { return &corev1.Pod{} },
		func() any { return &appsv1.Deployment{} },
		func() any { return &unstructured.Unstructured{} },
		func() any { return &shapes{} },
	}
	shapesInputs := []string{
		`{"kind":"K","apiVersion":"v","inner":"i","named":"n","Untagged":"u","ptr":"p","map":{"a":1,"b":-2},"bytes":"aGk=","int8":-128,"uint":65535,"float":1.5e3,"bool":true}`,
		`{"ptrPtr":"x"}`, `{"keys":{"1":"a"}}`, `{"any":1}`, `{"quoted":"1"}`, `{"hidden":"x","Skipped":"y","-":"z"}`,
		`{"int8":128}`, `{"uint":-1}`, `{"float":1e40}`, `{"bytes":"!!"}`, `{"bytes":[1,2,300]}`, `{"bytes":null}`,
		`{"time":null,"timePtr":null,"quantity":"1Gi","port":"x","raw":{"any":["thing"]}}`,
		`{"time":"2026-01-02T03:04:05Z","timePtr":"2026-01-02T03:04:05Z","port":3}`,
		`{"list":[{"inner":"a"},{"named":"b"}],"nested":{"nested":{"inner":"deep"}}}`,
		`{"map":{"a":1,"a":2}}`, `{"map":null,"labels":null,"list":null,"ptr":null}`, `{"labels":{"a":1}}`,
		`{"map":{"a":1.5}}`, `{"Inner":"case"}`, `{"raw":null}`,
	}
	dec := &Decoder{}
	decided := 0
	for _, newValue := range types {
		for _, in := range append(inputs, shapesInputs...) {
			got, want := newValue(), newValue()
			if !dec.Decode([]byte(in), got) {
				continue
			}
			decided++
			if err := reference([]byte(in), want); err != nil {
				t.Errorf("%T: decoded %q, which the reference refuses: %v", got, in, err)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Errorf("%T from %q:\n got %s\nwant %s", got, in, g, w)
			}
		}
	}
	t.Logf("decided %d inputs", decided)
	if decided < 40 {
		t.Errorf("the decoder decided only %d inputs: it leaves too much to the reference", decided)
	}
	// The benchmark pod, the common case, is decoded here.
	if !dec.Decode(pod, &corev1.Pod{}) {
		t.Error("the pod was left to the reference")
	}
}

// FuzzDecode holds the Decoder to the reference: whenever it decodes, the reference decodes the
// same value without error.
func FuzzDecode(f *testing.F) {
	pod, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		f.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, pod); err != nil {
		f.Fatal(err)
	}
	f.Add(compact.Bytes(), uint8(0))
	f.Add([]byte(`{"metadata":{"labels":{"a":"b"},"creationTimestamp":null},"spec":{"containers":[{"name":"\u0061","ports":[{"containerPort":80}]}]}}`), uint8(0))
	f.Add([]byte(`{"inner":"i","map":{"a":1},"bytes":"aGk=","time":"2026-01-02T03:04:05Z","list":[{}],"raw":[1]}`), uint8(2))
	f.Add([]byte(`{"object":{"kind":"x","apiVersion":"v1","a":[1.5,2]}}`), uint8(1))
	dec := &Decoder{}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) { checkDecode(t, dec, data, which) })
}

// fuzzTypes are the types FuzzDecode decodes into, chosen by its second input.
var fuzzTypes = []struct {
	name     string
	newValue func() any
}{
	{"Pod", func() any { return &corev1.Pod{} }},
	{"Unstructured", func() any { return &unstructured.Unstructured{} }},
	{"shapes", func() any { return &shapes{} }},
}

// checkDecode compares the Decoder with the reference on data decoded into the type which
// chooses, where the Decoder decodes it, and reports whether it did.
func checkDecode(t *testing.T, dec *Decoder, data []byte, which uint8) bool {
	t.Helper()
	newValue := fuzzTypes[int(which)%len(fuzzTypes)].newValue
	got, want := newValue(), newValue()
	if !dec.Decode(data, got) {
		return false
	}
	if err := reference(data, want); err != nil {
		t.Fatalf("decoded %q, which the reference refuses: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q decodes differently:\n got %#v\nwant %#v", data, got, want)
	}
	return true
}

// The committed corpus of FuzzDecode reaches the Decoder for each type it can decode: an input
// it declines is compared with nothing. shapes has members the Decoder never decodes (an
// interface, a ",string" option, integer map keys), so it declines every input of that type:
// those inputs hold it to declining, and have no floor.
func TestFuzzDecodeCorpusReachesTheDecoder(t *testing.T) {
	floors := map[string]int{"Pod": 39, "Unstructured": 8}
	decided, total := map[string]int{}, map[string]int{}
	dec := &Decoder{}
	for _, e := range fuzzcorpus.Read(t, "FuzzDecode") {
		data, which := e.Values[0].([]byte), e.Values[1].(byte)
		name := fuzzTypes[int(which)%len(fuzzTypes)].name
		total[name]++
		if checkDecode(t, dec, data, which) {
			decided[name]++
		}
	}
	for _, typ := range fuzzTypes {
		t.Logf("%s: the Decoder decided %d of %d corpus inputs", typ.name, decided[typ.name], total[typ.name])
		if decided[typ.name] < floors[typ.name] {
			t.Errorf("%s: the Decoder decided %d corpus inputs, fewer than %d", typ.name, decided[typ.name], floors[typ.name])
		}
	}
	if decided["shapes"] != 0 {
		t.Errorf("the Decoder decided %d inputs into shapes, whose interface member it never decodes", decided["shapes"])
	}
}
