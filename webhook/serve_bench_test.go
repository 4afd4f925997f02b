package webhook

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// configMapReview is the AdmissionReview kube-apiserver sends for a small ConfigMap CREATE (the
// end-to-end latency benchmark's), managed fields and user included.
const configMapReview = `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"0d4b8f0e-5c36-4f6e-8d6c-3c1a2b7e9f10",` +
	`"kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"","version":"v1","resource":"configmaps"},` +
	`"requestKind":{"group":"","version":"v1","kind":"ConfigMap"},"requestResource":{"group":"","version":"v1","resource":"configmaps"},` +
	`"name":"cm-17","namespace":"latency-mutating","operation":"CREATE","userInfo":{"username":"admin","uid":"admin",` +
	`"groups":["system:masters","system:authenticated"]},"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-17",` +
	`"namespace":"latency-mutating","uid":"6c0e5a57-9a3e-4c1f-b5a2-2f4e8d9c0b13","creationTimestamp":"2026-11-23T22:46:05Z",` +
	`"labels":{"app.kubernetes.io/name":"latency"},"managedFields":[{"manager":"e2e.test","operation":"Update","apiVersion":"v1",` +
	`"time":"2026-11-23T22:46:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:app.conf":{},"f:feature-flags":{}},` +
	`"f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/name":{}}}}}]},"data":{"app.conf":"mode=production\nworkers=4\n",` +
	`"feature-flags":"a=true,b=false"}},"oldObject":null,"dryRun":false,"options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}}}`

// BenchmarkServe times the HTTP adapter and a typed defaulter on whole requests, in process: a
// label added to the small ConfigMap above, and a label and a sidecar added to a 10 KB Pod.
func BenchmarkServe(b *testing.B) {
	labelConfigMap := DefaulterFunc[*corev1.ConfigMap](func(_ context.Context, _ *Request, cm *corev1.ConfigMap) ([]string, error) {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["admit-latency/defaulted"] = "true"
		return nil, nil
	})
	injectPod := DefaulterFunc[*corev1.Pod](func(_ context.Context, _ *Request, pod *corev1.Pod) ([]string, error) {
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		pod.Labels["injected"] = "true"
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "proxy", Image: "registry.example.com/mesh/proxy:1.24.2",
			Args: []string{"proxy", "sidecar"}, Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 15090}}})
		return nil, nil
	})
	cases := []struct {
		name    string
		kind    schema.GroupVersionKind
		handler Handler
		body    []byte
	}{
		{"configmap-label", corev1.SchemeGroupVersion.WithKind("ConfigMap"), DefaultingHandler[*corev1.ConfigMap](labelConfigMap), []byte(configMapReview)},
		{"pod-sidecar", corev1.SchemeGroupVersion.WithKind("Pod"), DefaultingHandler[*corev1.Pod](injectPod), benchmarkReview(b)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			h := NewHTTPHandler(c.name, c.handler, HTTPOptions{})
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(c.body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			if rec := serve(); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"patch":"`)) {
				b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
			}
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				serve()
			}
		})
	}
}
