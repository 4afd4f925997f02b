package webhook

import (
	"encoding/json"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// benchmarkReview is an AdmissionReview of a Pod of about 10 KB: two containers with 25
// environment variables each, as in bench/testdata/pod.json.
func benchmarkReview(b *testing.B) []byte {
	b.Helper()
	pod := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{
		Name: "web-7d4b9c", Namespace: "default", Labels: map[string]string{"app": "web", "tier": "frontend"}}}
	for c := range 2 {
		container := corev1.Container{Name: fmt.Sprintf("container-%d", c), Image: "registry.example.com/team/web:1.2.3"}
		for e := range 25 {
			container.Env = append(container.Env, corev1.EnvVar{Name: fmt.Sprintf("SETTING_NUMBER_%d", e), Value: fmt.Sprintf("value of setting %d, with some text", e)})
		}
		pod.Spec.Containers = append(pod.Spec.Containers, container)
	}
	object, err := json.Marshal(pod)
	if err != nil {
		b.Fatal(err)
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "8c5a3d0e-1f2b-4c6d-9e8f-0a1b2c3d4e5f", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: "default", Operation: admissionv1.Create,
			Object: runtime.RawExtension{Raw: object}, Options: runtime.RawExtension{Raw: []byte(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`)}},
	})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkDecodeReview compares DecodeReview, which leaves the object out of the decoder, with
// decoding the whole review as it did before.
func BenchmarkDecodeReview(b *testing.B) {
	body := benchmarkReview(b)
	b.Run("envelope", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := DecodeReview(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var review reviewEnvelope
			if err := decodeStrict(body, &review); err != nil {
				b.Fatal(err)
			}
		}
	})
}
