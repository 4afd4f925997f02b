package dispatch

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/admitkit/admit/internal/fuzzcorpus"
	"github.com/admitkit/admit/internal/typedjson"
)

// decodeBoth decodes an answer as the dispatcher does (one pass where it can) and as the
// apiserver does (the declared kind, then the whole review), and renders each outcome.
func decodeBoth(body []byte, version string) (fast, slow string) {
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}}
	render := func(review *admissionv1.AdmissionReview, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%+v", *review)
	}
	return render(decodeResponse(resp, body, version, new(typedjson.Decoder))), render(decodeResponse(resp, body, version, nil))
}

// The one-pass decode of the webhooks' answers changes no answer and no error: bodies it takes
// and bodies it leaves to the apiserver's way (cased or repeated keys, unknown members, other
// kinds, YAML).
func TestDecodeResponseOnePass(t *testing.T) {
	for _, body := range []string{
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL2EiLCJ2YWx1ZSI6MX1d","warnings":["w"],"auditAnnotations":{"a":"b"}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":false,"status":{"code":403,"message":"no","reason":"Forbidden","details":{"causes":[{"field":"spec","message":"m"}]}}}}`,
		`{"APIVERSION":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`,
		`{"apiVersion":"admission.k8s.io/v1","Kind":"Pod","response":{"uid":"u","allowed":true}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","kind":"Pod","response":{"uid":"u","allowed":true}}`,
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`,
		`{"apiVersion":"v1","kind":"Status","response":{"uid":"u","allowed":true}}`,
		`{"kind":"AdmissionReview","response":{"uid":"u","allowed":true,"extra":1}}`,
		`{"response":{"uid":"u","Allowed":true}}`,
		`{"response":{"uid":"u","allowed":"yes"}}`,
		`{"response":{"uid":"u","allowed":true},"response":{"uid":"v","allowed":false}}`,
		`{"response":{"uid":"u","allowed":true}} trailing`,
		`{"response":{"uid":"u","allowed":true}`,
		`{"response":null}`,
		`{}`,
		"apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nresponse:\n  uid: u\n  allowed: true\n",
	} {
		for _, version := range []string{"v1", "v1beta1"} {
			fast, slow := decodeBoth([]byte(body), version)
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Errorf("answer %s to a %s request (-apiserver's way +one pass):\n%s", body, version, diff)
			}
		}
	}
}

// On any body, the one-pass decode answers as the apiserver's way does.
func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"W10="}}`))
	f.Add([]byte(`{"kind":"AdmissionReview","KIND":"x","response":{"uid":"u","allowed":false,"status":{"code":400}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, slow := decodeBoth(body, "v1")
		if fast != slow {
			t.Fatalf("answer %q: the apiserver's way gives %s, one pass %s", body, slow, fast)
		}
	})
}

// The committed corpus of FuzzDecodeResponse reaches the one-pass decode: an answer it leaves
// to the apiserver's way compares that way with itself. An answer is decided in one pass when
// decodeResponse's condition holds: JSON (or YAML made JSON) with only a review's members, which
// the one-pass decoder decodes.
func TestFuzzDecodeResponseCorpusReachesTheOnePassDecode(t *testing.T) {
	corpus := fuzzcorpus.Bytes(t, "FuzzDecodeResponse")
	decided := 0
	for _, body := range corpus {
		if fast, slow := decodeBoth(body, "v1"); fast != slow {
			t.Errorf("answer %q: the apiserver's way gives %s, one pass %s", body, slow, fast)
		}
		data, err := asJSON(body)
		var review admissionv1.AdmissionReview
		if err == nil && onlyReviewMembers(data) && new(typedjson.Decoder).Decode(data, &review) {
			decided++
		}
	}
	t.Logf("the one-pass decode took %d of %d corpus answers", decided, len(corpus))
	const floor = 25
	if decided < floor {
		t.Errorf("the one-pass decode took %d corpus answers, fewer than %d", decided, floor)
	}
}

// kube-apiserver reads the declared kind into an anonymous struct, and its decoding error names
// that type; the differential suite records the message ("200 with a body that is not JSON").
func TestDecodeResponseNamesTheApiserversType(t *testing.T) {
	_, err := decodeResponse(&http.Response{StatusCode: http.StatusOK, Header: http.Header{}}, []byte(`"not a review"`), "v1", new(typedjson.Decoder))
	want := `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
