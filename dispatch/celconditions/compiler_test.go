package celconditions_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/celconditions"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/webhooktest"
)

// podWebhook is a validating webhook on pod CREATEs calling server's path.
func podWebhook(server *webhooktest.Server, policy admissionregistrationv1.FailurePolicyType, conditions ...admissionregistrationv1.MatchCondition) admissionregistrationv1.ValidatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	return admissionregistrationv1.ValidatingWebhook{
		Name: "pods.example.com", ClientConfig: server.ClientConfig(webhooktest.PathAllow),
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
		}},
		FailurePolicy: &policy, NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
		SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, MatchConditions: conditions,
	}
}

func dispatcher(t *testing.T, w admissionregistrationv1.ValidatingWebhook, metrics *dispatch.Metrics) *dispatch.Dispatcher {
	t.Helper()
	d, err := dispatch.New(dispatch.Options{
		Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "v"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{w}}},
		Conditions: celconditions.Compiler(nil), Metrics: metrics,
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func podCreate(name string) *engine.Request {
	return &engine.Request{
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name: name, Namespace: "default", Operation: admissionv1.Create,
		Object: []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`),
	}
}

func TestCompilerDrivesTheDispatcher(t *testing.T) {
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
			server := webhooktest.Start(t)
			d := dispatcher(t, podWebhook(server, tt.policy, admissionregistrationv1.MatchCondition{Name: "c", Expression: tt.expression}), nil)
			res, err := d.Admit(context.Background(), podCreate(tt.podName))
			if err != nil {
				t.Fatal(err)
			}
			if res.Allowed != tt.wantAllowed {
				t.Fatalf("allowed = %v (%+v), want %v", res.Allowed, res.Status, tt.wantAllowed)
			}
			if tt.wantMessage != "" && (res.Status == nil || res.Status.Message != tt.wantMessage || res.Status.Code != 403) {
				t.Fatalf("status = %+v, want 403 %q", res.Status, tt.wantMessage)
			}
			if got := server.Calls(webhooktest.PathAllow); got != tt.wantCalls {
				t.Fatalf("webhook called %d times, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestCompileErrorsFailNew(t *testing.T) {
	w := admissionregistrationv1.ValidatingWebhook{Name: "a.b.c", MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "object.("}}}
	_, err := dispatch.New(dispatch.Options{Conditions: celconditions.Compiler(nil), Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{Webhooks: []admissionregistrationv1.ValidatingWebhook{w}}}})
	if err == nil || !strings.Contains(err.Error(), "compilation failed") {
		t.Fatalf("New = %v, want a compilation error", err)
	}
}

func TestEvaluationErrorsAreCountedPerCondition(t *testing.T) {
	reg := prometheus.NewRegistry()
	metrics, err := dispatch.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	server := webhooktest.Start(t)
	w := podWebhook(server, admissionregistrationv1.Ignore,
		admissionregistrationv1.MatchCondition{Name: "a", Expression: "object.metadata.labels['missing'] == 'x'"},
		admissionregistrationv1.MatchCondition{Name: "b", Expression: "object.metadata.annotations['missing'] == 'x'"})
	if _, err := dispatcher(t, w, metrics).Admit(context.Background(), podCreate("web")); err != nil {
		t.Fatal(err)
	}
	const want = `
# HELP apiserver_admission_match_condition_evaluation_errors_total matchConditions that could not be evaluated, by webhook name, kind, type and operation.
# TYPE apiserver_admission_match_condition_evaluation_errors_total counter
apiserver_admission_match_condition_evaluation_errors_total{kind="webhook",name="pods.example.com",operation="CREATE",type="validating"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_admission_match_condition_evaluation_errors_total"); err != nil {
		t.Fatalf("one evaluation error per condition, also with Ignore: %v", err)
	}
}
