package dispatch

import (
	"context"
	"encoding/json"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

func TestCELMatchConditions(t *testing.T) {
	tests := []struct {
		name        string
		expression  string
		policy      admissionregistrationv1.FailurePolicyType
		podName     string
		wantCalls   int
		wantAllowed bool
		wantMessage string
	}{
		{"mutate everything except skip-me: other", "object.metadata.name != 'skip-me'", admissionregistrationv1.Fail, "web", 1, true, ""},
		{"mutate everything except skip-me: skip-me", "object.metadata.name != 'skip-me'", admissionregistrationv1.Fail, "skip-me", 0, true, ""},
		{"oldObject is null on CREATE", "oldObject == null", admissionregistrationv1.Fail, "web", 1, true, ""},
		{"request fields are visible", "request.operation == 'CREATE' && request.namespace == 'default'", admissionregistrationv1.Fail, "web", 1, true, ""},
		{"evaluation error with Fail", "object.metadata.labels['missing'] == 'x'", admissionregistrationv1.Fail, "web", 0, false, `pods "web" is forbidden: expression 'object.metadata.labels['missing'] == 'x'' resulted in error: no such key: missing`},
		{"evaluation error with Ignore skips", "object.metadata.labels['missing'] == 'x'", admissionregistrationv1.Ignore, "web", 0, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newTestWebhooks(t)
			w := tw.webhook("/allow")
			w.FailurePolicy = &tt.policy
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: tt.expression}}
			d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{w}, Options{Conditions: CELConditions(nil)})
			req := podRequest(admissionv1.Create)
			req.Name = tt.podName
			req.Object = json.RawMessage(strings.Replace(testPod, `"name":"p"`, `"name":"`+tt.podName+`"`, 1))
			res, err := d.Admit(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Allowed != tt.wantAllowed {
				t.Fatalf("allowed = %v (%+v), want %v", res.Allowed, res.Status, tt.wantAllowed)
			}
			if tt.wantMessage != "" && (res.Status == nil || res.Status.Message != tt.wantMessage || res.Status.Code != 403) {
				t.Fatalf("status = %+v, want 403 %q", res.Status, tt.wantMessage)
			}
			if got := tw.count("/allow"); got != tt.wantCalls {
				t.Fatalf("webhook called %d times, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestCompileErrorsFailNew(t *testing.T) {
	w := admissionregistrationv1.ValidatingWebhook{Name: "a.b.c", MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "object.("}}}
	_, err := New(Options{Conditions: CELConditions(nil), Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{Webhooks: []admissionregistrationv1.ValidatingWebhook{w}}}})
	if err == nil || !strings.Contains(err.Error(), "compilation failed") {
		t.Fatalf("New = %v, want a compilation error", err)
	}
}

func TestBuiltinResourcesDriveEquivalentMatching(t *testing.T) {
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	tw := newTestWebhooks(t)
	w := tw.webhook("/allow")
	w.Rules[0].APIGroups, w.Rules[0].APIVersions, w.Rules[0].Resources = []string{"events.k8s.io"}, []string{"v1"}, []string{"events"}
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{w}, Options{Resources: mapper, Converter: apiVersionConverter{}})
	req := &Request{
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

func TestMatchConditionErrorsAreCountedPerCondition(t *testing.T) {
	reg := prometheus.NewRegistry()
	metrics, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	tw := newTestWebhooks(t)
	w := tw.webhook("/allow", ignore)
	w.MatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "a", Expression: "object.metadata.labels['missing'] == 'x'"},
		{Name: "b", Expression: "object.metadata.annotations['missing'] == 'x'"},
	}
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{w}, Options{Conditions: CELConditions(nil), Metrics: metrics})
	if _, err := d.Admit(context.Background(), podRequest(admissionv1.Create)); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(metrics.condErrors.WithLabelValues(w.Name, "webhook", "validating", "CREATE")); got != 2 {
		t.Fatalf("evaluation errors counted %v, want 2 (one per condition, also with Ignore)", got)
	}
}
