package dispatch

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/certs"
)

// testWebhooks is a real TLS webhook server on loopback whose paths behave like the apiserver's
// own unit-test webhook server: allow, deny, fail, patch, answer invalidly.
type testWebhooks struct {
	url      string
	caBundle []byte
	mu       sync.Mutex
	calls    map[string]int
	requests map[string][]*admissionv1.AdmissionRequest
}

func newTestWebhooks(t *testing.T) *testWebhooks {
	t.Helper()
	ca, err := certs.NewCA("dispatch-test", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"webhook.test.svc"}, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	tw := &testWebhooks{caBundle: ca.CertPEM(), calls: map[string]int{}, requests: map[string][]*admissionv1.AdmissionRequest{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(tw.serve))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // closed test connections are not news
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tw.url = srv.URL
	return tw
}

func (tw *testWebhooks) count(path string) int {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.calls[path]
}

func (tw *testWebhooks) received(path string) []*admissionv1.AdmissionRequest {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.requests[path]
}

func (tw *testWebhooks) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	tw.mu.Lock()
	tw.calls[path]++
	tw.requests[path] = append(tw.requests[path], review.Request)
	n := tw.calls[path]
	tw.mu.Unlock()

	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	jsonPatch := admissionv1.PatchTypeJSONPatch
	withPatch := func(p string) { resp.Patch, resp.PatchType = []byte(p), &jsonPatch }
	switch {
	case path == "/allow":
		resp.AuditAnnotations = map[string]string{"key1": "value1"}
	case path == "/disallow":
		resp.Allowed, resp.Result = false, &metav1.Status{Code: http.StatusForbidden}
	case path == "/disallowReason":
		resp.Allowed, resp.Result = false, &metav1.Status{Code: http.StatusForbidden, Message: "you shall not pass"}
	case path == "/disallowNoStatus":
		resp.Allowed = false
	case path == "/disallowInvalid":
		resp.Allowed, resp.Result = false, &metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "spec is bad",
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec"}}}}
	case path == "/internalErr":
		http.Error(w, "webhook internal server error", http.StatusInternalServerError)
		return
	case path == "/statusErr":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"vault unreachable","reason":"InternalError","code":500}`))
		return
	case path == "/invalidResp":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("invalid json"))
		return
	case path == "/nonStatusError":
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_, _ = buf.WriteString("bad-http")
			_ = buf.Flush()
			conn.Close()
		}
		return
	case path == "/nilResponse":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
		return
	case path == "/noUID":
		resp.UID = ""
	case path == "/noGVK":
		b, _ := json.Marshal(map[string]any{"response": resp})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	case path == "/v1beta1Answer":
		b, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "response": resp})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	case path == "/invalidAnnotation":
		resp.AuditAnnotations = map[string]string{"invalid*key": "value"}
	case path == "/setName":
		withPatch(`[{"op":"add","path":"/metadata/name","value":"named-by-webhook"}]`)
	case path == "/addLabel":
		withPatch(`[{"op":"add","path":"/metadata/labels/added","value":"test"}]`)
	case path == "/removeLabel":
		withPatch(`[{"op":"remove","path":"/metadata/labels/remove"}]`)
	case path == "/invalidPatch":
		withPatch(`[{`)
	case path == "/invalidMutation":
		withPatch(`[{"op": "add", "CORRUPTED_KEY":}]`)
	case path == "/missingPath":
		withPatch(`[{"op":"add","path":"/metadata/annotations/x","value":"y"}]`)
	case path == "/copyBomb":
		// Each copy doubles the array: 30 of them would make gigabytes.
		ops := `{"op":"add","path":"/metadata/annotations","value":{"x":"` + strings.Repeat("x", 1024) + `"}}`
		ops += `,{"op":"add","path":"/spec/bomb","value":[["` + strings.Repeat("y", 1024) + `"]]}`
		for i := 0; i < 30; i++ {
			ops += `,{"op":"copy","from":"/spec/bomb","path":"/spec/bomb/-"}`
		}
		withPatch("[" + ops + "]")
	case path == "/breakType":
		withPatch(`[{"op":"replace","path":"/metadata","value":"gone"}]`)
	case path == "/noop":
		withPatch(`[]`)
	case path == "/validatingPatch":
		withPatch(`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`)
	case path == "/warn":
		resp.Warnings = []string{"first", "first", "line one\nline two", "second"}
	case path == "/sleep":
		select {
		case <-r.Context().Done():
			// A hanging webhook never answers: abort rather than write a late success, which
			// can reach a client that is giving up at that very moment.
			panic(http.ErrAbortHandler)
		case <-time.After(5 * time.Second):
		}
	case path == "/redirect":
		http.Redirect(w, r, "/allow", http.StatusTemporaryRedirect)
		return
	case path == "/retryOnce":
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
	case strings.HasPrefix(path, "/setLabel/"):
		// /setLabel/<key>/<value> sets one label (for reinvocation tests).
		parts := strings.SplitN(strings.TrimPrefix(path, "/setLabel/"), "/", 2)
		withPatch(`[{"op":"add","path":"/metadata/labels/` + parts[0] + `","value":"` + parts[1] + `"}]`)
	}
	b, _ := json.Marshal(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
