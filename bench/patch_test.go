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
				checkDiff(b, tc.original, tc.modified, g)
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
			p, err := patch.Lossless(raw, before, after)
			if err != nil {
				b.Fatal(err)
			}
			encoded, err := p.MarshalJSON()
			if err != nil {
				b.Fatal(err)
			}
			checkTypedPatch(b, raw, encoded, tc.mutate, true)
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
				encoded, err := path.run(raw, tc.mutate)
				if err != nil {
					b.Fatal(err)
				}
				checkTypedPatch(b, raw, encoded, tc.mutate, path.name == "admit")
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

// checkDiff fails tb unless g's patch, applied with the API server's library, turns original
// into modified: every benchmark checks its output before measuring, so that it never times a
// library doing less work than the others.
func checkDiff(tb testing.TB, original, modified []byte, g generator) {
	tb.Helper()
	encoded, err := g.diff(original, modified)
	if err != nil {
		tb.Fatal(err)
	}
	got := applyPatch(tb, original, encoded)
	if !reflect.DeepEqual(decodeAny(tb, got), decodeAny(tb, modified)) {
		tb.Fatalf("%s's patch %s does not turn original into modified", g.name, encoded)
	}
}

// checkTypedPatch fails tb unless the patch, applied to raw with the API server's library, does
// the mutation: the patched object, read as a Pod, is the raw object read as a Pod and mutated.
// With keepsUnknown, spec.futureField (unknown to corev1) must survive too.
func checkTypedPatch(tb testing.TB, raw, encoded []byte, mutate func(*corev1.Pod), keepsUnknown bool) {
	tb.Helper()
	patched := applyPatch(tb, raw, encoded)
	want := decodePod(tb, raw)
	mutate(want)
	if got := decodePod(tb, patched); !reflect.DeepEqual(got, want) {
		tb.Fatalf("the patch %s does not do the mutation: the patched Pod is not the mutated one", encoded)
	}
	if keepsUnknown {
		if _, kept := decodeAny(tb, patched).(map[string]any)["spec"].(map[string]any)["futureField"]; !kept {
			tb.Fatalf("the patch %s loses spec.futureField", encoded)
		}
	}
}

// TestPatchesApply runs the checks of the benchmarks without measuring: every library's patch
// turns original into modified, and every typed path does the mutation.
func TestPatchesApply(t *testing.T) {
	for _, tc := range diffCases(t) {
		for _, g := range generators() {
			t.Run(tc.name+"/"+g.name, func(t *testing.T) { checkDiff(t, tc.original, tc.modified, g) })
		}
	}
	raw := rawPod(t)
	for _, tc := range typedCases() {
		for _, path := range typedPaths() {
			t.Run("typed/"+tc.name+"/"+path.name, func(t *testing.T) {
				encoded, err := path.run(raw, tc.mutate)
				if err != nil {
					t.Fatal(err)
				}
				checkTypedPatch(t, raw, encoded, tc.mutate, path.name == "admit")
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

func applyPatch(t testing.TB, doc, encoded []byte) []byte {
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

func decodeAny(t testing.TB, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(fmt.Errorf("decoding %.80s: %w", data, err))
	}
	return v
}
