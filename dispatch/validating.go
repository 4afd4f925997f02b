package dispatch

import (
	"context"
	"fmt"
	"sync"

	"github.com/admitkit/admit/engine"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

const validatingFailedOpenAnnotationPrefix = "failed-open.validating.webhook.admission.k8s.io/"

// validatingWebhooks is the validating phase's webhooks step, kube-apiserver's
// ValidatingAdmissionWebhook plugin.
type validatingWebhooks struct{ w *Webhooks }

func (validatingWebhooks) Name() string         { return "ValidatingAdmissionWebhook" }
func (validatingWebhooks) Type() engine.RowType { return engine.TypeValidatingWebhook }

// Validate calls every matching validating webhook in parallel. When several reject, the
// request gets the lowest-index rejection and the result lists all (engine.Rejections).
func (v validatingWebhooks) Validate(ctx context.Context, at *engine.Attributes) error {
	if len(v.w.validating) == 0 {
		at.NotApplicable()
		return nil
	}
	errs := v.w.admission(ctx, at).validateWebhooks(ctx)
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return engine.Rejections(errs)
}

// validateWebhooks decides which validating webhooks apply, calls them all in parallel and
// returns every error in webhook order. The apiserver returns whichever error arrives first;
// admit returns the lowest-index one (deterministic) and keeps the others in the result.
func (a *admission) validateWebhooks(ctx context.Context) []error {
	var matched []*invocation
	var positions []int
	for pos, h := range a.d.validating {
		if a.exemptReason != "" {
			a.record(h, pos, engine.Row{Outcome: engine.OutcomeSkipped, Reason: a.exemptReason})
			continue
		}
		inv, skipped, err := a.shouldCall(ctx, h)
		if err != nil {
			a.record(h, pos, engine.Row{Outcome: engine.OutcomeError, Reason: err.Error()})
			return []error{err}
		}
		if inv == nil {
			a.record(h, pos, engine.Row{Outcome: engine.OutcomeSkipped, Reason: skipped.reason})
			continue
		}
		matched = append(matched, inv)
		positions = append(positions, pos)
	}
	if len(matched) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return []error{engine.RequestTimeout()}
	}

	errs := make([]error, len(matched))
	var wg sync.WaitGroup
	for i, inv := range matched {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = a.callValidating(ctx, inv, i, positions[i])
		}()
	}
	wg.Wait()

	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// callValidating calls one validating webhook; index is its position among the called ones,
// which names its fail-open annotation. A panic is contained like the apiserver contains it.
func (a *admission) callValidating(ctx context.Context, inv *invocation, index, pos int) (result error) {
	h := inv.hook
	start := a.d.now()
	failedOpenKey := fmt.Sprintf("%sround_0_index_%d", validatingFailedOpenAnnotationPrefix, index)
	defer func() {
		if v := recover(); v != nil {
			elapsed := a.d.now().Sub(start)
			if h.ignoresFailures() {
				a.d.metrics.observeFailOpen(h)
				a.addAnnotation(failedOpenKey, h.name)
				a.record(h, pos, engine.Row{Outcome: engine.OutcomeFailedOpen, Reason: fmt.Sprintf("panic: %v", v), Duration: elapsed})
				result = nil
				return
			}
			result = apierrors.NewInternalError(fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", h.name, v))
			a.record(h, pos, engine.Row{Outcome: engine.OutcomeError, Reason: result.Error(), Duration: elapsed})
		}
	}()
	_, _, err := a.callWebhook(ctx, inv)
	return a.conclude(finishedCall{hook: h, pos: pos, failedOpenKey: failedOpenKey, elapsed: a.d.now().Sub(start), err: err})
}
