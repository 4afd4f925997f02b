package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// FuzzDecodeReview feeds arbitrary bodies to the decoder: it must return a request or an error,
// never panic, and a decoded request must have the fields the handler relies on.
func FuzzDecodeReview(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE","object":{"kind":"Pod"}}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"1","oldObject":null}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","userInfo":{"extra":{"a":["b"]}},"dryRun":true}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","uid":"2"}}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`))
	f.Add([]byte("{\"apiVersion\":\"admission.k8s.io/v1\xff\"}"))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","object":{"a":1e999}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := DecodeReview(body)
		if err != nil {
			if req != nil {
				t.Fatal("DecodeReview returned a request with an error")
			}
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if req.UID == "" || (req.ReviewVersion != ReviewV1 && req.ReviewVersion != ReviewV1beta1) {
			t.Fatalf("decoded request without uid or version: %+v", req)
		}
		if _, _, err := EncodeResponse(req, Allowed()); err != nil {
			t.Fatalf("cannot answer a decoded request: %v", err)
		}
	})
}

// FuzzHTTPHandler sends arbitrary bodies through the whole HTTP adapter and a typed validator:
// every reply is JSON with a status the apiserver understands, and nothing panics.
func FuzzHTTPHandler(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE","kind":{"version":"v1","kind":"Pod"},"object":{"kind":"Pod","spec":{"containers":[{"name":"a"}]}}}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"UPDATE","kind":{"version":"v1","kind":"Pod"},"object":{"kind":"Pod"},"oldObject":{"spec":7}}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"DELETE","kind":{"version":"v1","kind":"Pod"}}}`))
	h := NewHTTPHandler("fuzz", Validating[*corev1.Pod](allowAll[*corev1.Pod]{}), HTTPOptions{MaxRequestBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r.WithContext(context.Background()))
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusInternalServerError:
		default:
			t.Fatalf("unexpected HTTP status %d", w.Code)
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("reply is not JSON: %q", w.Body.String())
		}
	})
}

// FuzzDecodeEnvelopeFast holds the review decode that leaves the objects out of the decoder to
// decoding the whole review: whenever it succeeds, the whole decode succeeds with the same
// review, objects byte for byte.
func FuzzDecodeEnvelopeFast(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE","object":{"kind":"Pod","a":[1,{"b":"}"}]},"oldObject":null}}`))
	f.Add([]byte(` { "request" : { "oldObject" : { "x" : "\"]" } , "object" : [ ] , "uid" : "u" } , "kind" : "AdmissionReview" } `))
	f.Add([]byte(`{"request":{"object":{"a":1},"object":{"a":2},"uid":"1"}}`))
	f.Add([]byte(`{"request":{"obj\u0065ct":{"a":1},"uid":"1"}}`))
	f.Add([]byte(`{"request":{"object":tru,"uid":"1"}}`))
	f.Add([]byte(`{"request":{"object":{"a":[}},"uid":"1"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, ok := decodeEnvelopeFast(body)
		if !ok {
			return
		}
		var whole reviewEnvelope
		if err := decodeStrict(body, &whole); err != nil {
			t.Fatalf("the fast decode accepted %q, the whole decode says %v", body, err)
		}
		if diff := cmp.Diff(whole, fast); diff != "" {
			t.Fatalf("decoding %q (-whole +fast):\n%s", body, diff)
		}
	})
}
