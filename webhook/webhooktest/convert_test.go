package webhooktest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/conversion"
	"github.com/admitkit/admit/webhook/webhooktest"
)

// gizmoV1 has a colour; gizmoV2, the hub, a list of them.
type gizmoV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Color             string `json:"color"`
}

func (g *gizmoV1) DeepCopyObject() k8sruntime.Object { c := *g; return &c }

type gizmoV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Colors            []string `json:"colors"`
}

func (g *gizmoV2) DeepCopyObject() k8sruntime.Object { c := *g; return &c }

func gizmoRegistry(t *testing.T) *webhook.Registry {
	t.Helper()
	hub := conversion.NewHub[gizmoV2]("Gizmo")
	err := conversion.AddHubVersion(hub, "example.com/v2")
	if err == nil {
		err = conversion.AddVersion(hub, "example.com/v1",
			func(v *gizmoV1, h *gizmoV2) error {
				if v.Color == "" {
					return fmt.Errorf("color is required")
				}
				h.Colors = []string{v.Color}
				return nil
			},
			func(h *gizmoV2, v *gizmoV1) error { v.Color = strings.Join(h.Colors, ","); return nil })
	}
	if err != nil {
		t.Fatal(err)
	}
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := reg.RegisterConversion(webhook.Conversion{CRD: "gizmos.example.com", Converter: hub}); err != nil {
		t.Fatal(err)
	}
	return reg
}

func gizmo(name, color string) *gizmoV1 {
	return &gizmoV1{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Gizmo"}, ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"a": "b"}}, Color: color}
}

// One call converts objects through the registry's conversion webhook, both ways.
func TestConvert(t *testing.T) {
	reg := gizmoRegistry(t)
	got := webhooktest.Convert[gizmoV2](t, reg, "example.com/v2", gizmo("red", "red"), gizmo("blue", "blue"))
	want := []gizmoV2{
		{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v2", Kind: "Gizmo"}, ObjectMeta: gizmo("red", "").ObjectMeta, Colors: []string{"red"}},
		{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v2", Kind: "Gizmo"}, ObjectMeta: gizmo("blue", "").ObjectMeta, Colors: []string{"blue"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("v1 -> v2 (-want +got):\n%s", diff)
	}
	back := webhooktest.Convert[*unstructured.Unstructured](t, reg, "example.com/v1", &got[0])
	if color, _, _ := unstructured.NestedString(back[0].Object, "color"); color != "red" || back[0].GetAPIVersion() != "example.com/v1" {
		t.Errorf("v2 -> v1: %v", back[0].Object)
	}
	if msg := webhooktest.ConversionFailure(t, reg, "example.com/v2", gizmo("red", "red"), gizmo("none", "")); msg != "objects[1]: converting example.com/v1 to the hub: color is required" {
		t.Errorf("failure: %q", msg)
	}
}

// recordingT stands for a test that Fatalf ends, to check what the kit fails a test with.
type recordingT struct{ msg string }

func (*recordingT) Helper() {}
func (r *recordingT) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func fatalMessage(f func(t webhooktest.T)) string {
	r := &recordingT{}
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
	return r.msg
}

// renamer is a converter that breaks kube-apiserver's rule: metadata other than labels and
// annotations is kept.
type renamer struct{}

func (renamer) Convert(_ context.Context, object []byte, desired string) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(object, &obj); err != nil {
		return nil, err
	}
	obj["apiVersion"] = desired
	obj["metadata"].(map[string]any)["name"] = "renamed"
	return json.Marshal(obj)
}

// mislabeller is a converter that breaks kube-apiserver's rule on labels: a label it sets has
// a value no label may have.
type mislabeller struct{}

func (mislabeller) Convert(_ context.Context, object []byte, desired string) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(object, &obj); err != nil {
		return nil, err
	}
	obj["apiVersion"] = desired
	obj["metadata"].(map[string]any)["labels"] = map[string]any{"converted": "from v1!"}
	return json.Marshal(obj)
}

// Convert fails the test on what kube-apiserver would refuse, and on what the test asks wrongly.
func TestConvertFailsTheTest(t *testing.T) {
	reg := gizmoRegistry(t)
	if err := reg.RegisterConversion(webhook.Conversion{CRD: "renames.other.example.com", Converter: renamer{}}); err != nil {
		t.Fatal(err)
	}
	renamed := &gizmoV1{TypeMeta: metav1.TypeMeta{APIVersion: "other.example.com/v1", Kind: "Rename"}, ObjectMeta: metav1.ObjectMeta{Name: "r"}}
	tests := []struct {
		name string
		call func(t webhooktest.T)
		want string
	}{
		{"a failed conversion", func(t webhooktest.T) { webhooktest.Convert[gizmoV2](t, reg, "example.com/v2", gizmo("none", "")) },
			"webhooktest: converting to example.com/v2 failed: objects[0]: converting example.com/v1 to the hub: color is required"},
		{"a type that does not fit", func(t webhooktest.T) { webhooktest.Convert[gizmoV1](t, reg, "example.com/v2", gizmo("red", "red")) },
			`webhooktest: decoding converted object 0 into webhooktest_test.gizmoV1: json: unknown field "colors"`},
		{"changed metadata", func(t webhooktest.T) { webhooktest.Convert[gizmoV1](t, reg, "other.example.com/v2", renamed) },
			"webhooktest: converted object 0 changed its metadata beyond labels and annotations, which kube-apiserver refuses"},
		{"an invalid label", func(t webhooktest.T) {
			mislabelled := webhook.NewRegistry(webhook.HTTPOptions{})
			if err := mislabelled.RegisterConversion(webhook.Conversion{CRD: "renames.other.example.com", Converter: mislabeller{}}); err != nil {
				t.Fatalf("%v", err)
			}
			webhooktest.Convert[gizmoV1](t, mislabelled, "other.example.com/v2", renamed)
		},
			`webhooktest: converted object 0: invalid metadata, which kube-apiserver refuses: metadata.labels: Invalid value: "from v1!": a valid label must be`},
		{"no conversion for the group", func(t webhooktest.T) {
			webhooktest.Convert[gizmoV1](t, reg, "third.example.com/v2", gizmo("red", "red"))
		},
			"webhooktest: no conversion webhook of the registry converts Gizmo objects of group third.example.com (it has gizmos.example.com, renames.other.example.com)"},
		{"two kinds", func(t webhooktest.T) {
			webhooktest.Convert[gizmoV2](t, reg, "example.com/v2", gizmo("red", "red"), renamed)
		},
			"webhooktest: objects of kinds Gizmo and Rename in one conversion: the apiserver sends one CRD's objects"},
		{"a success where a failure was expected", func(t webhooktest.T) { webhooktest.ConversionFailure(t, reg, "example.com/v2", gizmo("red", "red")) },
			"webhooktest: converting to example.com/v2 succeeded, want a failure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fatalMessage(tt.call); !strings.HasPrefix(got, tt.want) {
				t.Errorf("failed with:\n%s\nwant it to start with:\n%s", got, tt.want)
			}
		})
	}
}
