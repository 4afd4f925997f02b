package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The workload every comparison shares: a 10 KB Pod created in a namespace and a defaulter that
// labels it and injects a sidecar container, the most common mutating webhook there is.
const (
	// InjectedLabel is the label the defaulter adds, with the value "true".
	InjectedLabel = "bench.admit.dev/injected"
	// SidecarName is the container the defaulter appends.
	SidecarName = "proxy"
	// SidecarImage is the sidecar's image.
	SidecarImage = "registry.example.com/mesh/proxy:1.24.2"
	// ReviewUID is the request UID of the AdmissionReview the serving benchmark sends.
	ReviewUID types.UID = "5f0c7a3e-9d21-4b6f-8e4a-1c2d3b4a5e6f"
)

//go:embed testdata/pod.json
var podFile []byte

// Pod returns the benchmark Pod decoded from testdata/pod.json: two containers with 24–27
// environment variables, probes, projected volumes, affinity, managedFields and a status. Each call
// returns a fresh copy.
func Pod() (*corev1.Pod, error) {
	// Compacted first, so that raw members (managedFields) hold what an API server would send.
	var compact bytes.Buffer
	if err := json.Compact(&compact, podFile); err != nil {
		return nil, fmt.Errorf("testdata/pod.json: %w", err)
	}
	var pod corev1.Pod
	if err := json.Unmarshal(compact.Bytes(), &pod); err != nil {
		return nil, fmt.Errorf("decoding testdata/pod.json: %w", err)
	}
	return &pod, nil
}

// PodJSON returns the benchmark Pod as kube-apiserver sends it in an AdmissionReview: serialised
// from its Go type, so in Go's member order and without fields the type does not know (the file
// has one, spec.futureField, for the patch benchmarks). About 9.9 KB.
func PodJSON() ([]byte, error) {
	pod, err := Pod()
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(pod)
	if err != nil {
		return nil, fmt.Errorf("encoding the benchmark pod: %w", err)
	}
	return raw, nil
}

// Inject is the defaulter under test: it adds InjectedLabel and appends the SidecarName
// container. It changes nothing when both are already there, as a defaulter must when it is
// called again (reinvocation).
func Inject(pod *corev1.Pod) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[InjectedLabel] = "true"
	for _, c := range pod.Spec.Containers {
		if c.Name == SidecarName {
			return
		}
	}
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{
		Name:  SidecarName,
		Image: SidecarImage,
		Args:  []string{"proxy", "sidecar", "--concurrency", "2"},
		Ports: []corev1.ContainerPort{{Name: "http-envoy-prom", ContainerPort: 15090, Protocol: corev1.ProtocolTCP}},
		Env: []corev1.EnvVar{
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		},
	})
}

// AdmissionReview returns the admission.k8s.io/v1 AdmissionReview kube-apiserver sends for a
// CREATE of podJSON, with the given request UID.
func AdmissionReview(uid types.UID, podJSON []byte) ([]byte, error) {
	var meta struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(podJSON, &meta); err != nil {
		return nil, fmt.Errorf("reading the pod's metadata: %w", err)
	}
	podKind := metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}
	podResource := metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:             uid,
			Kind:            podKind,
			Resource:        podResource,
			RequestKind:     &podKind,
			RequestResource: &podResource,
			Name:            meta.Metadata.Name,
			Namespace:       meta.Metadata.Namespace,
			Operation:       admissionv1.Create,
			UserInfo: authenticationv1.UserInfo{
				Username: "system:serviceaccount:kube-system:replicaset-controller",
				UID:      "6a4b9f0e-2f3c-4a57-9d61-8d0c1f6e2b77",
				Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"},
			},
			Object:  runtime.RawExtension{Raw: podJSON},
			Options: runtime.RawExtension{Raw: []byte(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`)},
			DryRun:  new(bool),
		},
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, fmt.Errorf("encoding the AdmissionReview: %w", err)
	}
	return body, nil
}

// CheckInjected reports whether pod carries exactly what Inject adds: the label and one sidecar.
func CheckInjected(pod *corev1.Pod) error {
	if got := pod.Labels[InjectedLabel]; got != "true" {
		return fmt.Errorf("label %s is %q, want \"true\"", InjectedLabel, got)
	}
	sidecars := 0
	for _, c := range pod.Spec.Containers {
		if c.Name == SidecarName {
			sidecars++
			if c.Image != SidecarImage {
				return fmt.Errorf("container %s has image %q, want %q", SidecarName, c.Image, SidecarImage)
			}
		}
	}
	if sidecars != 1 {
		return fmt.Errorf("found %d containers named %s, want 1", sidecars, SidecarName)
	}
	return nil
}

// CheckResponse verifies an AdmissionReview response to AdmissionReview(uid, podJSON): it echoes
// uid, allows the request, and carries a JSON patch that, applied to podJSON with the API
// server's patch library, yields exactly the Pod Inject makes — so every server compared does the
// same work.
func CheckResponse(body []byte, uid types.UID, podJSON []byte) error {
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		return fmt.Errorf("decoding the response: %w", err)
	}
	resp := review.Response
	switch {
	case review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview":
		return fmt.Errorf("response is a %s %s, want an admission.k8s.io/v1 AdmissionReview", review.APIVersion, review.Kind)
	case resp == nil:
		return errors.New("response has no response member")
	case resp.UID != uid:
		return fmt.Errorf("response uid is %q, want %q", resp.UID, uid)
	case !resp.Allowed:
		return fmt.Errorf("request was not allowed: %+v", resp.Result)
	case resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch:
		return fmt.Errorf("response has patchType %v, want JSONPatch", resp.PatchType)
	}
	return CheckPatch(podJSON, resp.Patch)
}

// CheckPatch applies patchJSON to podJSON and checks that the result is the Pod Inject makes from
// podJSON, nothing more and nothing less.
func CheckPatch(podJSON, patchJSON []byte) error {
	p, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		return fmt.Errorf("decoding the patch %s: %w", patchJSON, err)
	}
	patched, err := p.Apply(podJSON)
	if err != nil {
		return fmt.Errorf("applying the patch %s: %w", patchJSON, err)
	}
	return CheckInjectedJSON(podJSON, patched)
}

// CheckInjectedJSON checks that got is the Pod Inject makes from original, both as JSON.
func CheckInjectedJSON(original, got []byte) error {
	var want, have corev1.Pod
	if err := json.Unmarshal(original, &want); err != nil {
		return fmt.Errorf("decoding the original pod: %w", err)
	}
	Inject(&want)
	dec := json.NewDecoder(bytes.NewReader(got))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&have); err != nil {
		return fmt.Errorf("decoding the mutated pod: %w", err)
	}
	if err := CheckInjected(&have); err != nil {
		return err
	}
	if !equality.Semantic.DeepEqual(&want, &have) {
		return errors.New("the mutated pod differs from the expected one in more than the injected label and sidecar")
	}
	return nil
}
