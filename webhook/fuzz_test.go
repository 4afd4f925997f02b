package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/internal/fuzzcorpus"
	"github.com/admitkit/admit/internal/typedjson"
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

// FuzzHTTPHandler sends arbitrary bodies through the whole HTTP adapter and a typed validator
// that admits everything, so no answer may be a failure (500). A 200 is an AdmissionReview in the
// request's version that echoes its uid and admits; a refusal is a 4xx whose body is a Status
// with the same code and a message saying what was wrong.
func FuzzHTTPHandler(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE","kind":{"version":"v1","kind":"Pod"},"object":{"kind":"Pod","spec":{"containers":[{"name":"a"}]}}}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"UPDATE","kind":{"version":"v1","kind":"Pod"},"object":{"kind":"Pod"},"oldObject":{"spec":7}}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"DELETE","kind":{"version":"v1","kind":"Pod"}}}`))
	h := NewHTTPHandler("fuzz", ValidatingHandler[*corev1.Pod](allowAll[*corev1.Pod]{}), HTTPOptions{MaxRequestBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r.WithContext(context.Background()))
		switch w.Code {
		case http.StatusOK:
			var sent, got admissionv1.AdmissionReview
			// The adapter reads field names case-sensitively, as the apiserver writes them.
			if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &sent); err != nil || sent.Request == nil {
				t.Fatalf("200 for a body that is no review (%v): %q", err, body)
			}
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || got.Response == nil {
				t.Fatalf("200 without an AdmissionReview response (%v): %q", err, w.Body.String())
			}
			if got.Response.UID != sent.Request.UID || got.APIVersion != sent.APIVersion || got.Kind != "AdmissionReview" {
				t.Fatalf("answer %s %s for uid %q; the request was %s uid %q", got.APIVersion, got.Kind, got.Response.UID, sent.APIVersion, sent.Request.UID)
			}
			if !got.Response.Allowed {
				t.Fatalf("a validator that admits everything answered allowed=false: %q", w.Body.String())
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			var status metav1.Status
			if err := json.Unmarshal(w.Body.Bytes(), &status); err != nil || status.Kind != "Status" || int(status.Code) != w.Code || status.Message == "" {
				t.Fatalf("a %d refusal without a Status saying why (%v): %q", w.Code, err, w.Body.String())
			}
		default:
			t.Fatalf("HTTP status %d for a validator that cannot fail: %q", w.Code, w.Body.String())
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
	// With and without the one-pass decoder of the envelope.
	decoders := []*typedjson.Decoder{nil, {}}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, dec := range decoders {
			checkEnvelopeFast(t, body, dec)
		}
	})
}

// checkEnvelopeFast compares the fast decode of body with the whole decode, where the fast one
// succeeds, and reports whether it did.
func checkEnvelopeFast(t *testing.T, body []byte, dec *typedjson.Decoder) bool {
	t.Helper()
	fast, ok := decodeEnvelopeFast(body, dec)
	if !ok {
		return false
	}
	var whole reviewEnvelope
	if err := decodeStrict(body, &whole); err != nil {
		t.Fatalf("the fast decode accepted %q, the whole decode says %v", body, err)
	}
	if diff := cmp.Diff(whole, fast); diff != "" {
		t.Fatalf("decoding %q (-whole +fast):\n%s", body, diff)
	}
	return true
}

// The committed corpus of FuzzDecodeEnvelopeFast reaches the fast decode, with and without the
// one-pass decoder: a body it leaves to the whole decode is compared with nothing.
func TestFuzzDecodeEnvelopeFastCorpusReachesTheFastDecode(t *testing.T) {
	corpus := fuzzcorpus.Bytes(t, "FuzzDecodeEnvelopeFast")
	const floor = 24
	for _, dec := range []*typedjson.Decoder{nil, {}} {
		decided := 0
		for _, body := range corpus {
			if checkEnvelopeFast(t, body, dec) {
				decided++
			}
		}
		t.Logf("one-pass decoder %t: the fast decode took %d of %d corpus inputs", dec != nil, decided, len(corpus))
		if decided < floor {
			t.Errorf("one-pass decoder %t: the fast decode took %d corpus inputs, fewer than %d", dec != nil, decided, floor)
		}
	}
}
