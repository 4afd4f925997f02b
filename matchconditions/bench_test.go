package matchconditions

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// BenchmarkMatch measures one webhook's evaluation of two typical conditions, with the object
// as JSON (decoded on every call) and as an already decoded object.
func BenchmarkMatch(b *testing.B) {
	m, err := Compile(conditions(
		"not-skip-me", "object.metadata.name != 'skip-me'",
		"not-system", "!request.userInfo.username.startsWith('system:')",
	))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("json", func(b *testing.B) {
		in := Input{Request: createPod(), Object: []byte(podJSON)}
		for b.Loop() {
			if r, err := m.Match(ctx, in); err != nil || !r.Matched {
				b.Fatal(r, err)
			}
		}
	})
	b.Run("decoded", func(b *testing.B) {
		object, err := decodeObject([]byte(podJSON), runtime.RawExtension{})
		if err != nil {
			b.Fatal(err)
		}
		req := createPod()
		req.Object.Object = object.(*unstructured.Unstructured)
		in := Input{Request: req}
		for b.Loop() {
			if r, err := m.Match(ctx, in); err != nil || !r.Matched {
				b.Fatal(r, err)
			}
		}
	})
}

func BenchmarkCompile(b *testing.B) {
	conds := conditions("not-skip-me", "object.metadata.name != 'skip-me'", "create", "request.operation == 'CREATE'")
	for b.Loop() {
		if _, err := Compile(conds); err != nil {
			b.Fatal(err)
		}
	}
}
