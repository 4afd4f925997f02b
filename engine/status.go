package engine

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RequestTimeout is the apiserver's answer when the request's own deadline has passed.
func RequestTimeout() *apierrors.StatusError {
	return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
}

// StatusOf returns the API status an admission error stands for, as the client sees it: a
// status error's own, an internal error for anything else.
func StatusOf(err error) *metav1.Status {
	if se, ok := err.(apierrors.APIStatus); ok {
		s := se.Status()
		return &s
	}
	s := apierrors.NewInternalError(err).Status()
	return &s
}

// OutcomeOf is how a step that failed with err ends in its row: denied when the client receives
// a 4xx status (the step refused the write), an error otherwise (the step could not decide).
func OutcomeOf(err error) Outcome {
	if code := StatusOf(err).Code; code >= 400 && code < 500 {
		return OutcomeDenied
	}
	return OutcomeError
}

// AsStatusError keeps an API status error as it is and makes anything else an internal error,
// as the apiserver's handler does.
func AsStatusError(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewInternalError(err)
}

// Rejections is a step's answer when several of its parts rejected at once (validating webhooks
// run in parallel): the first is the request's answer, every one is in the result.
type Rejections []error

func (r Rejections) Error() string   { return r[0].Error() }
func (r Rejections) Unwrap() []error { return r }

// Status is the first rejection's status: what the client receives.
func (r Rejections) Status() metav1.Status { return *StatusOf(r[0]) }
