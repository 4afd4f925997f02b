package resources

import "testing"

// Builtin parses the embedded data on every call; callers are expected to keep the Mapper.
func BenchmarkBuiltin(b *testing.B) {
	for b.Loop() {
		if _, err := Builtin(); err != nil {
			b.Fatal(err)
		}
	}
}

// KindFor and Equivalents run for every webhook rule the dispatcher matches.
func BenchmarkKindFor(b *testing.B) {
	m, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	pods := gvr("", "v1", "pods")
	for b.Loop() {
		if _, err := m.KindFor(pods, "eviction"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEquivalents(b *testing.B) {
	m, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	hpa := gvr("autoscaling", "v1", "horizontalpodautoscalers")
	for b.Loop() {
		if len(m.Equivalents(hpa, "status")) != 2 {
			b.Fatal("wrong equivalents")
		}
	}
}
