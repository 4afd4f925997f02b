package webhooktest_test

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/conversion"
	"github.com/admitkit/admit/webhook/webhooktest"
)

// A defaulting webhook's unit test: build the request, run the handler, read the patched Pod.
func ExampleRun() {
	var t webhooktest.T = exampleT{} // in a test: the test's *testing.T
	handler := webhook.DefaultingHandler[*corev1.Pod](webhook.DefaulterFunc[*corev1.Pod](
		func(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
			pod.Spec.PriorityClassName = "standard"
			return nil, nil
		}))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}}

	result := webhooktest.Run(t, handler, webhooktest.Create(t, pod))
	var got corev1.Pod
	result.Decode(t, &got)
	fmt.Println(result.Allowed, got.Spec.PriorityClassName)
	fmt.Println(result.Patch)
	// Output:
	// true standard
	// [{"op":"add","path":"/spec/priorityClassName","value":"standard"}]
}

// A whole Registry, as kube-apiserver calls it from the configurations it describes.
func ExampleAdmit() {
	var t webhooktest.T = exampleT{}
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	_ = reg.Register(webhook.Webhook{Name: "deny-all.example.com", Type: webhook.TypeValidating,
		Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Resource: "configmaps",
		Handler: webhook.HandlerFunc(func(context.Context, *webhook.Request) webhook.Response {
			return webhook.Denied("config maps are read-only here")
		})})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "shop"}}

	result := webhooktest.Admit(t, reg, webhooktest.Create(t, cm), webhooktest.AdmitOptions{})
	fmt.Println(result.Allowed, result.Status.Code)
	fmt.Println(result.Status.Message)
	// Output:
	// false 403
	// admission webhook "deny-all.example.com" denied the request: config maps are read-only here
}

// A conversion test is one call: objects in, converted objects out, through the Registry's
// conversion webhook as kube-apiserver calls it.
func ExampleConvert() {
	var t webhooktest.T = exampleT{}
	hub := conversion.NewHub[bookV2]("Book")
	_ = conversion.AddHubVersion(hub, "library.example.com/v2")
	_ = conversion.AddVersion(hub, "library.example.com/v1",
		func(v *bookV1, h *bookV2) error { h.Authors = strings.Split(v.Author, " & "); return nil },
		func(h *bookV2, v *bookV1) error { v.Author = strings.Join(h.Authors, " & "); return nil })
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	_ = reg.RegisterConversion(webhook.Conversion{CRD: "books.library.example.com", Converter: hub})

	v1 := &bookV1{TypeMeta: metav1.TypeMeta{APIVersion: "library.example.com/v1", Kind: "Book"}, ObjectMeta: metav1.ObjectMeta{Name: "sicp"}, Author: "Abelson & Sussman"}
	v2 := webhooktest.Convert[bookV2](t, reg, "library.example.com/v2", v1)
	fmt.Println(v2[0].APIVersion, v2[0].Name, v2[0].Authors)
	// Output:
	// library.example.com/v2 sicp [Abelson Sussman]
}

type bookV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Author            string `json:"author"`
}

func (b *bookV1) DeepCopyObject() runtime.Object { c := *b; return &c }

type bookV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Authors           []string `json:"authors"`
}

// exampleT stands for a test's *testing.T in the examples.
type exampleT struct{}

func (exampleT) Helper() {}
func (exampleT) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}
