package dispatch

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CallingError means no usable answer came from a webhook: it could not be reached, answered
// with an error, or answered with something invalid. It is the only error failurePolicy applies
// to. Its text is the apiserver's: `failed calling webhook "<name>": <reason>`.
type CallingError struct {
	WebhookName string
	Reason      error
	// Status classifies the failure for metrics (the apiserver's "code" label): 503 when the
	// webhook could not be reached or answered invalidly, the webhook's own status otherwise.
	Status *apierrors.StatusError
}

func (e *CallingError) Error() string {
	if e.Reason != nil {
		return fmt.Sprintf("failed calling webhook %q: %v", e.WebhookName, e.Reason)
	}
	return fmt.Sprintf("failed calling webhook %q; no further details available", e.WebhookName)
}

func (e *CallingError) Unwrap() error { return e.Reason }

// Rejection means a webhook answered allowed=false. Status is what the client receives.
type Rejection struct {
	WebhookName string
	Status      *apierrors.StatusError
}

func (e *Rejection) Error() string { return e.Status.Error() }

// rejectionStatus renders a webhook's denial as the apiserver does: a code below 400 becomes 400,
// the status becomes Failure, and the message names the webhook.
func rejectionStatus(webhookName string, result *metav1.Status) *apierrors.StatusError {
	status := metav1.Status{Status: metav1.StatusFailure}
	if result != nil {
		status = *result.DeepCopy()
	}
	if status.Code < http.StatusBadRequest {
		status.Code = http.StatusBadRequest
	}
	if status.Status == "" || status.Status == metav1.StatusSuccess {
		status.Status = metav1.StatusFailure
	}
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", webhookName)
	switch {
	case status.Message != "":
		status.Message = deniedBy + ": " + status.Message
	case status.Reason != "":
		status.Message = deniedBy + ": " + string(status.Reason)
	default:
		status.Message = deniedBy + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: status}
}

// dryRunUnsupported is the apiserver's answer for a dry-run request to a webhook with side effects.
func dryRunUnsupported(webhookName string) *apierrors.StatusError {
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", webhookName))
}

// requestTimeout is the apiserver's answer when the request's own deadline has passed.
func requestTimeout() *apierrors.StatusError {
	return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
}

// statusOf returns the API status an admission error stands for, as the client sees it.
func statusOf(err error) *metav1.Status {
	if se, ok := err.(apierrors.APIStatus); ok {
		s := se.Status()
		return &s
	}
	s := apierrors.NewInternalError(err).Status()
	return &s
}

// asStatusError keeps an API status error as it is and makes anything else an internal error,
// as the apiserver's handler does.
func asStatusError(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewInternalError(err)
}
