package extension

import (
	"fmt"
	"strings"
)

// Hook identifies an extension point by API group, version and name, for example
// hooks.example.io/v1alpha1/BeforeClusterUpgrade. Every registered extension serves exactly one
// hook, and a call names the hook it means so that a request is never sent to an extension that
// expects a different request type.
type Hook struct {
	Group   string
	Version string
	Name    string
}

// String returns "group/version/Name", the form used in logs, errors and metric labels.
func (h Hook) String() string {
	return h.Group + "/" + h.Version + "/" + h.Name
}

// APIVersion returns "group/version", the form a discovery response uses.
func (h Hook) APIVersion() string {
	return h.Group + "/" + h.Version
}

// path is the URL path segment a hook is served under: /group/version/lowercase-name.
// Lower-casing keeps paths conventional while hook names stay in their Go-type spelling.
func (h Hook) path() string {
	return "/" + h.Group + "/" + h.Version + "/" + strings.ToLower(h.Name)
}

// HandlerPath returns the path, relative to an extension server's base URL, at which that server
// serves handler for hook: /group/version/lowercase-hook/handler. Discover computes handler URLs
// this way, and extension servers use it to mount their handlers.
func HandlerPath(hook Hook, handler string) string {
	return hook.path() + "/" + handler
}

// ResponseStatus is the outcome an extension reports in its answer.
type ResponseStatus string

const (
	// StatusSuccess means the extension handled the request. A non-zero RetryAfterSeconds in a
	// successful answer asks the caller to try again later (a lifecycle hook "blocking").
	StatusSuccess ResponseStatus = "Success"
	// StatusFailure means the extension handled the request and reports that it failed; Message
	// says why. The failure policy never applies to such an answer: the extension spoke.
	StatusFailure ResponseStatus = "Failure"
)

// FailurePolicy decides what a calling error (the extension could not be reached, answered with
// a non-200 status or with a body that is not a valid response) means for the caller.
type FailurePolicy string

const (
	// FailurePolicyFail returns the calling error to the caller. It is the default.
	FailurePolicyFail FailurePolicy = "Fail"
	// FailurePolicyIgnore logs and counts the calling error and answers as if the extension had
	// returned Success with no message and no RetryAfter.
	FailurePolicyIgnore FailurePolicy = "Ignore"
)

// CommonResponse holds the fields every extension response carries. Response types embed it:
//
//	type BeforeUpgradeResponse struct {
//		extension.CommonResponse
//		Notes []string `json:"notes,omitempty"`
//	}
type CommonResponse struct {
	Status            ResponseStatus `json:"status"`
	Message           string         `json:"message,omitempty"`
	RetryAfterSeconds int32          `json:"retryAfterSeconds,omitempty"`
}

// Common returns r itself. Through embedding it makes a pointer to any response type a Response.
func (r *CommonResponse) Common() *CommonResponse { return r }

// validate rejects answers the caller cannot interpret. An unknown status is not treated as a
// Failure: an extension that cannot produce a valid answer is exactly what failurePolicy is for,
// so it is a calling error, and an Ignore extension that is broken stays ignored.
func (r *CommonResponse) validate() error {
	switch r.Status {
	case StatusSuccess, StatusFailure:
	case "":
		return fmt.Errorf("response has no status (want %q or %q)", StatusSuccess, StatusFailure)
	default:
		return fmt.Errorf("response has unknown status %q (want %q or %q)", r.Status, StatusSuccess, StatusFailure)
	}
	if r.RetryAfterSeconds < 0 {
		return fmt.Errorf("response has negative retryAfterSeconds %d", r.RetryAfterSeconds)
	}
	return nil
}

// Response is implemented by pointers to response types that embed CommonResponse.
type Response interface {
	Common() *CommonResponse
}

// ResponsePointer constrains the type parameters of Call and CallAll: PR is *R and a Response.
// Callers name only R, for example extension.Call[BeforeUpgradeResponse](...); PR is inferred.
type ResponsePointer[R any] interface {
	*R
	Response
}
