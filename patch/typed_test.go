package patch

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/admitkit/admit/internal/fuzzcorpus"
)

// typedShapes holds what encoding/json makes of Go values beyond the Kubernetes types.
type typedShapes struct {
	typedEmbedded
	Named     string `json:"named,omitempty"`
	Untagged  string
	Ptr       *string            `json:"ptr,omitempty"`
	Map       map[string]float64 `json:"map,omitempty"`
	Keys      map[int]string     `json:"keys,omitempty"`
	Bytes     []byte             `json:"bytes"`
	Int       int64              `json:"int,omitzero"`
	Uint      uint8              `json:"uint"`
	Float     float64            `json:"float"`
	Floats    []float64          `json:"floats"`
	Bool      bool               `json:"bool,omitempty"`
	Time      metav1.Time        `json:"time,omitzero"`
	Moment    time.Time          `json:"moment,omitzero"`
	Quantity  *resource.Quantity `json:"quantity,omitempty"`
	Port      intstr.IntOrString `json:"port"`
	Raw       runtime.RawExtension
	Any       any               `json:"any"`
	Quoted    int               `json:"quoted,string"`
	List      []typedEmbedded   `json:"list"`
	Nested    *typedShapes      `json:"nested,omitempty"`
	Strings   map[string]string `json:"strings"`
	Array     [2]int            `json:"array"`
	HTML      string            `json:"html"`
	hidden    string
	Skipped   string           `json:"-"`
	Condition metav1.Condition `json:"condition"`
}

type typedEmbedded struct {
	Inner  string `json:"inner,omitempty"`
	Shadow string `json:"named"`
}

// typedCase compares Typed.Lossless with Lossless on the two values' encodings.
func checkTyped(t *testing.T, typed *Typed, raw []byte, before, after any) {
	t.Helper()
	got, gotErr := typed.Lossless(raw, before, after)
	b, errB := json.Marshal(before)
	a, errA := json.Marshal(after)
	var want Patch
	wantErr := errB
	if wantErr == nil {
		wantErr = errA
	}
	if wantErr == nil {
		want, wantErr = Lossless(raw, b, a)
	}
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("Typed.Lossless error %v, Lossless error %v\nraw %s\nbefore %s\nafter %s", gotErr, wantErr, raw, b, a)
	}
	if gotErr != nil {
		return
	}
	gj, _ := got.MarshalJSON()
	wj, _ := want.MarshalJSON()
	if !bytes.Equal(gj, wj) {
		t.Fatalf("patches differ\nraw    %s\nbefore %s\nafter  %s\nTyped    %s\nLossless %s", raw, b, a, gj, wj)
	}
}

func benchmarkPod(t testing.TB) (raw []byte, pod *corev1.Pod) {
	t.Helper()
	data, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	pod = &corev1.Pod{}
	if err := json.Unmarshal(compact.Bytes(), pod); err != nil {
		t.Fatal(err)
	}
	return compact.Bytes(), pod
}

// Typed.Lossless writes the operations Lossless writes, for the changes typed webhooks make, on
// a raw Pod with another member order and a field its type lacks, and on the Pod as Go writes it.
func TestTypedMatchesLossless(t *testing.T) {
	received, _ := benchmarkPod(t)
	edits := map[string]func(p *corev1.Pod){
		"nothing":   func(*corev1.Pod) {},
		"label":     func(p *corev1.Pod) { p.Labels["injected"] = "true" },
		"no labels": func(p *corev1.Pod) { p.Labels = nil },
		"labels from nil": func(p *corev1.Pod) {
			p.Labels = nil
		},
		"sidecar": func(p *corev1.Pod) {
			p.Labels["injected"] = "true"
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "proxy", Image: "proxy:1", Args: []string{"a"}})
		},
		"first container removed": func(p *corev1.Pod) { p.Spec.Containers = p.Spec.Containers[1:] },
		"container inserted": func(p *corev1.Pod) {
			p.Spec.Containers = append([]corev1.Container{{Name: "init"}}, p.Spec.Containers...)
		},
		"env edited": func(p *corev1.Pod) {
			p.Spec.Containers[0].Env[3].Value = "changed <&>"
		},
		"image mirrored": func(p *corev1.Pod) {
			for i := range p.Spec.Containers {
				p.Spec.Containers[i].Image = "mirror.example/" + p.Spec.Containers[i].Image
			}
		},
		"resources": func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")}
		},
		"time within the second": func(p *corev1.Pod) {
			p.CreationTimestamp = metav1.NewTime(p.CreationTimestamp.Add(time.Millisecond))
		},
		"time": func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(p.CreationTimestamp.Add(time.Hour)) },
		"pointers": func(p *corev1.Pod) {
			p.Spec.TerminationGracePeriodSeconds = nil
			p.Spec.ActiveDeadlineSeconds = new(int64)
			p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: new(bool)}
		},
		"managed fields": func(p *corev1.Pod) {
			p.ManagedFields = append(p.ManagedFields, metav1.ManagedFieldsEntry{Manager: "m", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:a":{}}`)}})
		},
		"status": func(p *corev1.Pod) { p.Status = corev1.PodStatus{Phase: corev1.PodPending} },
		"annotations": func(p *corev1.Pod) {
			p.Annotations["a/b~c"] = "x"
			delete(p.Annotations, "kubectl.kubernetes.io/restartedAt")
		},
		"tolerations": func(p *corev1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations[:1], corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists})
		},
	}
	typed := &Typed{}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			for _, rawName := range []string{"received", "go"} {
				var before corev1.Pod
				if err := json.Unmarshal(received, &before); err != nil {
					t.Fatal(err)
				}
				raw := received
				if rawName == "go" {
					raw, _ = json.Marshal(&before)
				}
				after := before.DeepCopy()
				edit(after)
				checkTyped(t, typed, raw, &before, after)
			}
		})
	}
}

// Shapes beyond the Kubernetes types: opaque values (interfaces, marshalers, arrays, quoted
// values, int keys) are diffed through their encodings, others walked.
func TestTypedShapes(t *testing.T) {
	typed := &Typed{}
	base := func() *typedShapes {
		s := "s"
		q := resource.MustParse("1")
		return &typedShapes{
			typedEmbedded: typedEmbedded{Inner: "i", Shadow: "hidden"}, Named: "n", Untagged: "u", Ptr: &s,
			Map: map[string]float64{"a": 1, "b": -0.5}, Keys: map[int]string{1: "one"}, Bytes: []byte("hi"),
			Int: 3, Uint: 4, Float: 1.5, Floats: []float64{0, 1, 2}, Bool: true, Quantity: &q, Port: intstr.FromInt32(80),
			Raw: runtime.RawExtension{Raw: []byte(`{"a":[1,2]}`)}, Any: map[string]any{"x": []any{1.0, "y"}}, Quoted: 7,
			List: []typedEmbedded{{Inner: "a"}, {Inner: "b"}}, Strings: map[string]string{"k": "v"}, Array: [2]int{1, 2}, HTML: "<b>",
		}
	}
	edits := map[string]func(s *typedShapes){
		"nothing":       func(*typedShapes) {},
		"embedded":      func(s *typedShapes) { s.Inner = "" },
		"shadow":        func(s *typedShapes) { s.Shadow = "x" },
		"pointer":       func(s *typedShapes) { s.Ptr = nil },
		"map":           func(s *typedShapes) { s.Map["c"] = math.Copysign(0, -1); delete(s.Map, "a") },
		"negative zero": func(s *typedShapes) { s.Float = 0; s.Floats[0] = math.Copysign(0, -1) },
		"zero float":    func(s *typedShapes) { s.Float = math.Copysign(0, -1) },
		"int keys":      func(s *typedShapes) { s.Keys[2] = "two" },
		"bytes":         func(s *typedShapes) { s.Bytes = nil },
		"empty bytes":   func(s *typedShapes) { s.Bytes = []byte{} },
		"omitzero":      func(s *typedShapes) { s.Int = 0; s.Time = metav1.NewTime(time.Unix(1, 0)); s.Moment = time.Unix(2, 0) },
		"quantity":      func(s *typedShapes) { q := resource.MustParse("1000m"); s.Quantity = &q },
		"quantity value": func(s *typedShapes) {
			q := resource.MustParse("2")
			s.Quantity = &q
		},
		"port":     func(s *typedShapes) { s.Port = intstr.FromString("http") },
		"raw":      func(s *typedShapes) { s.Raw.Raw = []byte(`{"a":[1,3],"b":{}}`) },
		"any":      func(s *typedShapes) { s.Any = map[string]any{"x": []any{1.0, "z"}, "w": nil} },
		"any type": func(s *typedShapes) { s.Any = "text" },
		"quoted":   func(s *typedShapes) { s.Quoted = 8 },
		"list":     func(s *typedShapes) { s.List = append(s.List, typedEmbedded{Shadow: "c"}) },
		"nested": func(s *typedShapes) {
			s.Nested = &typedShapes{Named: "deep", Strings: map[string]string{}}
		},
		"strings":      func(s *typedShapes) { s.Strings = map[string]string{"bad\xff": "v"} },
		"array":        func(s *typedShapes) { s.Array[1] = 3 },
		"html":         func(s *typedShapes) { s.HTML = "<i>&amp;</i>\u2028" },
		"invalid utf8": func(s *typedShapes) { s.Named = "a\xffb" },
		"condition": func(s *typedShapes) {
			s.Condition = metav1.Condition{Type: "Ready", LastTransitionTime: metav1.NewTime(time.Unix(5, 0))}
		},
		"nan": func(s *typedShapes) { s.Float = math.NaN() },
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			before := base()
			raw, err := json.Marshal(before)
			if err != nil {
				t.Fatal(err)
			}
			after := base()
			edit(after)
			checkTyped(t, typed, raw, before, after)
			// Against a raw document that lacks every member: changes land as additions.
			checkTyped(t, typed, []byte(`{}`), before, after)
			checkTyped(t, typed, []byte(`{"list":[],"map":7,"nested":{"named":"x"},"strings":{"k":"v","o":"p"}}`), before, after)
		})
	}
	// Values of other types, and unstructured objects, which marshal themselves.
	checkTyped(t, typed, []byte(`{}`), &typedShapes{}, &typedEmbedded{})
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "Widget", "spec": map[string]any{"size": int64(1)}}}
	v := u.DeepCopy()
	v.Object["spec"].(map[string]any)["size"] = int64(2)
	checkTyped(t, typed, []byte(`{"kind":"Widget","spec":{"size":1,"x":true}}`), u, v)
}

// FuzzTypedLossless holds Typed.Lossless to Lossless: before is decoded from raw, after from
// another document, as a Pod, an unstructured object or a value of typedShapes.
func FuzzTypedLossless(f *testing.F) {
	raw, pod := benchmarkPod(f)
	after := pod.DeepCopy()
	after.Labels["x"] = "y"
	after.Spec.Containers = append(after.Spec.Containers, corev1.Container{Name: "proxy"})
	afterJSON, _ := json.Marshal(after)
	f.Add(raw, afterJSON, uint8(0))
	f.Add([]byte(`{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"a"}]}}`), []byte(`{"metadata":{"labels":{"a":"c","d":"e"}},"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`), uint8(0))
	f.Add([]byte(`{"kind":"W","spec":{"a":[1,2]}}`), []byte(`{"kind":"W","spec":{"a":[1,3],"b":null}}`), uint8(1))
	f.Add([]byte(`{"named":"a","map":{"x":1},"list":[{"inner":"a"}],"any":[1],"floats":[0,1]}`), []byte(`{"named":"b","map":{"x":-0},"list":[],"any":{"a":1},"floats":[-0,1,2]}`), uint8(2))
	typed := &Typed{}
	f.Fuzz(func(t *testing.T, raw, other []byte, which uint8) {
		if _, before, after, ok := typedPair(raw, other, which); ok {
			checkTyped(t, typed, raw, before, after)
		}
	})
}

// typedPair decodes raw and other into the type which chooses, and names the type; ok is false
// when either does not decode, and FuzzTypedLossless has nothing to compare.
func typedPair(raw, other []byte, which uint8) (name string, before, after any, ok bool) {
	newValue := func() any { return &corev1.Pod{} }
	name = "Pod"
	switch which % 3 {
	case 1:
		newValue, name = func() any { return &unstructured.Unstructured{} }, "Unstructured"
	case 2:
		newValue, name = func() any { return &typedShapes{} }, "typedShapes"
	}
	before, after = newValue(), newValue()
	ok = json.Unmarshal(raw, before) == nil && json.Unmarshal(other, after) == nil
	return name, before, after, ok
}

// The committed corpus of FuzzTypedLossless reaches Typed.Lossless for each type: a pair that
// does not decode returns before the comparison.
func TestFuzzTypedLosslessCorpusReachesTheComparison(t *testing.T) {
	floors := map[string]int{"Pod": 15, "Unstructured": 11, "typedShapes": 10}
	reached, total := map[string]int{}, map[string]int{}
	typed := &Typed{}
	for _, e := range fuzzcorpus.Read(t, "FuzzTypedLossless") {
		raw, other := e.Values[0].([]byte), e.Values[1].([]byte)
		name, before, after, ok := typedPair(raw, other, e.Values[2].(byte))
		total[name]++
		if ok {
			reached[name]++
			checkTyped(t, typed, raw, before, after)
		}
	}
	for _, name := range []string{"Pod", "Unstructured", "typedShapes"} {
		floor := floors[name]
		t.Logf("%s: %d of %d corpus pairs reach the comparison", name, reached[name], total[name])
		if reached[name] < floor {
			t.Errorf("%s: %d corpus pairs reach the comparison, fewer than %d", name, reached[name], floor)
		}
	}
}
