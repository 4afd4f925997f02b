package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

const validatingFailedOpenAnnotationPrefix = "failed-open.validating.webhook.admission.k8s.io/"

// validate decides which validating webhooks apply, calls them all in parallel and returns every
// error in webhook order. The apiserver returns whichever error arrives first; admit returns the
// lowest-index one (deterministic) and keeps the others in the Result.
func (a *admission) validate(ctx context.Context) []error {
	var matched []*invocation
	var positions []int
	for pos, h := range a.d.validating {
		inv, skipped, err := a.shouldCall(ctx, h)
		if err != nil {
			a.record(h, pos, 0, OutcomeError, err.Error(), nil, 0)
			return []error{err}
		}
		if inv == nil {
			a.record(h, pos, 0, OutcomeSkipped, skipped.reason, nil, 0)
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
	op := a.req.Operation
	start := a.d.now()
	defer func() {
		if v := recover(); v != nil {
			if h.ignoresFailures() {
				a.d.metrics.observeFailOpen(h)
				a.addAnnotation(fmt.Sprintf("%sround_0_index_%d", validatingFailedOpenAnnotationPrefix, index), h.name)
				a.record(h, pos, 0, OutcomeFailedOpen, fmt.Sprintf("panic: %v", v), nil, a.d.now().Sub(start))
				result = nil
				return
			}
			result = apierrors.NewInternalError(fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", h.name, v))
			a.record(h, pos, 0, OutcomeError, result.Error(), nil, a.d.now().Sub(start))
		}
	}()

	err := a.callValidatingOnce(ctx, inv)
	elapsed := a.d.now().Sub(start)
	var callErr *CallingError
	var rejection *Rejection
	switch {
	case err == nil:
		a.d.metrics.observeCall(h, op, elapsed, false, 200)
		a.record(h, pos, 0, OutcomeAllowed, "", nil, elapsed)
		return nil
	case errors.As(err, &callErr):
		ignore := h.ignoresFailures()
		if !ignore && !isCanceled(callErr) {
			a.d.metrics.observeRejection(h, op, rejectionCallingError, int(callErr.Status.ErrStatus.Code))
		}
		a.d.metrics.observeCall(h, op, elapsed, !ignore, int(callErr.Status.ErrStatus.Code))
		if ignore {
			if !isCanceled(callErr) {
				a.d.metrics.observeFailOpen(h)
				a.addAnnotation(fmt.Sprintf("%sround_0_index_%d", validatingFailedOpenAnnotationPrefix, index), h.name)
			}
			a.d.logger.Warn("calling webhook failed; failing open", "webhook", h.name, "error", callErr.Error())
			a.record(h, pos, 0, OutcomeFailedOpen, callErr.Error(), nil, elapsed)
			return nil
		}
		a.record(h, pos, 0, OutcomeError, callErr.Error(), nil, elapsed)
		return apierrors.NewInternalError(callErr)
	case errors.As(err, &rejection):
		a.d.metrics.observeRejection(h, op, rejectionNoError, int(rejection.Status.ErrStatus.Code))
		a.d.metrics.observeCall(h, op, elapsed, true, int(rejection.Status.ErrStatus.Code))
		a.record(h, pos, 0, OutcomeDenied, rejection.Status.ErrStatus.Message, nil, elapsed)
		return rejection.Status
	default:
		a.d.metrics.observeRejection(h, op, rejectionInternalError, 0)
		a.d.metrics.observeCall(h, op, elapsed, true, 0)
		a.record(h, pos, 0, OutcomeError, err.Error(), nil, elapsed)
		return err
	}
}

func (a *admission) callValidatingOnce(ctx context.Context, inv *invocation) error {
	h := inv.hook
	object, err := a.objectAs(inv.kind)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	old, err := a.oldObjectAs(inv.kind)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	res, err := a.call(ctx, inv, object, old)
	if err != nil {
		return err
	}
	resp := res.response
	for k, v := range resp.AuditAnnotations {
		a.addAnnotation(h.name+"/"+k, v)
	}
	for _, w := range resp.Warnings {
		a.warnings.add(w)
	}
	if !resp.Allowed {
		return &Rejection{WebhookName: h.name, Status: rejectionStatus(h.name, resp.Result)}
	}
	return nil
}
