package builtin

import (
	"context"
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/webhook"
)

// review describes one admission request for the tests: the operation, the object before and after
// (either may be nil), and the subresource.
type review struct {
	operation   admissionv1.Operation
	subresource string
	object      any
	oldObject   any
}

// registered registers cfg in a fresh registry and returns its webhooks by name.
func registered(t *testing.T, cfg Config) map[string]webhook.Webhook {
	t.Helper()
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := Register(r, cfg); err != nil {
		t.Fatalf("Register: %v", err)
	}
	byName := map[string]webhook.Webhook{}
	for _, w := range r.Webhooks() {
		byName[w.Name] = w
	}
	return byName
}

// send builds the AdmissionRequest the apiserver would send to w for rv and returns w's answer,
// with the object after w's patch (nil when rv has no object).
func send(t *testing.T, w webhook.Webhook, rv review) (webhook.Response, []byte) {
	t.Helper()
	req := &webhook.Request{ReviewVersion: webhook.ReviewV1}
	req.UID = "test"
	req.Operation = rv.operation
	req.SubResource = rv.subresource
	req.Kind = metav1.GroupVersionKind(w.Kind)
	req.Resource = metav1.GroupVersionResource(schema.GroupVersionResource{Group: w.Kind.Group, Version: w.Kind.Version, Resource: w.Resource})
	req.Object = rawObject(t, rv.object)
	req.OldObject = rawObject(t, rv.oldObject)
	if obj, ok := rv.object.(metav1.Object); ok {
		req.Name, req.Namespace = obj.GetName(), obj.GetNamespace()
	} else if old, ok := rv.oldObject.(metav1.Object); ok {
		req.Name, req.Namespace = old.GetName(), old.GetNamespace()
	}
	resp := w.Handler.Admit(context.Background(), req)
	if req.Object.Raw == nil {
		return resp, nil
	}
	return resp, applyPatch(t, req.Object.Raw, resp)
}

func rawObject(t *testing.T, obj any) runtime.RawExtension {
	t.Helper()
	switch o := obj.(type) {
	case nil:
		return runtime.RawExtension{}
	case string:
		return runtime.RawExtension{Raw: []byte(o)}
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("encoding the test object: %v", err)
	}
	return runtime.RawExtension{Raw: raw}
}

// applyPatch applies the response's patch to raw the way the apiserver does.
func applyPatch(t *testing.T, raw []byte, resp webhook.Response) []byte {
	t.Helper()
	if len(resp.Patch) == 0 {
		return raw
	}
	encoded, err := json.Marshal(resp.Patch)
	if err != nil {
		t.Fatalf("encoding the patch: %v", err)
	}
	p, err := jsonpatch.DecodePatch(encoded)
	if err != nil {
		t.Fatalf("decoding the patch %s: %v", encoded, err)
	}
	patched, err := p.Apply(raw)
	if err != nil {
		t.Fatalf("applying the patch %s: %v", encoded, err)
	}
	return patched
}

// decode decodes raw into a new T.
func decode[T any](t *testing.T, raw []byte) *T {
	t.Helper()
	obj := new(T)
	if err := json.Unmarshal(raw, obj); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return obj
}
