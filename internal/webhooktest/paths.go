package webhooktest

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Paths of the behaviours that take no argument.
const (
	PathAllow          = "/allow"
	PathAllowTextPlain = "/allowTextPlain"
	PathAllowYAML      = "/allowYAML"
	PathDeny           = "/deny"
	PathBusyOnce       = "/busyOnce"
	PathInternalError  = "/internalError"
	PathStatusError    = "/statusError"
	// PathStatusErrorTextPlain is PathStatusError labelled text/plain, as http.Error sends it.
	PathStatusErrorTextPlain = "/statusErrorTextPlain"
	PathInvalidJSON          = "/invalidJSON"
	PathEmptyBody            = "/emptyBody"
	PathAbsentResponse       = "/absentResponse"
	PathWrongUID             = "/wrongUID"
	PathUndecodablePatch     = "/undecodablePatch"
	PathMissingPathPatch     = "/missingPathPatch"
	PathEmptyPatch           = "/emptyPatch"
	PathPatchWithoutType     = "/patchWithoutType"
	// PathUnsupportedPatchType answers a JSON patch labelled MergePatch, a type admission does not take.
	PathUnsupportedPatchType = "/unsupportedPatchType"
)

// Texts the fixed behaviours answer with, for tests that assert on them.
const (
	// InternalErrorText is the text/plain body of PathInternalError.
	InternalErrorText = "webhook internal server error"
	// StatusErrorMessage is the message of the metav1.Status body of PathStatusError.
	StatusErrorMessage = "webhook status error"
	// WrongUID is the uid PathWrongUID answers with.
	WrongUID = "00000000-0000-0000-0000-000000000000"
	// UndecodablePatch is the patch of PathUndecodablePatch.
	UndecodablePatch = `[{`
	// MissingPathPatch is the patch of PathMissingPathPatch: its parent path exists in no object.
	MissingPathPatch = `[{"op":"add","path":"/webhooktest/missing/path","value":"x"}]`
)

// Option is a key=value parameter of a path: the response's status, warnings and audit annotations.
type Option struct{ key, value string }

// Code sets the code of the response's status.
func Code(code int32) Option { return Option{"code", strconv.Itoa(int(code))} }

// Reason sets the reason of the response's status.
func Reason(reason metav1.StatusReason) Option { return Option{"reason", string(reason)} }

// Message sets the message of the response's status.
func Message(message string) Option { return Option{"message", message} }

// Warning adds a warning to the response.
func Warning(text string) Option { return Option{"warning", text} }

// AuditAnnotation adds an audit annotation to the response. The key cannot hold "=" or "/".
func AuditAnnotation(key, value string) Option { return Option{"annotation", key + "=" + value} }

// Allow is the path of a webhook that allows.
func Allow(opts ...Option) string { return build([]string{"allow"}, opts) }

// Deny is the path of a webhook that denies; without Code, Reason or Message its response has
// no status at all.
func Deny(opts ...Option) string { return build([]string{"deny"}, opts) }

// SetLabel is the path of a webhook that sets label key to value.
func SetLabel(key, value string, opts ...Option) string {
	return build([]string{"setLabel", key, value}, opts)
}

// RemoveLabel is the path of a webhook that removes label key; the patch fails to apply when the
// object does not have it.
func RemoveLabel(key string, opts ...Option) string {
	return build([]string{"removeLabel", key}, opts)
}

// Patch is the path of a webhook that answers with jsonPatch as its JSON patch, whatever the
// object; the patch travels in the path base64url-encoded, so any text fits.
func Patch(jsonPatch string, opts ...Option) string {
	return build([]string{"patch", base64.RawURLEncoding.EncodeToString([]byte(jsonPatch))}, opts)
}

// Sleep is the path of a webhook that waits for d, or until the caller gives up, then allows.
func Sleep(d time.Duration, opts ...Option) string {
	return build([]string{"sleep", d.String()}, opts)
}

func build(segments []string, opts []Option) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteString("/" + url.PathEscape(s))
	}
	for _, o := range opts {
		b.WriteString("/" + url.PathEscape(o.key+"="+o.value))
	}
	return b.String()
}

// canonical turns a built or received path into the key calls are counted under: unescaped, so
// that the caller's escaping does not matter.
func canonical(path string) string {
	if p, err := url.PathUnescape(path); err == nil {
		return p
	}
	return path
}
