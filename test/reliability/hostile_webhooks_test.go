package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/lockedbuf"
)

// admissionPod is the object the dispatcher scenarios admit.
const admissionPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"reliability","labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`

// podCreate is a CREATE of admissionPod.
func podCreate(name string) *engine.Request {
	return &engine.Request{
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name: name, Namespace: "reliability", Operation: admissionv1.Create,
		Object: json.RawMessage(strings.Replace(admissionPod, `"name":"p"`, `"name":"`+name+`"`, 1)),
	}
}

// webhookTo is a webhook called for every Pod at url, with v1 defaults.
func webhookTo(name, url string, caBundle []byte, policy admissionregistrationv1.FailurePolicyType, timeoutSeconds int32) admissionregistrationv1.ValidatingWebhook {
	scope := admissionregistrationv1.AllScopes
	none := admissionregistrationv1.SideEffectClassNone
	return admissionregistrationv1.ValidatingWebhook{
		Name:         name,
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope},
		}},
		FailurePolicy: &policy, SideEffects: &none, TimeoutSeconds: &timeoutSeconds,
		AdmissionReviewVersions: []string{"v1"},
	}
}

// newDispatcher builds a dispatcher of one configuration of each type, defaulted as files are.
func newDispatcher(t *testing.T, logger *slog.Logger, mutating []admissionregistrationv1.ValidatingWebhook, validating []admissionregistrationv1.ValidatingWebhook) *dispatch.Dispatcher {
	t.Helper()
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "reliability"}}
	for _, w := range mutating {
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{
			Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
			SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions,
			ObjectSelector: w.ObjectSelector, NamespaceSelector: w.NamespaceSelector,
		})
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "reliability"}, Webhooks: validating}
	config.SetDefaultsMutating(m)
	config.SetDefaultsValidating(v)
	d, err := dispatch.New(dispatch.Options{
		Mutating:   []*admissionregistrationv1.MutatingWebhookConfiguration{m},
		Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{v},
		Logger:     logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// hostileCase is what the dispatcher must make of one misbehaving webhook.
type hostileCase struct {
	behaviour string
	// phases the behaviour is tried in: mutating, validating or both.
	mutating, validating bool
	want                 expectation
	// message appears in the rejection (and, for calling errors, in the reason of a webhook that
	// failed open).
	message string
}

// timeoutSeconds is the webhook's timeout: 1 s where the behaviour is to outlast it, generous
// elsewhere so that a slow machine (20 MiB over TLS under the race detector) does not turn
// another failure into a timeout.
func (c hostileCase) timeoutSeconds() int32 {
	if c.behaviour == "hang" || c.behaviour == "drip" {
		return 1
	}
	return 15
}

// expectation is what failurePolicy makes of a behaviour.
type expectation int

const (
	// admitted whatever the failure policy: the webhook answered validly.
	admitted expectation = iota
	// callingError: no usable answer; Fail rejects with 500, Ignore admits (failed open).
	callingError
	// internalError: a valid answer the apiserver cannot apply; rejected with 500 whatever the
	// failure policy, as kube-apiserver does.
	internalError
)

func hostileCases() []hostileCase {
	return []hostileCase{
		{behaviour: "hang", mutating: true, validating: true, want: callingError, message: "context deadline exceeded"},
		{behaviour: "reset", mutating: true, validating: true, want: callingError, message: "failed to call webhook"},
		{behaviour: "garbage", mutating: true, validating: true, want: callingError, message: "json parse error"},
		{behaviour: "html", mutating: true, validating: true, want: callingError, message: "json parse error"},
		{behaviour: "redirect", mutating: true, validating: true, want: callingError, message: "307"},
		{behaviour: "huge", mutating: true, validating: true, want: callingError, message: "response body exceeds 16777216 bytes"},
		{behaviour: "drip", mutating: true, validating: true, want: callingError, message: "context deadline exceeded"},
		{behaviour: "warnings", mutating: true, validating: true, want: admitted},
		{behaviour: "hugepatch", mutating: true, want: callingError, message: "response body exceeds 16777216 bytes"},
		{behaviour: "copybomb", mutating: true, want: internalError, message: "Unable to complete the copy"},
		{behaviour: "nonobject", mutating: true, want: internalError, message: "replace operation value must be object or array"},
		{behaviour: "badmetadata", mutating: true, want: internalError, message: "metadata"},
	}
}

// hostileWebhooks sends an admission through webhooks that hang, reset the
// connection, answer garbage, redirect, flood warnings, send huge or pathological patches or
// produce an invalid object, once with each failure policy. Promises: each outcome follows the
// failure policy exactly as kube-apiserver applies it (calling errors are decided by the policy;
// a valid answer that cannot be applied is rejected either way), with a clear message; redirects
// are not followed; the webhook's 1 s timeout ends hanging calls; warnings stay within the
// apiserver's budget; and no goroutine outlives the test.
func hostileWebhooks(t *testing.T, m *measurements) {
	h := startHostileServer(t)
	var logs lockedbuf.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var cases []subtest
	for _, tc := range hostileCases() {
		for _, phase := range []string{"mutating", "validating"} {
			if (phase == "mutating" && !tc.mutating) || (phase == "validating" && !tc.validating) {
				continue
			}
			for _, policy := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
				cases = append(cases, subtest{tc.behaviour + "/" + phase + "/" + string(policy), func(t *testing.T) {
					name := tc.behaviour + ".hostile.admit.dev"
					w := webhookTo(name, h.path("admission", tc.behaviour), h.caBundle, policy, tc.timeoutSeconds())
					var d *dispatch.Dispatcher
					if phase == "mutating" {
						d = newDispatcher(t, logger, []admissionregistrationv1.ValidatingWebhook{w}, nil)
					} else {
						d = newDispatcher(t, logger, nil, []admissionregistrationv1.ValidatingWebhook{w})
					}
					res := admitWithin(t, d, context.Background(), podCreate("hostile"), 30*time.Second)
					checkHostileOutcome(t, tc, policy, name, res)
				}})
			}
		}
	}
	passed := runConcurrently(t, cases...)
	m.Logf("%d of %d cases (%d misbehaviours, each phase and failure policy they apply to) as promised", passed, len(cases), len(hostileCases()))
	if n := h.redirectTarget.Load(); n != 0 {
		t.Errorf("the redirect target was called %d times; redirects must not be followed", n)
	}
	if strings.Contains(logs.String(), "panic") {
		t.Errorf("the dispatcher logged a panic:\n%s", logs.String())
	}
}

// checkHostileOutcome compares a Result with what tc expects under policy.
func checkHostileOutcome(t *testing.T, tc hostileCase, policy admissionregistrationv1.FailurePolicyType, name string, res *engine.Result) {
	t.Helper()
	outcome := webhookOutcome(res, name)
	want := tc.want
	switch {
	case want == admitted || (want == callingError && policy == admissionregistrationv1.Ignore):
		if !res.Allowed {
			t.Fatalf("rejected with %s; want admitted", statusText(res.Status))
		}
		if want == callingError {
			if outcome.Outcome != engine.OutcomeFailedOpen || !strings.Contains(outcome.Reason, tc.message) {
				t.Errorf("webhook outcome %s %q; want failed-open with a reason containing %q", outcome.Outcome, outcome.Reason, tc.message)
			}
			if !hasFailedOpenAnnotation(res, name) {
				t.Errorf("no failed-open audit annotation names %s: %v", name, res.AuditAnnotations)
			}
		}
	default:
		if res.Allowed || res.Status == nil {
			t.Fatalf("admitted (webhook outcome %s %q); want rejected with a message containing %q", outcome.Outcome, outcome.Reason, tc.message)
		}
		if res.Status.Code != 500 || !strings.Contains(res.Status.Message, tc.message) {
			t.Errorf("rejected with %s; want 500 and a message containing %q", statusText(res.Status), tc.message)
		}
		if want == callingError && !strings.Contains(res.Status.Message, `failed calling webhook "`+name+`"`) {
			t.Errorf("the rejection %q does not name the webhook", res.Status.Message)
		}
	}
	if tc.behaviour == "warnings" {
		checkWarningBudget(t, res.Warnings)
	}
	if size := len(res.Object); size > 1<<20 {
		t.Errorf("the admitted object is %s", mib(int64(size)))
	}
}

// checkWarningBudget checks the apiserver's limits: 4,096 runes in all, and once over, each
// warning cut to 256.
func checkWarningBudget(t *testing.T, warnings []string) {
	t.Helper()
	total := 0
	for _, w := range warnings {
		total += len([]rune(w))
		if len([]rune(w)) > 256 {
			t.Errorf("a warning of %d runes passed the budget", len([]rune(w)))
		}
	}
	if total > 4096 || len(warnings) == 0 {
		t.Errorf("%d warnings of %d runes in all; want some, at most 4096 runes", len(warnings), total)
	}
}

func webhookOutcome(res *engine.Result, name string) engine.Row {
	for _, w := range res.Rows {
		if w.Name == name {
			return w
		}
	}
	return engine.Row{}
}

func hasFailedOpenAnnotation(res *engine.Result, name string) bool {
	for k, v := range res.AuditAnnotations {
		if strings.HasPrefix(k, "failed-open.") && v == name {
			return true
		}
	}
	return false
}

func statusText(s *metav1.Status) string {
	if s == nil {
		return "no status"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// admitWithin runs an admission and fails the test if it has not returned within limit: a
// dispatcher that ignores deadlines must not hang the suite.
func admitWithin(t *testing.T, d *dispatch.Dispatcher, ctx context.Context, req *engine.Request, limit time.Duration) *engine.Result {
	t.Helper()
	type outcome struct {
		res *engine.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := d.Admit(ctx, req)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatalf("Admit: %v", o.err)
		}
		return o.res
	case <-time.After(limit):
		t.Fatalf("Admit has not returned after %s", limit)
		return nil
	}
}

// requestDeadline admits through webhooks that hang with a 10 s timeout, under a request deadline
// of 500 ms. Promises: Admit returns at the request's deadline, not the webhook's; the calls are
// abandoned (none still hangs at the webhook once Admit returned); the outcome follows the failure
// policy — and a mutating webhook failing open past the deadline still ends the request with the
// apiserver's timeout.
func requestDeadline(t *testing.T, m *measurements) {
	h := startHostileServer(t)
	tests := []struct {
		phase       string
		policy      admissionregistrationv1.FailurePolicyType
		wantAllowed bool
		wantCode    int32
		wantMessage string
	}{
		{phase: "mutating", policy: admissionregistrationv1.Fail, wantCode: 500, wantMessage: "context deadline exceeded"},
		{phase: "mutating", policy: admissionregistrationv1.Ignore, wantCode: 504, wantMessage: "request did not complete within requested timeout"},
		{phase: "validating", policy: admissionregistrationv1.Fail, wantCode: 500, wantMessage: "context deadline exceeded"},
		{phase: "validating", policy: admissionregistrationv1.Ignore, wantAllowed: true},
	}
	var cases []subtest
	var tookMu sync.Mutex
	var slowest time.Duration
	for _, tt := range tests {
		cases = append(cases, subtest{tt.phase + "/" + string(tt.policy), func(t *testing.T) {
			w := webhookTo("hang.hostile.admit.dev", h.path("admission", "hang"), h.caBundle, tt.policy, 10)
			var d *dispatch.Dispatcher
			if tt.phase == "mutating" {
				d = newDispatcher(t, nil, []admissionregistrationv1.ValidatingWebhook{w}, nil)
			} else {
				d = newDispatcher(t, nil, nil, []admissionregistrationv1.ValidatingWebhook{w})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			// Half the webhook's own timeout: returning later means the request deadline was ignored.
			start := time.Now()
			res := admitWithin(t, d, ctx, podCreate("deadline"), 5*time.Second)
			tookMu.Lock()
			slowest = max(slowest, time.Since(start))
			tookMu.Unlock()
			if res.Allowed != tt.wantAllowed {
				t.Fatalf("allowed %v (%s); want %v", res.Allowed, statusText(res.Status), tt.wantAllowed)
			}
			if !tt.wantAllowed && (res.Status.Code != tt.wantCode || !strings.Contains(res.Status.Message, tt.wantMessage)) {
				t.Errorf("rejected with %s; want %d and a message containing %q", statusText(res.Status), tt.wantCode, tt.wantMessage)
			}
		}})
	}
	passed := runConcurrently(t, cases...)
	m.Logf("%d of %d cases as promised; the slowest returned %s after it started", passed, len(cases), slowest.Round(10*time.Millisecond))
	waitFor(t, 5*time.Second, "the webhook to see every caller go away", func() error {
		if n := h.hanging.Load(); n > 0 {
			return fmt.Errorf("%d calls still hang", n)
		}
		return nil
	})
}
