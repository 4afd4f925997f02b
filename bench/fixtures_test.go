package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// diffCase is a pair of documents in the same serialisation style, as a
// webhook compares them.
type diffCase struct {
	name               string
	original, modified []byte
}

// typedCase is a mutation applied to a Pod decoded from raw, the path every
// typed mutating webhook takes.
type typedCase struct {
	name   string
	mutate func(*corev1.Pod)
}

// rawPod returns testdata/pod.json compacted, as the API server sends it: a
// realistic 10 KB Pod (two containers, an init container, probes,
// projected volumes, managedFields, status) whose member order is not Go's,
// plus spec.futureField, which corev1 does not know.
func rawPod(tb testing.TB) []byte {
	tb.Helper()
	pretty, err := os.ReadFile(filepath.Join("testdata", "pod.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, pretty); err != nil {
		tb.Fatalf("testdata/pod.json: %v", err)
	}
	return compact.Bytes()
}

func decodePod(tb testing.TB, raw []byte) *corev1.Pod {
	tb.Helper()
	var pod corev1.Pod
	if err := json.Unmarshal(raw, &pod); err != nil {
		tb.Fatalf("decoding the pod: %v", err)
	}
	return &pod
}

func marshal(tb testing.TB, v any) []byte {
	tb.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func addLabel(pod *corev1.Pod) { pod.Labels["admit.example.com/injected"] = "true" }

func addSidecar(pod *corev1.Pod) {
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{
		Name:  "istio-proxy",
		Image: "registry.example.com/mesh/proxyv2:1.24.2",
		Args:  []string{"proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local"},
		Ports: []corev1.ContainerPort{{Name: "http-envoy-prom", ContainerPort: 15090, Protocol: corev1.ProtocolTCP}},
		Env: []corev1.EnvVar{
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "istio-envoy", MountPath: "/etc/istio/proxy"}},
	})
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
		Name: "istio-envoy", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}},
	})
	pod.Labels["security.istio.io/tlsMode"] = "istio"
}

// typedCases are the mutations benchmarked through the whole typed path.
func typedCases() []typedCase {
	return []typedCase{
		{name: "noop", mutate: func(*corev1.Pod) {}},
		{name: "label", mutate: addLabel},
		{name: "sidecar", mutate: addSidecar},
	}
}

// diffCases builds the document pairs for the Diff benchmarks. The Pod
// cases serialise the typed object before and after a change, so both
// sides share Go's member order like a real request and its mutation.
func diffCases(tb testing.TB) []diffCase {
	tb.Helper()
	pod := decodePod(tb, rawPod(tb))
	original := marshal(tb, pod)
	var cases []diffCase
	for _, tc := range typedCases() {
		mutated := pod.DeepCopy()
		tc.mutate(mutated)
		cases = append(cases, diffCase{name: "pod-" + tc.name, original: original, modified: marshal(tb, mutated)})
	}

	// 1000 environment variables, one edited in the middle: the case that
	// once took seconds in the O(n²) differs.
	envPod := pod.DeepCopy()
	env := make([]corev1.EnvVar, 1000)
	for i := range env {
		env[i] = corev1.EnvVar{Name: fmt.Sprintf("SETTING_%04d", i), Value: fmt.Sprintf("value-%d", i)}
	}
	envPod.Spec.Containers[0].Env = env
	edited := envPod.DeepCopy()
	edited.Spec.Containers[0].Env[500].Value = "edited"
	cases = append(cases, diffCase{name: "pod-env1000-edit", original: marshal(tb, envPod), modified: marshal(tb, edited)})

	// Plain arrays of objects: one element edited in the middle and one
	// appended, to show how the cost grows with n.
	for _, n := range []int{10, 100, 1000, 10000} {
		type item struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		}
		items := make([]item, n)
		for i := range items {
			items[i] = item{Name: fmt.Sprintf("item-%d", i), Value: fmt.Sprintf("v%d", i)}
		}
		before := marshal(tb, map[string]any{"items": items})
		items[n/2].Value = "edited"
		items = append(items, item{Name: "new", Value: "appended"})
		cases = append(cases, diffCase{name: fmt.Sprintf("array-n=%d", n), original: before, modified: marshal(tb, map[string]any{"items": items})})
	}
	return cases
}
