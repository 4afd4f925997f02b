package patch

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkTyped compares Typed.Lossless with what it replaces in a typed webhook: encoding the
// object before and after the change, then Lossless. The change is the benchmark's sidecar
// injection (a label and a container) on the 10 KB Pod as received, another member order and a
// field its type lacks.
func BenchmarkTyped(b *testing.B) {
	raw, before := benchmarkPod(b)
	after := before.DeepCopy()
	after.Labels["injected"] = "true"
	after.Spec.Containers = append(after.Spec.Containers, corev1.Container{Name: "proxy", Image: "proxy:1.24", Args: []string{"proxy", "sidecar"}})
	b.Run("Typed.Lossless", func(b *testing.B) {
		typed := &Typed{}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := typed.Lossless(raw, before, after); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Marshal+Lossless", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bj, err := json.Marshal(before)
			if err != nil {
				b.Fatal(err)
			}
			aj, err := json.Marshal(after)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Lossless(raw, bj, aj); err != nil {
				b.Fatal(err)
			}
		}
	})
}
