package quickstart

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/webhook"
)

func TestSidecarAddsLabelAndContainerOnce(t *testing.T) {
	s := Sidecar{Name: "proxy", Image: "pause"}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
	warnings, err := s.Default(context.Background(), &webhook.Request{}, pod)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`added sidecar container "proxy" (pause)`}, warnings); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
	again, err := s.Default(context.Background(), &webhook.Request{}, pod)
	if err != nil || len(again) != 0 {
		t.Fatalf("second pass: warnings %v, err %v; want none", again, err)
	}
	want := []corev1.Container{{Name: "app"}, {Name: "proxy", Image: "pause"}}
	if diff := cmp.Diff(want, pod.Spec.Containers); diff != "" || pod.Labels[InjectedLabel] != "true" {
		t.Fatalf("containers (-want +got):\n%s\nlabels %v", diff, pod.Labels)
	}
}

func TestConfigMapKeys(t *testing.T) {
	tests := []struct {
		name        string
		cm          corev1.ConfigMap
		wantMessage string
	}{
		{"valid keys", corev1.ConfigMap{Data: map[string]string{"app.conf": "x"}, BinaryData: map[string][]byte{"logo.png": nil}}, ""},
		{"upper case data key", corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"Bad_Key": "x"}},
			`ConfigMap "c" is invalid: data[Bad_Key]: Invalid value: "Bad_Key": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"binary key", corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, BinaryData: map[string][]byte{"-x": nil}},
			`ConfigMap "c" is invalid: binaryData[-x]: Invalid value: "-x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &webhook.Request{AdmissionRequest: admissionv1.AdmissionRequest{Kind: metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Name: "c"}}
			_, err := ConfigMapKeys{}.ValidateCreate(context.Background(), req, &tt.cm)
			resp := webhook.StatusFromError(err, corev1.SchemeGroupVersion.WithKind("ConfigMap").GroupKind(), "c")
			if tt.wantMessage == "" {
				if resp.Outcome != webhook.OutcomeAllowed {
					t.Fatalf("outcome %v: %v", resp.Outcome, err)
				}
				return
			}
			if resp.Outcome != webhook.OutcomeDenied || resp.Status.Code != 422 || len(resp.Status.Message) < len(tt.wantMessage) || resp.Status.Message[:len(tt.wantMessage)] != tt.wantMessage {
				t.Fatalf("got %v %+v, want 422 starting %q", resp.Outcome, resp.Status, tt.wantMessage)
			}
		})
	}
}

func TestNewRegistryServesBothPaths(t *testing.T) {
	r, err := NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, w := range r.Webhooks() {
		paths = append(paths, w.Path)
	}
	if diff := cmp.Diff([]string{"/mutate-core-v1-pod", "/validate-core-v1-configmap"}, paths); diff != "" {
		t.Fatalf("paths (-want +got):\n%s", diff)
	}
}
