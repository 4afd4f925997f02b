package webhooktest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// answer writes what c's behaviour answers to review; n numbers the call among those to its path.
func (c *call) answer(w http.ResponseWriter, r *http.Request, review *admissionv1.AdmissionReview, n int) {
	if c.answerWithoutResponse(w, r, review, n) {
		return
	}
	answer := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: c.response(review)}
	switch c.behaviour {
	case "allowTextPlain":
		body, _ := json.Marshal(answer) // an AdmissionReview always marshals
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(body)
	case "allowYAML":
		body, _ := yaml.Marshal(answer)
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(body)
	default:
		writeJSON(w, http.StatusOK, answer)
	}
}

// answerWithoutResponse writes the answers that hold no AdmissionResponse — errors, bodies a
// caller cannot decode, a review without a response, a busy first call — and reports whether it
// wrote one. A sleep waits here, before its response is made.
func (c *call) answerWithoutResponse(w http.ResponseWriter, r *http.Request, review *admissionv1.AdmissionReview, n int) bool {
	switch c.behaviour {
	case "internalError":
		http.Error(w, InternalErrorText, http.StatusInternalServerError)
		return true
	case "statusError", "statusErrorTextPlain":
		status := metav1.Status{
			TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   metav1.StatusFailure, Message: StatusErrorMessage, Reason: metav1.StatusReasonInternalError,
			Code: http.StatusInternalServerError,
		}
		if c.behaviour == "statusError" {
			writeJSON(w, http.StatusInternalServerError, status)
			return true
		}
		// What http.Error does with a JSON text: the right body with the wrong Content-Type.
		body, _ := json.Marshal(status) // a Status always marshals
		http.Error(w, string(body), http.StatusInternalServerError)
		return true
	case "invalidJSON":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("invalid json"))
		return true
	case "emptyBody":
		w.WriteHeader(http.StatusOK)
		return true
	case "absentResponse":
		writeJSON(w, http.StatusOK, admissionv1.AdmissionReview{TypeMeta: review.TypeMeta})
		return true
	case "busyOnce":
		if n == 1 {
			// client-go retries a 5xx with an integer Retry-After: the caller should call again.
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
	case "sleep":
		d, _ := time.ParseDuration(c.args[0]) // checked by parsePath
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-r.Context().Done():
		case <-timer.C:
		}
	}
	return false
}

// response is the AdmissionResponse c's behaviour answers review with: allowed unless it denies,
// its patch, and the path's parameters.
func (c *call) response(review *admissionv1.AdmissionReview) *admissionv1.AdmissionResponse {
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	jsonPatch := admissionv1.PatchTypeJSONPatch
	setPatch := func(p string) { resp.Patch, resp.PatchType = []byte(p), &jsonPatch }
	switch c.behaviour {
	case "deny":
		resp.Allowed = false
	case "wrongUID":
		resp.UID = types.UID(WrongUID)
	case "setLabel":
		setPatch(setLabelPatch(review.Request.Object.Raw, c.args[0], c.args[1]))
	case "removeLabel":
		setPatch(patchJSON(patchOp{Op: "remove", Path: "/metadata/labels/" + escapePointer(c.args[0])}))
	case "patch":
		p, _ := base64.RawURLEncoding.DecodeString(c.args[0]) // checked by parsePath
		setPatch(string(p))
	case "undecodablePatch":
		setPatch(UndecodablePatch)
	case "missingPathPatch":
		setPatch(MissingPathPatch)
	case "emptyPatch":
		setPatch(`[]`)
	case "unsupportedPatchType":
		// A well-formed JSON patch, so that only its type is wrong.
		mergePatch := admissionv1.PatchType("MergePatch")
		resp.Patch, resp.PatchType = []byte(setLabelPatch(review.Request.Object.Raw, "webhooktest", "patched")), &mergePatch
	case "patchWithoutType":
		resp.Patch = []byte(setLabelPatch(review.Request.Object.Raw, "webhooktest", "patched"))
	}
	c.applyOptions(resp)
	return resp
}

// applyOptions puts the path's parameters into the response.
func (c *call) applyOptions(resp *admissionv1.AdmissionResponse) {
	status := func() *metav1.Status {
		if resp.Result == nil {
			resp.Result = &metav1.Status{}
		}
		return resp.Result
	}
	for _, o := range c.options {
		switch o.key {
		case "code":
			code, _ := strconv.Atoi(o.value) // checked by parsePath
			status().Code = int32(code)
		case "reason":
			status().Reason = metav1.StatusReason(o.value)
		case "message":
			status().Message = o.value
		case "warning":
			resp.Warnings = append(resp.Warnings, o.value)
		case "annotation":
			key, value, _ := strings.Cut(o.value, "=")
			if resp.AuditAnnotations == nil {
				resp.AuditAnnotations = map[string]string{}
			}
			resp.AuditAnnotations[key] = value
		}
	}
}

type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

func patchJSON(ops ...patchOp) string {
	b, _ := json.Marshal(ops) // strings and maps of strings always marshal
	return string(b)
}

// setLabelPatch adds or replaces one label. A JSON patch cannot add below a missing map, so an
// object without labels gets the whole map; an absent object (DELETE) gets the plain add, which
// is what a careless webhook would send.
func setLabelPatch(object []byte, key, value string) string {
	var meta struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if len(object) > 0 && string(object) != "null" && json.Unmarshal(object, &meta) == nil && meta.Metadata.Labels == nil {
		return patchJSON(patchOp{Op: "add", Path: "/metadata/labels", Value: map[string]string{key: value}})
	}
	return patchJSON(patchOp{Op: "add", Path: "/metadata/labels/" + escapePointer(key), Value: value})
}

// escapePointer escapes a map key as one JSON pointer token (RFC 6901).
func escapePointer(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "webhooktest: encoding the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
