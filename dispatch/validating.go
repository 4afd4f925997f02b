package dispatch

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

const validatingFailedOpenAnnotationPrefix = "failed-open.validating.webhook.admission.k8s.io/"

// validate runs the validating phase: the plugins before the webhooks, the webhooks, the plugins
// after them, stopping at the first step that rejects. It returns every rejection of that step.
func (a *admission) validate(ctx context.Context) []error {
	for i, p := range a.d.validatingPlugins {
		order := rowOrder{phase: phaseValidating, step: stepPluginsBefore, pos: i}
		if err := a.runPlugin(p, order, func(at *Attributes) error { return p.Validate(ctx, at) }); err != nil {
			return []error{err}
		}
	}
	if errs := a.validateWebhooks(ctx); len(errs) > 0 {
		return errs
	}
	for i, p := range a.d.pluginsAfter {
		order := rowOrder{phase: phaseValidating, step: stepPluginsAfter, pos: i}
		if err := a.runPlugin(p, order, func(at *Attributes) error { return p.Validate(ctx, at) }); err != nil {
			return []error{err}
		}
	}
	return nil
}

// validateWebhooks decides which validating webhooks apply, calls them all in parallel and
// returns every error in webhook order. The apiserver returns whichever error arrives first;
// admit returns the lowest-index one (deterministic) and keeps the others in the Result.
func (a *admission) validateWebhooks(ctx context.Context) []error {
	var matched []*invocation
	var positions []int
	for pos, h := range a.d.validating {
		if a.exemptReason != "" {
			a.record(h, pos, WebhookResult{Outcome: OutcomeSkipped, Reason: a.exemptReason})
			continue
		}
		inv, skipped, err := a.shouldCall(ctx, h)
		if err != nil {
			a.record(h, pos, WebhookResult{Outcome: OutcomeError, Reason: err.Error()})
			return []error{err}
		}
		if inv == nil {
			a.record(h, pos, WebhookResult{Outcome: OutcomeSkipped, Reason: skipped.reason})
			continue
		}
		matched = append(matched, inv)
		positions = append(positions, pos)
	}
	if len(matched) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return []error{requestTimeout()}
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
				a.record(h, pos, WebhookResult{Outcome: OutcomeFailedOpen, Reason: fmt.Sprintf("panic: %v", v), Duration: elapsed})
				result = nil
				return
			}
			result = apierrors.NewInternalError(fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", h.name, v))
			a.record(h, pos, WebhookResult{Outcome: OutcomeError, Reason: result.Error(), Duration: elapsed})
		}
	}()
	_, _, err := a.callWebhook(ctx, inv)
	return a.conclude(finishedCall{hook: h, pos: pos, failedOpenKey: failedOpenKey, elapsed: a.d.now().Sub(start), err: err})
}
