package webhook

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/patch"
)

// Outcome is what a webhook decided. Its values are the "outcome" label of the request metrics
// and the same words engine.Outcome uses for a webhook's call as the caller sees it; the zero
// Outcome (a zero Response) admits, as OutcomeAllowed.
type Outcome string

const (
	// OutcomeAllowed admits the request unchanged.
	OutcomeAllowed Outcome = "allowed"
	// OutcomePatched admits the request with the object changed by Response.Patch.
	OutcomePatched Outcome = "patched"
	// OutcomeDenied refuses the request: HTTP 200, allowed=false, failurePolicy does not apply.
	OutcomeDenied Outcome = "denied"
	// OutcomeError reports that the webhook could not decide: HTTP 500, failurePolicy decides.
	// engine.OutcomeError is the same word for the call as the caller sees it.
	OutcomeError Outcome = "error"
)

// String returns the metric label value of o.
func (o Outcome) String() string {
	if o == "" {
		return string(OutcomeAllowed)
	}
	return string(o)
}

// Response is a webhook's answer. Build it with Allowed, Patched, Denied, DeniedWithStatus or
// Errored, then add warnings and audit annotations.
type Response struct {
	Outcome Outcome
	// Status is the rejection (OutcomeDenied) or the failure (OutcomeError); nil otherwise.
	Status *metav1.Status
	// Patch is the change to the object (OutcomePatched).
	Patch patch.Patch
	// Warnings are returned to the API client on every outcome but Errored. They are sanitised
	// when sent: see sanitizeWarnings.
	Warnings []string
	// AuditAnnotations are recorded by the apiserver as "<webhook name>/<key>".
	AuditAnnotations map[string]string
}

// Allowed admits the request unchanged.
func Allowed() Response { return Response{Outcome: OutcomeAllowed} }

// Patched admits the request with p applied to the object. An empty patch is the same as Allowed.
func Patched(p patch.Patch) Response {
	if len(p) == 0 {
		return Allowed()
	}
	return Response{Outcome: OutcomePatched, Patch: p}
}

// Denied refuses the request with HTTP code 403 (Forbidden) and message. The API client sees
// `admission webhook "<name>" denied the request: <message>`.
func Denied(message string) Response {
	return DeniedWithStatus(metav1.Status{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: message})
}

// DeniedWithStatus refuses the request with a full status (code, reason, message, details and
// causes), which the apiserver passes to the client unchanged. A code below 400 becomes 403,
// because the apiserver would otherwise turn it into a 400 with no reason.
func DeniedWithStatus(status metav1.Status) Response {
	status.Status = metav1.StatusFailure
	if status.Code < http.StatusBadRequest {
		status.Code = http.StatusForbidden
		if status.Reason == "" {
			status.Reason = metav1.StatusReasonForbidden
		}
	}
	return Response{Outcome: OutcomeDenied, Status: &status}
}

// Errored reports that the webhook could not decide because of err. It is answered with HTTP 500
// and a metav1.Status body carrying err's message, so the caller's failurePolicy applies.
func Errored(err error) Response {
	message := "webhook failed without an error message"
	if err != nil {
		message = err.Error()
	}
	return Response{Outcome: OutcomeError, Status: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonInternalError,
		Message: message,
	}}
}

// WithWarnings returns r with warnings appended.
func (r Response) WithWarnings(warnings ...string) Response {
	if len(warnings) > 0 {
		r.Warnings = append(append([]string(nil), r.Warnings...), warnings...)
	}
	return r
}

// WithAuditAnnotation returns r with the audit annotation key=value added.
func (r Response) WithAuditAnnotation(key, value string) Response {
	annotations := make(map[string]string, len(r.AuditAnnotations)+1)
	for k, v := range r.AuditAnnotations {
		annotations[k] = v
	}
	annotations[key] = value
	r.AuditAnnotations = annotations
	return r
}

// sanitizeWarnings prepares warnings for the Warning header the apiserver turns them into. The
// apiserver silently drops a warning containing control characters or invalid UTF-8, so a
// multi-line warning is split into one warning per line, other control characters and invalid
// bytes are removed, and lines left empty are dropped.
func sanitizeWarnings(warnings []string) []string {
	if len(warnings) == 0 {
		return nil
	}
	out := make([]string, 0, len(warnings))
	for _, w := range warnings {
		if isCleanWarning(w) {
			out = append(out, w)
			continue
		}
		for _, line := range strings.FieldsFunc(w, func(r rune) bool { return r == '\n' || r == '\r' }) {
			line = strings.TrimSpace(strings.Map(func(r rune) rune {
				if r == '\t' {
					return ' '
				}
				if r == utf8.RuneError || unicode.IsControl(r) {
					return -1
				}
				return r
			}, strings.ToValidUTF8(line, "")))
			if line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}

func isCleanWarning(w string) bool {
	if w == "" || strings.TrimSpace(w) != w {
		return false
	}
	for _, r := range w {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return false
		}
	}
	return true
}
