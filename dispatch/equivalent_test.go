package dispatch

import (
	"context"
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
)

func TestBuiltinResourcesDriveEquivalentMatching(t *testing.T) {
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tw := newTestWebhooks(t)
	w := tw.webhook("/allow")
	w.Rules[0].APIGroups, w.Rules[0].APIVersions, w.Rules[0].Resources = []string{"events.k8s.io"}, []string{"v1"}, []string{"events"}
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{w}, Options{Resources: mapper, Converter: apiVersionConverter{}})
	req := &engine.Request{
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Event"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "events"},
		Name: "e", Namespace: "default", Operation: admissionv1.Create,
		Object: json.RawMessage(`{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"}}`),
	}
	if _, err := d.Admit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := tw.received("/allow")
	if len(got) != 1 || got[0].Kind.Group != "events.k8s.io" || got[0].RequestKind.Group != "" {
		t.Fatalf("requests = %+v, want one for events.k8s.io/v1 with the core request kind", got)
	}
}
