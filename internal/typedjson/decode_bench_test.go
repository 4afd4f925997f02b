package typedjson

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkDecodePod compares the Decoder with the reference on the 10 KB benchmark Pod.
func BenchmarkDecodePod(b *testing.B) {
	pod, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, pod); err != nil {
		b.Fatal(err)
	}
	data := compact.Bytes()
	b.Run("typedjson", func(b *testing.B) {
		dec := &Decoder{}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if !dec.Decode(data, &corev1.Pod{}) {
				b.Fatal("left to the reference")
			}
		}
	})
	b.Run("sigs.k8s.io/json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if err := reference(data, &corev1.Pod{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
