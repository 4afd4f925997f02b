package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/admitkit/admit/patch"
	"github.com/wI2L/jsondiff"
	jsonpatchv2 "gomodules.xyz/jsonpatch/v2"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
)

// generator produces a serialised JSON patch from original to modified, the
// bytes a webhook puts in its response.
type generator struct {
	name string
	diff func(original, modified []byte) ([]byte, error)
}

func generators() []generator {
	return []generator{
		{name: "admit", diff: func(original, modified []byte) ([]byte, error) {
			p, err := patch.Diff(original, modified)
			if err != nil {
				return nil, err
			}
			return p.MarshalJSON()
		}},
		{name: "gomodules", diff: func(original, modified []byte) ([]byte, error) {
			ops, err := jsonpatchv2.CreatePatch(original, modified)
			if err != nil {
				return nil, err
			}
			return json.Marshal(ops)
		}},
		{name: "jsondiff", diff: func(original, modified []byte) ([]byte, error) {
			p, err := jsondiff.CompareJSON(original, modified)
			if err != nil {
				return nil, err
			}
			return json.Marshal(p)
		}},
		{name: "jsondiff-lcs", diff: func(original, modified []byte) ([]byte, error) {
			p, err := jsondiff.CompareJSON(original, modified, jsondiff.LCS())
			if err != nil {
				return nil, err
			}
			return json.Marshal(p)
		}},
	}
}

// BenchmarkDiff times patch generation between two serialisations, with
// the patch size (bytes and operations) as extra metrics.
func BenchmarkDiff(b *testing.B) {
	for _, tc := range diffCases(b) {
		for _, g := range generators() {
			b.Run(tc.name+"/"+g.name, func(b *testing.B) {
				b.SetBytes(int64(len(tc.original)))
				b.ReportAllocs()
				var out []byte
				for b.Loop() {
					var err error
					if out, err = g.diff(tc.original, tc.modified); err != nil {
						b.Fatal(err)
					}
				}
				reportPatch(b, out)
			})
		}
	}
}

// BenchmarkLossless times patch.Lossless alone on the 10 KB Pod: raw as
// received (unknown field, another member order) and the typed object
// serialised before and after the mutation.
func BenchmarkLossless(b *testing.B) {
	raw := rawPod(b)
	pod := decodePod(b, raw)
	before := marshal(b, pod)
	for _, tc := range typedCases() {
		mutated := pod.DeepCopy()
		tc.mutate(mutated)
		after := marshal(b, mutated)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			var out []byte
			for b.Loop() {
				p, err := patch.Lossless(raw, before, after)
				if err != nil {
					b.Fatal(err)
				}
				if out, err = p.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
			reportPatch(b, out)
		})
	}
}

// typedPath is everything a typed mutating webhook does with the received
// object: decode, mutate, serialise, compute the patch against raw.
type typedPath struct {
	name string
	run  func(raw []byte, mutate func(*corev1.Pod)) ([]byte, error)
}

func typedPaths() []typedPath {
	return []typedPath{
		{name: "admit", run: func(raw []byte, mutate func(*corev1.Pod)) ([]byte, error) {
			var pod corev1.Pod
			if err := json.Unmarshal(raw, &pod); err != nil {
				return nil, err
			}
			before, err := json.Marshal(&pod)
			if err != nil {
				return nil, err
			}
			mutate(&pod)
			after, err := json.Marshal(&pod)
			if err != nil {
				return nil, err
			}
			p, err := patch.Lossless(raw, before, after)
			if err != nil {
				return nil, err
			}
			return p.MarshalJSON()
		}},
		{name: "gomodules", run: func(raw []byte, mutate func(*corev1.Pod)) ([]byte, error) {
			after, err := decodeMutateEncode(raw, mutate)
			if err != nil {
				return nil, err
			}
			ops, err := jsonpatchv2.CreatePatch(raw, after)
			if err != nil {
				return nil, err
			}
			return json.Marshal(ops)
		}},
		{name: "jsondiff", run: func(raw []byte, mutate func(*corev1.Pod)) ([]byte, error) {
			after, err := decodeMutateEncode(raw, mutate)
			if err != nil {
				return nil, err
			}
			p, err := jsondiff.CompareJSON(raw, after)
			if err != nil {
				return nil, err
			}
			return json.Marshal(p)
		}},
	}
}

// decodeMutateEncode is the typed path of the frameworks that diff raw
// against the re-serialised object, needing no "before" serialisation.
func decodeMutateEncode(raw []byte, mutate func(*corev1.Pod)) ([]byte, error) {
	var pod corev1.Pod
	if err := json.Unmarshal(raw, &pod); err != nil {
		return nil, err
	}
	mutate(&pod)
	return json.Marshal(&pod)
}

// BenchmarkTyped times the whole typed path on the 10 KB Pod. The other
// libraries' patches also delete spec.futureField and add round-trip
// artefacts; the benchmark reports their cost regardless.
func BenchmarkTyped(b *testing.B) {
	raw := rawPod(b)
	for _, tc := range typedCases() {
		for _, path := range typedPaths() {
			b.Run(tc.name+"/"+path.name, func(b *testing.B) {
				b.SetBytes(int64(len(raw)))
				b.ReportAllocs()
				var out []byte
				for b.Loop() {
					var err error
					if out, err = path.run(raw, tc.mutate); err != nil {
						b.Fatal(err)
					}
				}
				reportPatch(b, out)
			})
		}
	}
}

func reportPatch(b *testing.B, encoded []byte) {
	var ops []json.RawMessage
	if err := json.Unmarshal(encoded, &ops); err != nil {
		b.Fatalf("the patch is not a JSON array: %v", err)
	}
	b.ReportMetric(float64(len(encoded)), "patch-B")
	b.ReportMetric(float64(len(ops)), "ops")
}

// TestPatchesApply checks that every library's patch, applied with the
// API server's library, turns original into modified, so the benchmarks
// compare equivalent work.
func TestPatchesApply(t *testing.T) {
	for _, tc := range diffCases(t) {
		for _, g := range generators() {
			t.Run(tc.name+"/"+g.name, func(t *testing.T) {
				encoded, err := g.diff(tc.original, tc.modified)
				if err != nil {
					t.Fatal(err)
				}
				got := applyPatch(t, tc.original, encoded)
				if !reflect.DeepEqual(decodeAny(t, got), decodeAny(t, tc.modified)) {
					t.Errorf("patch %s does not turn original into modified", encoded)
				}
			})
		}
	}
}

// TestTypedPathKeepsUnknownFields checks the claim the typed benchmark rests
// on: admit's patch keeps spec.futureField and adds no artefact, the others
// delete it.
func TestTypedPathKeepsUnknownFields(t *testing.T) {
	raw := rawPod(t)
	for _, path := range typedPaths() {
		t.Run(path.name, func(t *testing.T) {
			encoded, err := path.run(raw, addLabel)
			if err != nil {
				t.Fatal(err)
			}
			patched := decodeAny(t, applyPatch(t, raw, encoded)).(map[string]any)
			_, kept := patched["spec"].(map[string]any)["futureField"]
			if want := path.name == "admit"; kept != want {
				t.Errorf("spec.futureField kept = %t, want %t (patch %s)", kept, want, encoded)
			}
		})
	}
}

func applyPatch(t *testing.T, doc, encoded []byte) []byte {
	t.Helper()
	if bytes.Equal(encoded, []byte("null")) { // jsondiff's empty patch
		return doc
	}
	p, err := jsonpatch.DecodePatch(encoded)
	if err != nil {
		t.Fatalf("decoding patch %s: %v", encoded, err)
	}
	out, err := p.Apply(doc)
	if err != nil {
		t.Fatalf("applying patch %s: %v", encoded, err)
	}
	return out
}

func decodeAny(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(fmt.Errorf("decoding %.80s: %w", data, err))
	}
	return v
}
