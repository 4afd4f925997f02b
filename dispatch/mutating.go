package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/admitkit/admit/engine"
)

// Audit annotation key prefixes the mutating phase writes, as the apiserver names them.
const (
	mutationAnnotationPrefix           = "mutation.webhook.admission.k8s.io/"
	patchAnnotationPrefix              = "patch.webhook.admission.k8s.io/"
	mutationFailedOpenAnnotationPrefix = "failed-open.mutation.webhook.admission.k8s.io/"
)

// reinvocation tracks which IfNeeded webhooks must run again, per A9 of the apiserver's design:
// a webhook's change schedules every earlier IfNeeded webhook, never itself; there is at most
// one extra round, and a webhook not called in the first round is never called in the second.
type reinvocation struct {
	previouslyInvoked map[string]bool
	reinvoke          map[string]bool
	lastOutput        json.RawMessage
}

func (r *reinvocation) requirePreviouslyInvoked() {
	for uid := range r.previouslyInvoked {
		r.reinvoke[uid] = true
	}
	r.previouslyInvoked = map[string]bool{}
}

// mutatingWebhooks is the mutating phase's webhooks step, kube-apiserver's
// MutatingAdmissionWebhook plugin.
type mutatingWebhooks struct{ w *Webhooks }

func (mutatingWebhooks) Name() string         { return "MutatingAdmissionWebhook" }
func (mutatingWebhooks) Type() engine.RowType { return engine.TypeMutatingWebhook }

// Admit calls the mutating webhooks in order. In the second round it calls those that must see
// the object again: the IfNeeded webhooks called before a change, and all of them when a step
// other than the webhooks changed the object since their last output.
func (m mutatingWebhooks) Admit(ctx context.Context, at *engine.Attributes) error {
	if len(m.w.mutating) == 0 {
		at.NotApplicable()
		return nil
	}
	a := m.w.admission(ctx, at)
	re := a.reinvoke
	round := at.Round()
	if round == 1 && !engine.SemanticallyEqual(re.lastOutput, a.object()) {
		// Something other than the webhooks changed the object in this round.
		re.requirePreviouslyInvoked()
	}
	err := a.mutatingRound(ctx, round, re)
	re.lastOutput = a.object()
	if err == nil && !at.Recorded() {
		// A round in which no webhook was reinvoked: the webhooks' rows are their own.
		at.NotApplicable()
	}
	return err
}

func (a *admission) mutatingRound(ctx context.Context, round int, re *reinvocation) error {
	for i, h := range a.d.mutating {
		if a.exemptReason != "" {
			if round == 0 {
				a.record(h, i, engine.Row{Outcome: engine.OutcomeSkipped, Reason: a.exemptReason})
			}
			continue
		}
		inv, skipped, err := a.shouldCall(ctx, h)
		if err != nil {
			a.record(h, i, engine.Row{Round: round, Outcome: engine.OutcomeError, Reason: err.Error()})
			return err
		}
		if inv == nil {
			if round == 0 {
				a.record(h, i, engine.Row{Outcome: engine.OutcomeSkipped, Reason: skipped.reason})
			}
			continue
		}
		if round == 1 && !re.reinvoke[h.uid] {
			continue
		}
		start := a.d.now()
		changed, p, err := a.callMutating(ctx, inv, round, i)
		if changed {
			re.requirePreviouslyInvoked()
			a.at.RequireReinvocation()
		}
		if h.reinvokable() {
			re.previouslyInvoked[h.uid] = true
		}
		key := fmt.Sprintf("%sround_%d_index_%d", mutationFailedOpenAnnotationPrefix, round, i)
		if err := a.conclude(finishedCall{hook: h, pos: i, round: round, failedOpenKey: key, elapsed: a.d.now().Sub(start), patch: p, err: err}); err != nil {
			return err
		}
		if err != nil && ctx.Err() != nil {
			// The webhook failed open because the request's own deadline passed: no point
			// calling the next webhooks.
			return engine.RequestTimeout()
		}
	}
	return nil
}

// callMutating calls one mutating webhook and applies its patch. It returns whether the object
// changed and the patch the webhook sent.
func (a *admission) callMutating(ctx context.Context, inv *invocation, round, index int) (changed bool, sent json.RawMessage, err error) {
	h := inv.hook
	defer func() {
		// Every invoked webhook gets a mutation annotation, also when it failed.
		value, _ := json.Marshal(struct {
			Configuration string `json:"configuration"`
			Webhook       string `json:"webhook"`
			Mutated       bool   `json:"mutated"`
		}{h.configuration, h.name, changed})
		a.addAnnotation(fmt.Sprintf("%sround_%d_index_%d", mutationAnnotationPrefix, round, index), string(value))
	}()

	resp, object, err := a.callWebhook(ctx, inv)
	if err != nil {
		return false, nil, err
	}
	if len(resp.Patch) == 0 {
		return false, nil, nil
	}
	ops, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		return false, nil, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("received undecodable patch in webhook response: %w", err),
			Status: apierrors.NewServiceUnavailable("error decoding patch in webhook response")}
	}
	if len(ops) == 0 {
		return false, nil, nil
	}
	sent = json.RawMessage(resp.Patch)
	if len(object) == 0 {
		return false, sent, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		patchType := ""
		if resp.PatchType != nil {
			patchType = string(*resp.PatchType)
		}
		return false, sent, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("unsupported patch type %q", patchType), Status: rejectionStatus(h.name, resp.Result)}
	}
	applied, err := applyPatch(object, a.at.ParsedObject(), ops)
	if err != nil {
		return false, sent, apierrors.NewInternalError(err)
	}
	patched := applied.object
	// The patched document is valid JSON (evanphx or patch.Apply encoded it); it must still be an
	// object, as the apiserver's decode into the object's type requires.
	if trimmed := bytes.TrimSpace(patched); len(trimmed) == 0 || trimmed[0] != '{' {
		return false, sent, apierrors.NewInternalError(fmt.Errorf("the patched object is not a JSON object"))
	}
	if a.d.codec != nil {
		// The apiserver decodes the patched object into the webhook's version of the kind and
		// defaults it: the next webhook sees that object.
		if patched, changed, err = a.d.codec.Patched(ctx, inv.kind, object, patched); err != nil {
			return false, sent, engine.AsStatusError(err)
		}
	} else {
		if typed, err := a.d.types.New(inv.kind); err == nil {
			if err := a.d.typeChecker.check(typed, patched, applied.ops); err != nil {
				return false, sent, apierrors.NewInternalError(err)
			}
		}
		changed = applied.changed
	}
	if inv.kind != a.req.Kind && a.d.converter != nil {
		if patched, err = a.d.converter.Convert(ctx, patched, a.req.Kind); err != nil {
			return false, sent, apierrors.NewInternalError(err)
		}
	}
	normalized, _ := json.Marshal(ops) // the apiserver records the decoded patch
	annotation, _ := json.Marshal(struct {
		Configuration string          `json:"configuration"`
		Webhook       string          `json:"webhook"`
		Patch         json.RawMessage `json:"patch"`
		PatchType     string          `json:"patchType"`
	}{h.configuration, h.name, normalized, string(admissionv1.PatchTypeJSONPatch)})
	a.addAnnotation(fmt.Sprintf("%sround_%d_index_%d", patchAnnotationPrefix, round, index), string(annotation))
	a.at.ReplaceObject(patched, changed)
	return changed, sent, nil
}
