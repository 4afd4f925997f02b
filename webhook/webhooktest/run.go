package webhooktest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/patch"
	"github.com/admitkit/admit/webhook"
)

// Result is an admission's answer as a test reads it: one handler's (Run, RunRegistry), or a
// whole Registry's as kube-apiserver combines its webhooks' answers (Admit).
type Result struct {
	// Allowed is the decision; false for a denial and for a failure.
	Allowed bool
	// Errored means the request failed rather than was denied: the handler answered HTTP 500
	// (Run), or a webhook's call failed under failurePolicy Fail (Admit). Status says why.
	Errored bool
	// Status is the denial's or the failure's status, as the API client receives it.
	Status   *metav1.Status
	Warnings []string
	// AuditAnnotations are the handler's own keys (Run); "<webhook name>/<key>", as the
	// apiserver records them (Admit).
	AuditAnnotations map[string]string
	// Patch is the handler's JSON patch (Run), or the patch from the request's object to Object
	// (Admit); nil when there is none. It prints as JSON.
	Patch patch.Patch
	// Object is the request's object with the patches applied (the object as sent when there is
	// none); nil for a DELETE.
	Object json.RawMessage
	// Rows are the outcome of each webhook, in the order kube-apiserver called them (Admit).
	Rows []engine.Row
	// Rejections are the statuses of every validating webhook that rejected, when several did;
	// Status is the first of them (Admit).
	Rejections []metav1.Status
}

// resultOf is the Result of an admission the dispatcher ran.
func resultOf(r *engine.Result) *Result {
	out := &Result{
		Allowed: r.Allowed, Errored: r.Failed(), Status: r.Status, Warnings: r.Warnings, AuditAnnotations: r.AuditAnnotations,
		Object: r.Object, Rows: r.Rows, Rejections: r.Rejections,
	}
	if len(r.Patch) > 0 {
		out.Patch = r.Patch
	}
	return out
}

// Decode reads the object after the patch into obj.
func (r *Result) Decode(t T, obj any) {
	t.Helper()
	if len(r.Object) == 0 {
		t.Fatalf("webhooktest: the result has no object (a DELETE?)")
	}
	if err := json.Unmarshal(r.Object, obj); err != nil {
		t.Fatalf("webhooktest: decoding the patched object into %T: %v", obj, err)
	}
}

// Run sends req to h through webhook.NewHTTPHandler, as admit serve would, and returns the
// answer. An answer that kube-apiserver could not read fails the test.
func Run(t T, h webhook.Handler, req *webhook.Request) *Result {
	t.Helper()
	return runAt(t, webhook.NewHTTPHandler("webhooktest", h, webhook.HTTPOptions{PropagatePanics: true}), "/", req)
}

// RunRegistry sends req to the webhook of reg registered at path (webhook.Path gives the
// default ones).
func RunRegistry(t T, reg *webhook.Registry, path string, req *webhook.Request) *Result {
	t.Helper()
	return runAt(t, reg, path, req)
}

func runAt(t T, h http.Handler, path string, req *webhook.Request) *Result {
	t.Helper()
	version := req.ReviewVersion
	if version == "" {
		version = webhook.ReviewV1
	}
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/" + version, Kind: "AdmissionReview"},
		Request:  &req.AdmissionRequest,
	}
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatalf("webhooktest: encoding the AdmissionReview: %v", err)
	}
	httpReq := httptest.NewRequestWithContext(context.Background(), http.MethodPost, path, bytes.NewReader(body))
	httpReq.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httpReq)
	resp := rec.Result()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("webhooktest: the handler answered %s: %s", resp.Status, answer)
	}
	result := &Result{Object: req.Object.Raw}
	if resp.StatusCode == http.StatusInternalServerError {
		// A failed webhook answers a Status, which kube-apiserver turns into a calling error.
		var status metav1.Status
		if err := json.Unmarshal(answer, &status); err != nil {
			t.Fatalf("webhooktest: the handler answered 500 without a Status: %s", answer)
		}
		result.Errored, result.Status = true, &status
		return result
	}
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal(answer, &got); err != nil || got.Response == nil {
		t.Fatalf("webhooktest: the answer is not an AdmissionReview with a response (%v): %s", err, answer)
	}
	r := got.Response
	if r.UID != req.UID {
		t.Fatalf("webhooktest: the answer's uid %q is not the request's %q", r.UID, req.UID)
	}
	result.Allowed, result.Warnings, result.AuditAnnotations = r.Allowed, r.Warnings, r.AuditAnnotations
	if !r.Allowed {
		result.Status = r.Result
	}
	if len(r.Patch) > 0 {
		if err := json.Unmarshal(r.Patch, &result.Patch); err != nil {
			t.Fatalf("webhooktest: the answer's patch is not a JSON patch: %v\n%s", err, r.Patch)
		}
		p, err := jsonpatch.DecodePatch(r.Patch)
		if err != nil {
			t.Fatalf("webhooktest: the answer's patch does not decode: %v\n%s", err, r.Patch)
		}
		if result.Object, err = p.Apply(req.Object.Raw); err != nil {
			t.Fatalf("webhooktest: the answer's patch does not apply to the object: %v\n%s", err, r.Patch)
		}
	}
	return result
}
