package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/admitkit/admit/engine"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// callWebhook is what both phases do to call one webhook: the objects in the webhook's version,
// the call, and the answer's audit annotations and warnings, which count whatever the decision.
// It returns the allowed response and the object the webhook saw, a *Rejection when the webhook
// denied, or the error that failed the call.
func (a *admission) callWebhook(ctx context.Context, inv *invocation) (*admissionv1.AdmissionResponse, json.RawMessage, error) {
	h := inv.hook
	object, old, err := a.versioned(inv)
	if err != nil {
		return nil, nil, err
	}
	res, err := a.call(ctx, inv, object, old)
	if err != nil {
		return nil, nil, err
	}
	resp := res.response
	for k, v := range resp.AuditAnnotations {
		a.addAnnotation(h.name+"/"+k, v)
	}
	for _, w := range resp.Warnings {
		a.at.AddWarning(w)
	}
	if !resp.Allowed {
		return nil, nil, &Rejection{WebhookName: h.name, Status: rejectionStatus(h.name, resp.Result)}
	}
	return resp, object, nil
}

// finishedCall is how one webhook call ended.
type finishedCall struct {
	hook  *hook
	pos   int // the webhook's position in its phase
	round int
	// failedOpenKey is the audit annotation that records the webhook failing open.
	failedOpenKey string
	elapsed       time.Duration
	// patch is what a mutating webhook sent, if anything.
	patch json.RawMessage
	err   error
}

// conclude records a finished call in the result and the metrics, and applies the failure
// policy: it returns the error that fails the request, or nil when the request goes on. Only
// calling errors are subject to failurePolicy; denials and internal errors always fail.
func (a *admission) conclude(c finishedCall) error {
	h, op := c.hook, a.req.Operation
	result := engine.Row{Round: c.round, Duration: c.elapsed}
	var callErr *CallingError
	var rejection *Rejection
	switch {
	case c.err == nil:
		a.d.metrics.observeCall(h, op, c.elapsed, false, 200)
		result.Outcome, result.Patch = engine.OutcomeAllowed, c.patch
		if c.patch != nil {
			result.Outcome = engine.OutcomePatched
		}
		a.record(h, c.pos, result)
		return nil
	case errors.As(c.err, &callErr):
		ignore := h.ignoresFailures()
		code := int(callErr.Status.ErrStatus.Code)
		if !ignore && !isCanceled(callErr) {
			a.d.metrics.observeRejection(h, op, rejectionCallingError, code)
		}
		a.d.metrics.observeCall(h, op, c.elapsed, !ignore, code)
		result.Reason = callErr.Error()
		if !ignore {
			result.Outcome = engine.OutcomeError
			a.record(h, c.pos, result)
			return apierrors.NewInternalError(callErr)
		}
		if !isCanceled(callErr) {
			a.d.metrics.observeFailOpen(h)
			a.addAnnotation(c.failedOpenKey, h.name)
		}
		a.d.logger.Warn("calling webhook failed; failing open", "webhook", h.name, "error", callErr.Error())
		result.Outcome = engine.OutcomeFailedOpen
		a.record(h, c.pos, result)
		return nil
	case errors.As(c.err, &rejection):
		code := int(rejection.Status.ErrStatus.Code)
		a.d.metrics.observeRejection(h, op, rejectionNoError, code)
		a.d.metrics.observeCall(h, op, c.elapsed, true, code)
		result.Outcome, result.Reason = engine.OutcomeDenied, rejection.Status.ErrStatus.Message
		a.record(h, c.pos, result)
		return rejection.Status
	default:
		a.d.metrics.observeRejection(h, op, rejectionInternalError, 0)
		a.d.metrics.observeCall(h, op, c.elapsed, true, 0)
		result.Outcome, result.Reason, result.Patch = engine.OutcomeError, c.err.Error(), c.patch
		a.record(h, c.pos, result)
		return c.err
	}
}
