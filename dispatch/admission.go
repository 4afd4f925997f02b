package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
)

// admission is one admission as a webhooks step sees it: the engine's attributes of the
// admission in flight, and the webhooks' own state for it.
type admission struct {
	d   *Webhooks
	at  *engine.Attributes
	req *engine.Request
	// ctx is the admission's context, for the Converter.
	ctx context.Context
	// exemptReason is why no webhook sees this admission, if none does.
	exemptReason string
	reinvoke     *reinvocation
}

// reinvocationKey keeps an admission's reinvocation state across the mutating rounds.
type reinvocationKey struct{}

func (w *Webhooks) admission(ctx context.Context, at *engine.Attributes) *admission {
	re := engine.AdmissionState(ctx, reinvocationKey{}, func() any {
		return &reinvocation{previouslyInvoked: map[string]bool{}, reinvoke: map[string]bool{}}
	}).(*reinvocation)
	return &admission{d: w, at: at, req: at.Request, ctx: ctx, exemptReason: ExemptReason(at.Request), reinvoke: re}
}

// object is the current object in the request's version; oldObject the existing one.
func (a *admission) object() json.RawMessage    { return a.at.Object() }
func (a *admission) oldObject() json.RawMessage { return a.at.OldObject() }

// name is what webhooks see as the object's name: empty for a generateName CREATE while
// mutating, the generated name while validating.
func (a *admission) name() string { return a.at.Name() }

func (a *admission) addAnnotation(key, value string) { a.at.AddAnnotation(key, value) }

// record adds a webhook's outcome to the result: r with the webhook's identity filled in; pos
// is the webhook's position in its phase, which orders the result.
func (a *admission) record(h *hook, pos int, r engine.Row) {
	r.Configuration, r.Name, r.Type = h.configuration, h.name, engine.TypeValidatingWebhook
	if h.mutating {
		r.Type = engine.TypeMutatingWebhook
	}
	a.at.RecordAt(pos, r)
}

// objectAs returns the current object in kind's version, converting when the webhook was matched
// through an equivalent resource.
func (a *admission) objectAs(kind schema.GroupVersionKind) (json.RawMessage, error) {
	return a.convert(a.object(), kind)
}

func (a *admission) oldObjectAs(kind schema.GroupVersionKind) (json.RawMessage, error) {
	return a.convert(a.oldObject(), kind)
}

func (a *admission) convert(obj json.RawMessage, kind schema.GroupVersionKind) (json.RawMessage, error) {
	if len(obj) == 0 || kind == a.req.Kind || a.req.Operation == admissionv1.Connect {
		return obj, nil
	}
	if a.d.converter == nil {
		return nil, fmt.Errorf("no conversion from %s to %s is configured", a.req.Kind, kind)
	}
	return a.d.converter.Convert(a.ctx, obj, kind)
}

// isCanceled reports whether a calling error came from the request being canceled, which the
// apiserver neither counts nor annotates as a fail-open.
func isCanceled(err *CallingError) bool { return errors.Is(err.Reason, context.Canceled) }

// ExemptReason says why kube-apiserver sends req to no webhook and no admission policy at all,
// or returns "". Webhook and admission policy configurations are exempt so a broken webhook can
// always be removed. (The authentication and authorization reviews are excluded from admission
// policies only: kube-apiserver 1.36 sends them to webhooks.)
func ExemptReason(req *engine.Request) string {
	if resources.IsAdmissionConfiguration(req.Kind.GroupKind()) {
		return req.Kind.Kind + " objects are never sent to admission webhooks, so a broken webhook can always be removed"
	}
	return ""
}
