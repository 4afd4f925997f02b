package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/admitkit/admit/engine"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func ptr[T any](v T) *T { return &v }

// webhookOpt adjusts a test webhook; both configuration types share these fields.
type webhookOpt func(*admissionregistrationv1.ValidatingWebhook)

func ignore(w *admissionregistrationv1.ValidatingWebhook) {
	w.FailurePolicy = ptr(admissionregistrationv1.Ignore)
}
func sideEffects(s admissionregistrationv1.SideEffectClass) webhookOpt {
	return func(w *admissionregistrationv1.ValidatingWebhook) { w.SideEffects = &s }
}
func timeout(s int32) webhookOpt {
	return func(w *admissionregistrationv1.ValidatingWebhook) { w.TimeoutSeconds = &s }
}
func objectSelector(l map[string]string) webhookOpt {
	return func(w *admissionregistrationv1.ValidatingWebhook) {
		w.ObjectSelector = &metav1.LabelSelector{MatchLabels: l}
	}
}
func namespaceNotIn(names ...string) webhookOpt {
	return func(w *admissionregistrationv1.ValidatingWebhook) {
		w.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: names}}}
	}
}
func reviewVersions(v ...string) webhookOpt {
	return func(w *admissionregistrationv1.ValidatingWebhook) { w.AdmissionReviewVersions = v }
}
func noClientConfig(w *admissionregistrationv1.ValidatingWebhook) {
	w.ClientConfig = admissionregistrationv1.WebhookClientConfig{}
}

// webhook builds a defaulted webhook named <path>.example.com calling path on tw.
func (tw *testWebhooks) webhook(path string, opts ...webhookOpt) admissionregistrationv1.ValidatingWebhook {
	url := tw.url + path
	name := strings.Trim(strings.ReplaceAll(path, "/", "-"), "-") + ".example.com"
	w := admissionregistrationv1.ValidatingWebhook{
		Name:         strings.ToLower(name),
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: tw.caBundle},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}, Scope: ptr(admissionregistrationv1.AllScopes)},
		}},
		FailurePolicy:           ptr(admissionregistrationv1.Fail),
		MatchPolicy:             ptr(admissionregistrationv1.Equivalent),
		NamespaceSelector:       &metav1.LabelSelector{},
		ObjectSelector:          &metav1.LabelSelector{},
		SideEffects:             ptr(admissionregistrationv1.SideEffectClassNone),
		TimeoutSeconds:          ptr(int32(10)),
		AdmissionReviewVersions: []string{"v1"},
	}
	for _, o := range opts {
		o(&w)
	}
	return w
}

func asMutating(w admissionregistrationv1.ValidatingWebhook, policy admissionregistrationv1.ReinvocationPolicyType) admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{
		Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
		NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector, SideEffects: w.SideEffects,
		TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions, ReinvocationPolicy: &policy,
		MatchConditions: w.MatchConditions,
	}
}

const testPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","labels":{"remove":"me"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`

// generateNamePod is testPod as a generateName CREATE sends it: without a name.
const generateNamePod = `{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-","namespace":"default","labels":{"remove":"me"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`

func podRequest(op admissionv1.Operation) *engine.Request {
	r := &engine.Request{
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name: "p", Namespace: "default", Operation: op,
	}
	switch op {
	case admissionv1.Create:
		r.Object = json.RawMessage(testPod)
	case admissionv1.Update:
		r.Object, r.OldObject = json.RawMessage(testPod), json.RawMessage(testPod)
	case admissionv1.Delete:
		r.OldObject = json.RawMessage(testPod)
	}
	return r
}

func newDispatcher(t *testing.T, mutating []admissionregistrationv1.MutatingWebhook, validating []admissionregistrationv1.ValidatingWebhook, opts Options, around ...steps) admitter {
	t.Helper()
	if len(mutating) > 0 {
		opts.Mutating = []*admissionregistrationv1.MutatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "mutating"}, Webhooks: mutating}}
	}
	if len(validating) > 0 {
		opts.Validating = []*admissionregistrationv1.ValidatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "validating"}, Webhooks: validating}}
	}
	if opts.NewUID == nil {
		opts.NewUID = func() string { return "uid-1" }
	}
	if len(around) > 0 {
		w, err := NewWebhooks(opts)
		if err != nil {
			t.Fatal(err)
		}
		s := around[0]
		return &engine.Pipeline{
			Codec:    opts.Codec,
			Mutating: append(s.mutating, w.Mutating()), Preparer: s.preparer,
			Validating: append(append(s.validating, w.Validating()), s.after...),
			Now:        opts.Now,
		}
	}
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// admitter admits a request: a Dispatcher, or a pipeline of the webhooks among a test's steps.
type admitter interface {
	Admit(ctx context.Context, req *engine.Request) (*engine.Result, error)
}

// steps are what a test puts around the webhooks, where kube-apiserver's plugins run: before
// the webhooks of each phase, the preparation between the phases, and after the validating
// webhooks.
type steps struct {
	mutating   []engine.MutatingStep
	validating []engine.ValidatingStep
	after      []engine.ValidatingStep
	preparer   engine.Preparer
}

// statusSummary is the part of a status the tables compare.
type statusSummary struct {
	Code    int32
	Reason  metav1.StatusReason
	Message string
}

func summarize(s *metav1.Status) *statusSummary {
	if s == nil {
		return nil
	}
	return &statusSummary{Code: s.Code, Reason: s.Reason, Message: s.Message}
}

func TestValidatingWebhooks(t *testing.T) {
	tests := []struct {
		name            string
		webhooks        func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook
		request         func() *engine.Request
		want            *statusSummary // nil: allowed
		wantContains    []string       // when the message is not fully predictable
		wantAnnotations map[string]string
		wantCalls       map[string]int
		wantOutcomes    []engine.Outcome
	}{
		{
			name:     "no webhooks",
			webhooks: func(*testWebhooks) []admissionregistrationv1.ValidatingWebhook { return nil },
		},
		{
			name: "allow with audit annotation",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow")}
			},
			wantAnnotations: map[string]string{"allow.example.com/key1": "value1"},
			wantCalls:       map[string]int{"/allow": 1},
			wantOutcomes:    []engine.Outcome{engine.OutcomeAllowed},
		},
		{
			name: "deny without message",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallow")}
			},
			want:         &statusSummary{403, "", `admission webhook "disallow.example.com" denied the request without explanation`},
			wantOutcomes: []engine.Outcome{engine.OutcomeDenied},
		},
		{
			name: "deny with message",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallowReason")}
			},
			want: &statusSummary{403, "", `admission webhook "disallowreason.example.com" denied the request: you shall not pass`},
		},
		{
			name: "deny without status is a 400",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallowNoStatus")}
			},
			want: &statusSummary{400, "", `admission webhook "disallownostatus.example.com" denied the request without explanation`},
		},
		{
			name: "deny keeps the webhook's code and reason",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallowInvalid")}
			},
			want: &statusSummary{422, metav1.StatusReasonInvalid, `admission webhook "disallowinvalid.example.com" denied the request: spec is bad`},
		},
		{
			name: "internal error with Fail",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/internalErr")}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "internalerr.example.com": failed to call webhook: an error on the server ("webhook internal server error") has prevented the request from succeeding`},
			wantOutcomes: []engine.Outcome{engine.OutcomeError},
		},
		{
			name: "internal errors with Ignore fail open, each annotated",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				a, b, c := tw.webhook("/internalErr", ignore), tw.webhook("/internalErr", ignore), tw.webhook("/internalErr", ignore)
				b.Name, c.Name = "internalerr2.example.com", "internalerr3.example.com"
				return []admissionregistrationv1.ValidatingWebhook{a, b, c}
			},
			wantAnnotations: map[string]string{
				"failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "internalerr.example.com",
				"failed-open.validating.webhook.admission.k8s.io/round_0_index_1": "internalerr2.example.com",
				"failed-open.validating.webhook.admission.k8s.io/round_0_index_2": "internalerr3.example.com",
			},
			wantCalls:    map[string]int{"/internalErr": 3},
			wantOutcomes: []engine.Outcome{engine.OutcomeFailedOpen, engine.OutcomeFailedOpen, engine.OutcomeFailedOpen},
		},
		{
			name: "a Status body in an error answer is the reason",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/statusErr")}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError, `Internal error occurred: failed calling webhook "statuserr.example.com": failed to call webhook: vault unreachable`},
		},
		{
			name: "undecodable answer",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/invalidResp")}
			},
			wantContains: []string{`Internal error occurred: failed calling webhook "invalidresp.example.com": failed to call webhook: couldn't get version/kind; json parse error`},
		},
		{
			name: "broken HTTP",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/nonStatusError")}
			},
			wantContains: []string{`failed calling webhook "nonstatuserror.example.com": failed to call webhook: Post "https://127.0.0.1:`, `/nonStatusError?timeout=10s": `},
		},
		{
			name: "absent response with Fail",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/nilResponse")}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "nilresponse.example.com": received invalid webhook response: webhook response was absent`},
		},
		{
			name: "absent response with Ignore",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/nilResponse", ignore)}
			},
			wantAnnotations: map[string]string{"failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "nilresponse.example.com"},
		},
		{
			name: "v1 answer without uid",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/noUID")}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "nouid.example.com": received invalid webhook response: expected response.uid="uid-1", got ""`},
		},
		{
			name: "v1beta1 answer without uid is accepted",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/noUID", reviewVersions("v1beta1"))}
			},
		},
		{
			name: "v1 answer without apiVersion and kind",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/noGVK")}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "nogvk.example.com": received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind=`},
		},
		{
			name: "a v1beta1 answer to a v1 request",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/v1beta1Answer")}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "v1beta1answer.example.com": failed to call webhook: converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion`},
		},
		{
			name: "validating webhook returning a patch",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/validatingPatch")}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "validatingpatch.example.com": received invalid webhook response: validating webhook may not return response.patch`},
		},
		{
			name: "invalid audit annotation key is dropped",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/invalidAnnotation")}
			},
			wantAnnotations: map[string]string{},
		},
		{
			name: "namespaceSelector exempts the namespace",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallow", namespaceNotIn("default"))}
			},
			wantCalls:    map[string]int{"/disallow": 0},
			wantOutcomes: []engine.Outcome{engine.OutcomeSkipped},
		},
		{
			name: "namespaceSelector does not exempt cluster-scoped objects",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallow", namespaceNotIn("default", ""))}
			},
			request: func() *engine.Request {
				r := podRequest(admissionv1.Create)
				r.Kind, r.Resource, r.Namespace = schema.GroupVersionKind{Version: "v1", Kind: "Node"}, schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, ""
				r.Object = json.RawMessage(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`)
				return r
			},
			want: &statusSummary{403, "", `admission webhook "disallow.example.com" denied the request without explanation`},
		},
		{
			name: "objectSelector skips",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallow", objectSelector(map[string]string{"team": "x"}))}
			},
			wantCalls: map[string]int{"/disallow": 0},
		},
		{
			name: "objectSelector matches the old object on DELETE",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallow", objectSelector(map[string]string{"remove": "me"}))}
			},
			request: func() *engine.Request { return podRequest(admissionv1.Delete) },
			want:    &statusSummary{403, "", `admission webhook "disallow.example.com" denied the request without explanation`},
		},
		{
			name: "no client config",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow", noClientConfig)}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "allow.example.com": could not get REST client: webhook configuration must have either service or URL`},
		},
		{
			name: "no known AdmissionReview version",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow", reviewVersions("v2"))}
			},
			want: &statusSummary{500, metav1.StatusReasonInternalError,
				`Internal error occurred: failed calling webhook "allow.example.com": could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)`},
		},
		{
			name: "redirects are refused",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/redirect")}
			},
			wantContains: []string{`Internal error occurred: failed calling webhook "redirect.example.com": failed to call webhook: `},
			wantCalls:    map[string]int{"/allow": 0},
		},
		{
			name: "Retry-After is honoured like client-go",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/retryOnce")}
			},
			wantCalls: map[string]int{"/retryOnce": 2},
		},
		{
			name: "timeout with Fail names the timeout and the deadline",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/sleep", timeout(1))}
			},
			wantContains: []string{`failed calling webhook "sleep.example.com": failed to call webhook: Post "https://127.0.0.1:`, `/sleep?timeout=1s": context deadline exceeded`},
		},
		{
			name: "timeout with Ignore fails open",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/sleep", timeout(1), ignore)}
			},
			wantAnnotations: map[string]string{"failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "sleep.example.com"},
		},
		{
			name: "several rejections: the lowest index wins",
			webhooks: func(tw *testWebhooks) []admissionregistrationv1.ValidatingWebhook {
				return []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallowReason"), tw.webhook("/disallow")}
			},
			want: &statusSummary{403, "", `admission webhook "disallowreason.example.com" denied the request: you shall not pass`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tw := newTestWebhooks(t)
			d := newDispatcher(t, nil, tt.webhooks(tw), Options{})
			req := podRequest(admissionv1.Create)
			if tt.request != nil {
				req = tt.request()
			}
			res, err := d.Admit(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, tt.want, tt.wantContains)
			if tt.wantAnnotations != nil {
				if diff := cmp.Diff(tt.wantAnnotations, res.AuditAnnotations); diff != "" {
					t.Errorf("audit annotations (-want +got):\n%s", diff)
				}
			}
			for path, n := range tt.wantCalls {
				if got := tw.count(path); got != n {
					t.Errorf("%s called %d times, want %d", path, got, n)
				}
			}
			if tt.wantOutcomes != nil {
				var got []engine.Outcome
				for _, w := range res.Rows {
					got = append(got, w.Outcome)
				}
				if diff := cmp.Diff(tt.wantOutcomes, got); diff != "" {
					t.Errorf("outcomes (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func checkResult(t *testing.T, res *engine.Result, want *statusSummary, wantContains []string) {
	t.Helper()
	if len(wantContains) > 0 {
		if res.Allowed || res.Status == nil {
			t.Fatalf("allowed, want a rejection containing %q", wantContains)
		}
		for _, s := range wantContains {
			if !strings.Contains(res.Status.Message, s) {
				t.Fatalf("message %q does not contain %q", res.Status.Message, s)
			}
		}
		return
	}
	if diff := cmp.Diff(want, summarize(res.Status)); diff != "" {
		t.Fatalf("status (-want +got):\n%s", diff)
	}
	if res.Allowed != (want == nil) {
		t.Fatalf("allowed = %v with status %+v", res.Allowed, res.Status)
	}
}

func TestSeveralRejectionsAreAllReported(t *testing.T) {
	tw := newTestWebhooks(t)
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallowReason"), tw.webhook("/disallow")}, Options{})
	res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Rejections {
		got = append(got, r.Message)
	}
	want := []string{
		`admission webhook "disallowreason.example.com" denied the request: you shall not pass`,
		`admission webhook "disallow.example.com" denied the request without explanation`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("rejections (-want +got):\n%s", diff)
	}
}

func TestDryRunAndSideEffects(t *testing.T) {
	tests := []struct {
		sideEffects *admissionregistrationv1.SideEffectClass
		want        *statusSummary
	}{
		{ptr(admissionregistrationv1.SideEffectClassNone), nil},
		{ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun), nil},
		{ptr(admissionregistrationv1.SideEffectClassUnknown), &statusSummary{400, metav1.StatusReasonBadRequest, `admission webhook "allow.example.com" does not support dry run`}},
		{ptr(admissionregistrationv1.SideEffectClassSome), &statusSummary{400, metav1.StatusReasonBadRequest, `admission webhook "allow.example.com" does not support dry run`}},
		{nil, &statusSummary{500, metav1.StatusReasonInternalError, `Internal error occurred: failed calling webhook "allow.example.com": Webhook SideEffects is nil`}},
	}
	for _, tt := range tests {
		name := "nil"
		if tt.sideEffects != nil {
			name = string(*tt.sideEffects)
		}
		t.Run(name, func(t *testing.T) {
			tw := newTestWebhooks(t)
			w := tw.webhook("/allow")
			w.SideEffects = tt.sideEffects
			d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{w}, Options{})
			req := podRequest(admissionv1.Create)
			req.DryRun = true
			res, err := d.Admit(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res, tt.want, nil)
			if tt.want == nil {
				got := tw.received("/allow")
				if len(got) != 1 || got[0].DryRun == nil || !*got[0].DryRun {
					t.Fatalf("webhook did not receive dryRun=true: %+v", got)
				}
			}
		})
	}
}

func TestWarningsAreDeduplicatedAndCleaned(t *testing.T) {
	tw := newTestWebhooks(t)
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/warn")}, Options{})
	res, err := d.Admit(context.Background(), podRequest(admissionv1.Create))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first", "second"}, res.Warnings); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
}

func TestWebhookReceivesTheApiserversRequest(t *testing.T) {
	tw := newTestWebhooks(t)
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/allow")}, Options{})
	req := podRequest(admissionv1.Update)
	req.SubResource = "status"
	req.UserInfo.Username = "alice"
	if _, err := d.Admit(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := tw.received("/allow")
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	r := *got[0]
	want := admissionv1.AdmissionRequest{
		UID:                "uid-1",
		Kind:               metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:           metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		SubResource:        "status",
		RequestKind:        &metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		RequestResource:    &metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		RequestSubResource: "status",
		Name:               "p", Namespace: "default", Operation: admissionv1.Update,
		DryRun: ptr(false),
	}
	want.UserInfo.Username = "alice"
	r.Object, r.OldObject, r.Options = want.Object, want.OldObject, want.Options
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatalf("request (-want +got):\n%s", diff)
	}
	if string(got[0].Options.Raw) != `{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1"}` || len(got[0].OldObject.Raw) == 0 {
		t.Fatalf("options %s, old object %s", got[0].Options.Raw, got[0].OldObject.Raw)
	}
}

func TestRequestTimeoutStopsTheChain(t *testing.T) {
	tw := newTestWebhooks(t)
	first := asMutating(tw.webhook("/sleep", ignore), admissionregistrationv1.NeverReinvocationPolicy)
	second := asMutating(tw.webhook("/addLabel"), admissionregistrationv1.NeverReinvocationPolicy)
	d := newDispatcher(t, []admissionregistrationv1.MutatingWebhook{first, second}, nil, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := d.Admit(ctx, podRequest(admissionv1.Create))
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, &statusSummary{504, metav1.StatusReasonTimeout, "Timeout: request did not complete within requested timeout"}, nil)
	if tw.count("/addLabel") != 0 {
		t.Fatal("a webhook was called after the request's deadline")
	}
	if got := tw.received("/sleep"); len(got) != 1 {
		t.Fatalf("sleep called %d times", len(got))
	}
}

func TestInvalidRequestsAreRefused(t *testing.T) {
	d := newDispatcher(t, nil, nil, Options{})
	for _, req := range []*engine.Request{
		{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Operation: "PATCH"},
		{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Operation: admissionv1.Create, Object: json.RawMessage(`{}`)},
		{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Operation: admissionv1.Create},
		{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Operation: admissionv1.Update, Object: json.RawMessage(`{}`)},
	} {
		if _, err := d.Admit(context.Background(), req); err == nil || !strings.HasPrefix(err.Error(), "invalid admission request: ") {
			t.Errorf("Admit(%+v) = %v, want an invalid request error", req, err)
		}
	}
}

func TestExemptObjectsReachNoWebhook(t *testing.T) {
	tests := []struct {
		name string
		req  *engine.Request
	}{
		{"webhook configuration", &engine.Request{
			Kind:     schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"},
			Resource: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
			Name:     "w", Operation: admissionv1.Delete, OldObject: json.RawMessage(`{"metadata":{"name":"w"}}`),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newTestWebhooks(t)
			d := newDispatcher(t, []admissionregistrationv1.MutatingWebhook{asMutating(tw.webhook("/addLabel"), never)}, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallow")}, Options{})
			res, err := d.Admit(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Allowed || tw.count("/disallow") != 0 || tw.count("/addLabel") != 0 {
				t.Fatalf("allowed %v, calls %d/%d: exempt objects must reach no webhook", res.Allowed, tw.count("/addLabel"), tw.count("/disallow"))
			}
			if len(res.Rows) != 2 || res.Rows[0].Outcome != engine.OutcomeSkipped || !strings.Contains(res.Rows[1].Reason, "never sent") {
				t.Fatalf("webhook results = %+v", res.Rows)
			}
		})
	}
}

// TestReviewsReachWebhooks: kube-apiserver 1.36 sends the authentication and authorization
// reviews (not stored, only created) to admission webhooks; they need no name.
func TestReviewsReachWebhooks(t *testing.T) {
	tw := newTestWebhooks(t)
	d := newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{tw.webhook("/disallow")}, Options{})
	res, err := d.Admit(context.Background(), &engine.Request{
		Kind:      schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"},
		Resource:  schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"},
		Operation: admissionv1.Create, Object: json.RawMessage(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"x"}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Allowed || tw.count("/disallow") != 1 {
		t.Fatalf("allowed %v after %d calls: the webhook must see the TokenReview and deny it", res.Allowed, tw.count("/disallow"))
	}
}
