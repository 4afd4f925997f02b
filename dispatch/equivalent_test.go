package dispatch

import (
	"context"
	"encoding/json"
	"errors"
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

// failingConverter fails every conversion, as a CRD's conversion webhook can.
type failingConverter struct{}

func (failingConverter) Convert(context.Context, json.RawMessage, schema.GroupVersionKind) (json.RawMessage, error) {
	return nil, errors.New("conversion webhook for events.k8s.io/v1, Kind=Event failed: no")
}

// A conversion that fails for a webhook matched through another version fails the request with
// an internal error: once for a validating webhook, twice for a mutating one, as the apiserver's
// two dispatchers wrap it.
func TestFailedConversionForAnEquivalentWebhook(t *testing.T) {
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tw := newTestWebhooks(t)
	eventsV1 := func() admissionregistrationv1.ValidatingWebhook {
		w := tw.webhook("/allow")
		w.Rules[0].APIGroups, w.Rules[0].APIVersions, w.Rules[0].Resources = []string{"events.k8s.io"}, []string{"v1"}, []string{"events"}
		return w
	}
	const cause = "conversion webhook for events.k8s.io/v1, Kind=Event failed: no"
	for _, tt := range []struct {
		name        string
		mutating    []admissionregistrationv1.MutatingWebhook
		validating  []admissionregistrationv1.ValidatingWebhook
		wantMessage string
	}{
		{"validating", nil, []admissionregistrationv1.ValidatingWebhook{eventsV1()}, "Internal error occurred: " + cause},
		{"mutating", []admissionregistrationv1.MutatingWebhook{asMutating(eventsV1(), never)}, nil, "Internal error occurred: Internal error occurred: " + cause},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newDispatcher(t, tt.mutating, tt.validating, Options{Resources: mapper, Converter: failingConverter{}})
			res, err := d.Admit(context.Background(), &engine.Request{
				Kind: schema.GroupVersionKind{Version: "v1", Kind: "Event"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "events"},
				Name: "e", Namespace: "default", Operation: admissionv1.Create,
				Object: json.RawMessage(`{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"}}`),
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Allowed || res.Status.Code != 500 || res.Status.Message != tt.wantMessage {
				t.Errorf("got allowed=%v %d %q, want 500 %q", res.Allowed, res.Status.Code, res.Status.Message, tt.wantMessage)
			}
		})
	}
}
