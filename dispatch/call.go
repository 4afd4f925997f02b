package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admitkit/admit/internal/callout"
)

// callResult is what one call produced, for the result and the metrics.
type callResult struct {
	response *admissionv1.AdmissionResponse
	httpCode int
}

// call sends one AdmissionReview to h for inv and returns the verified response. Errors are
// *CallingError (failurePolicy applies) or API statuses that fail the request regardless.
func (a *admission) call(ctx context.Context, inv *invocation, object, old json.RawMessage) (*callResult, error) {
	h := inv.hook
	if a.req.DryRun {
		if h.sideEffects == nil {
			return nil, &CallingError{WebhookName: h.name, Reason: errors.New("Webhook SideEffects is nil"), Status: apierrors.NewBadRequest("Webhook SideEffects is nil")}
		}
		if *h.sideEffects != admissionregistrationv1.SideEffectClassNone && *h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
			return nil, dryRunUnsupported(h.name)
		}
	}
	version := reviewVersion(h.admissionReviewVersions)
	if version == "" {
		return nil, &CallingError{WebhookName: h.name,
			Reason: errors.New("could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)"),
			Status: apierrors.NewBadRequest("error creating admission objects")}
	}
	client, target, err := h.client(a.d.clients)
	if err != nil {
		return nil, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("could not get REST client: %w", err), Status: apierrors.NewInternalError(err)}
	}
	uid := types.UID(a.d.newUID())
	body, err := encodeReview(version, a.reviewRequest(inv, uid, nil, nil), object, old)
	if err != nil {
		return nil, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("could not create admission objects: %w", err), Status: apierrors.NewBadRequest("error creating admission objects")}
	}

	if h.timeoutSeconds != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*h.timeoutSeconds)*time.Second)
		defer cancel()
	}
	u := target
	if deadline, ok := ctx.Deadline(); ok {
		if left := time.Until(deadline); left > 0 {
			u = callout.WithTimeout(target, left)
		}
	}

	resp, code, err := post(ctx, client, u.String(), body, version, a.d.answers)
	if err != nil {
		var status *apierrors.StatusError
		if !errors.As(err, &status) {
			status = apierrors.NewServiceUnavailable("error calling webhook")
		}
		return &callResult{httpCode: code}, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("failed to call webhook: %w", err), Status: status}
	}
	if err := verifyResponse(uid, version, h.mutating, resp); err != nil {
		return &callResult{httpCode: code}, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("received invalid webhook response: %w", err),
			Status: apierrors.NewServiceUnavailable("error validating webhook response")}
	}
	return &callResult{response: resp.Response, httpCode: code}, nil
}
