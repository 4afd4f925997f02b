package extension

import (
	"fmt"
	"strings"
)

// The error types below are named XxxError, as Go names error types. CallingError is what the
// Runtime SDK design note and kube-apiserver call ErrCallingWebhook (a call that gave no valid
// answer), FailureError its "Failure status" error: the names users will search for.

// CallingErrorReason classifies an CallingError; it is also the "reason" metric label.
type CallingErrorReason string

const (
	// ReasonResolve: the service reference could not be resolved to a URL.
	ReasonResolve CallingErrorReason = "resolve"
	// ReasonTransport: the request could not be sent or the answer not received.
	ReasonTransport CallingErrorReason = "transport"
	// ReasonTimeout: the extension did not answer within its timeout.
	ReasonTimeout CallingErrorReason = "timeout"
	// ReasonCallerContext: the caller's context ended (deadline or cancellation) first. The
	// failure policy does not apply: Ignore covers an extension's failures, not the caller
	// giving up, and answering Success to a caller that has gone would be a lie.
	ReasonCallerContext CallingErrorReason = "caller_context"
	// ReasonHTTPStatus: the extension answered with a status other than 200 (redirects included:
	// they are never followed).
	ReasonHTTPStatus CallingErrorReason = "http_status"
	// ReasonResponseTooLarge: the answer exceeded Options.MaxResponseBytes.
	ReasonResponseTooLarge CallingErrorReason = "response_too_large"
	// ReasonDecode: the body is not a JSON response, or its status or retryAfterSeconds is invalid.
	ReasonDecode CallingErrorReason = "decode"
)

// CallingError reports that an extension could not give a valid answer: transport error,
// timeout, non-200 answer or undecodable body. With failurePolicy Ignore, Call swallows it
// (unless Reason is ReasonCallerContext).
type CallingError struct {
	Extension string
	Hook      Hook
	Reason    CallingErrorReason
	// StatusCode is the HTTP status of the answer when Reason is ReasonHTTPStatus.
	StatusCode int
	// Err is the cause.
	Err error
}

func (e *CallingError) Error() string {
	return fmt.Sprintf("calling extension %q: %v", e.Extension, e.Err)
}

func (e *CallingError) Unwrap() error { return e.Err }

// FailureError reports that an extension answered with status Failure.
type FailureError struct {
	Extension         string
	Hook              Hook
	Message           string
	RetryAfterSeconds int32
}

func (e *FailureError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("extension %q answered Failure with no message", e.Extension)
	}
	return fmt.Sprintf("extension %q answered Failure: %s", e.Extension, e.Message)
}

// NotSelectedError is returned by Call when the extension's namespaceSelector does not select
// the namespace of the request: the extension was not called.
type NotSelectedError struct {
	Extension string
	Namespace string
}

func (e *NotSelectedError) Error() string {
	return fmt.Sprintf("extension %q not called: its namespaceSelector does not select namespace %q", e.Extension, e.Namespace)
}

// CallAllError is the error of CallAll: either every CallingError, or (when there is none)
// every FailureError, in extension-name order. errors.As finds each of them.
type CallAllError struct {
	Hook   Hook
	Errors []error
}

func (e *CallAllError) Error() string {
	msgs := make([]string, len(e.Errors))
	for i, err := range e.Errors {
		msgs[i] = err.Error()
	}
	return fmt.Sprintf("calling extensions for hook %s: %s", e.Hook, strings.Join(msgs, "; "))
}

func (e *CallAllError) Unwrap() []error { return e.Errors }
