package reliability

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/webhook/conversion"
)

// Fuzz targets for the decoders no package fuzzes itself. The decoders of the calling side are
// unexported, so they are fuzzed through the dispatcher: a webhook server answers whatever the
// fuzzer chose. Seeds are in testdata/fuzz.

// fuzzUID is the uid every review of the fuzz dispatchers carries, so an answer can echo it.
const fuzzUID = "fuzz-uid"

// answer is what the fuzz webhook server sends back.
type answer struct {
	status      int
	contentType string
	body        []byte
}

// fuzzWebhook serves the answer last stored, on 127.0.0.1 over TLS, until the fuzz target ends.
type fuzzWebhook struct {
	url      string
	caBundle []byte
	current  atomic.Pointer[answer]
}

func startFuzzWebhook(f *testing.F) *fuzzWebhook {
	f.Helper()
	ca, err := certs.NewCA("fuzz", time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		f.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		f.Fatal(err)
	}
	fw := &fuzzWebhook{caBundle: ca.CertPEM()}
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		a := fw.current.Load()
		if a.contentType != "" {
			w.Header().Set("Content-Type", a.contentType)
		}
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	}))
	server.Config.ErrorLog = log.New(io.Discard, "", 0)
	server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	server.StartTLS()
	f.Cleanup(server.Close)
	fw.url = server.URL
	return fw
}

// dispatcher returns a dispatcher with one webhook of the given type and policy calling fw.
func (fw *fuzzWebhook) dispatcher(t testing.TB, mutating bool, policy admissionregistrationv1.FailurePolicyType) *dispatch.Dispatcher {
	w := webhookTo("fuzz.reliability.admit.dev", fw.url+"/fuzz", fw.caBundle, policy, 1)
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "fuzz"}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "fuzz"}}
	if mutating {
		m.Webhooks = []admissionregistrationv1.MutatingWebhook{{Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules,
			FailurePolicy: w.FailurePolicy, SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions}}
	} else {
		v.Webhooks = []admissionregistrationv1.ValidatingWebhook{w}
	}
	config.SetDefaultsMutating(m)
	config.SetDefaultsValidating(v)
	d, err := dispatch.New(dispatch.Options{
		Mutating:   []*admissionregistrationv1.MutatingWebhookConfiguration{m},
		Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{v},
		NewUID:     func() string { return fuzzUID },
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// FuzzDispatcherWebhookAnswer lets a validating webhook answer any status, media type and body,
// and admits with failurePolicy Fail and with Ignore. Whatever it answers, Admit returns a Result
// without panicking, warnings stay within the apiserver's budget, and the failure policy decides
// exactly the answers that are calling errors, both halves of it: the two policies read the same
// answer alike (allowed, denied with the same status, or a calling error), a calling error under
// Fail rejects with the apiserver's 500 naming the webhook, and under Ignore admits as
// failed-open. (The corpus's fourth value once chose the policy; both now run for every input.)
func FuzzDispatcherWebhookAnswer(f *testing.F) {
	valid := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"` + fuzzUID + `","allowed":true}}`
	f.Add(200, "application/json", []byte(valid), false)
	f.Add(200, "application/json", []byte(strings.Replace(valid, `"allowed":true`, `"allowed":false,"status":{"code":403,"message":"no"}`, 1)), false)
	f.Add(200, "application/json", []byte(strings.Replace(valid, `"allowed":true`, `"allowed":true,"warnings":["a","`+strings.Repeat("w", 5000)+`","\u0000"]`, 1)), true)
	f.Add(200, "application/yaml", []byte("apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nresponse: {uid: "+fuzzUID+", allowed: true}\n"), true)
	f.Add(200, "text/plain", []byte(valid), false)
	f.Add(200, "", []byte{}, true)
	f.Add(500, "application/json", []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":500,"message":"down"}`), false)
	f.Add(307, "text/html", []byte(`<a href="https://127.0.0.1:1/">moved</a>`), true)
	f.Add(200, "application/json", []byte(strings.Replace(valid, fuzzUID, "other", 1)), false)
	f.Add(200, "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`+fuzzUID+`","allowed":true,"patch":"W10=","patchType":"JSONPatch"}}`), true)
	f.Add(200, "application/json", []byte(`{"apiVersion":"v1","kind":"Status"}`), false)
	fw := startFuzzWebhook(f)
	dispatchers := map[admissionregistrationv1.FailurePolicyType]*dispatch.Dispatcher{
		admissionregistrationv1.Fail:   fw.dispatcher(f, false, admissionregistrationv1.Fail),
		admissionregistrationv1.Ignore: fw.dispatcher(f, false, admissionregistrationv1.Ignore),
	}
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte, _ bool) {
		if status < 200 || status > 599 || strings.ContainsAny(contentType, "\r\n\x00") || !utf8.ValidString(contentType) {
			t.Skip("not an answer an HTTP server can send")
		}
		fw.current.Store(&answer{status: status, contentType: contentType, body: body})
		results := map[admissionregistrationv1.FailurePolicyType]*engine.Result{}
		for policy, d := range dispatchers {
			res, err := d.Admit(context.Background(), podCreate("fuzz"))
			if err != nil {
				t.Fatalf("%s: Admit: %v", policy, err)
			}
			if len(res.Rows) != 1 {
				t.Fatalf("%s: %d webhook results, want 1", policy, len(res.Rows))
			}
			if !res.Allowed && (res.Status == nil || res.Status.Code < 400) {
				t.Fatalf("%s: rejected with %s: want a status code of at least 400", policy, statusText(res.Status))
			}
			runes := 0
			for _, w := range res.Warnings {
				runes += utf8.RuneCountInString(w)
			}
			if runes > 4096 {
				t.Fatalf("%s: %d runes of warnings passed the 4096-rune budget", policy, runes)
			}
			results[policy] = res
		}
		failed, ignored := results[admissionregistrationv1.Fail], results[admissionregistrationv1.Ignore]
		failOutcome, ignoreOutcome := failed.Rows[0].Outcome, ignored.Rows[0].Outcome
		switch failOutcome {
		case engine.OutcomeAllowed, engine.OutcomeDenied:
			// The webhook decided: the policy has no say.
			if ignoreOutcome != failOutcome || failed.Allowed != ignored.Allowed || statusText(failed.Status) != statusText(ignored.Status) {
				t.Fatalf("the webhook decided, yet the policies differ: Fail %s (%s), Ignore %s (%s)",
					failOutcome, statusText(failed.Status), ignoreOutcome, statusText(ignored.Status))
			}
			if (failOutcome == engine.OutcomeAllowed) != failed.Allowed {
				t.Fatalf("outcome %s but allowed %v", failOutcome, failed.Allowed)
			}
		case engine.OutcomeError:
			// No usable answer. Fail rejects with kube-apiserver's 500 naming the webhook.
			const prefix = `Internal error occurred: failed calling webhook "fuzz.reliability.admit.dev"`
			if failed.Allowed || failed.Status.Code != 500 || failed.Status.Reason != metav1.StatusReasonInternalError || !strings.HasPrefix(failed.Status.Message, prefix) {
				t.Fatalf("a calling error under Fail: allowed %v, %s; want 500 InternalError %q...", failed.Allowed, statusText(failed.Status), prefix)
			}
			switch ignoreOutcome {
			case engine.OutcomeFailedOpen:
				if !ignored.Allowed {
					t.Fatalf("failed-open under Ignore, but rejected with %s", statusText(ignored.Status))
				}
			case engine.OutcomeError:
				// An answer no policy can accept (kube-apiserver rejects it whatever the policy):
				// both reject alike.
				if ignored.Allowed || statusText(ignored.Status) != statusText(failed.Status) {
					t.Fatalf("an error under both policies, but Ignore %v (%s) and Fail %s", ignored.Allowed, statusText(ignored.Status), statusText(failed.Status))
				}
			default:
				t.Fatalf("a calling error under Fail (%s) is %s under Ignore", failed.Status.Message, ignoreOutcome)
			}
		default:
			t.Fatalf("outcome %s under Fail: a called validating webhook is allowed, denied or an error", failOutcome)
		}
	})
}

// FuzzDispatcherPatch lets a mutating webhook answer any JSON patch. Admit returns without
// panicking; an admitted object is a JSON object; and the object cannot grow by more than the
// patch could carry plus the 3 MiB copy operations may add, as in kube-apiserver — a small patch
// must not be able to make the dispatcher build a huge object.
func FuzzDispatcherPatch(f *testing.F) {
	f.Add([]byte(`[{"op":"add","path":"/metadata/labels/team","value":"payments"}]`))
	f.Add([]byte(`[{"op":"remove","path":"/spec/containers/0"},{"op":"test","path":"/kind","value":"Pod"}]`))
	f.Add([]byte(`[{"op":"move","from":"/spec","path":"/status"},{"op":"copy","from":"/metadata","path":"/spec"}]`))
	f.Add([]byte(`[{"op":"replace","path":"","value":42}]`))
	f.Add([]byte(`[{"op":"add","path":"/metadata/labels/a~1b","value":"<&>"},{"op":"replace","path":"/spec/containers/-1/image","value":"x"}]`))
	f.Add([]byte(`[{"op":"add","path":"/x","value":1e400}]`))
	f.Add([]byte(`[{"op":"unknown","path":"/x"}]`))
	f.Add([]byte(`[{`))
	bomb := []string{`{"op":"add","path":"/bomb","value":["` + strings.Repeat("b", 60) + `"]}`}
	for range copyBombDoublings {
		bomb = append(bomb, `{"op":"copy","from":"/bomb","path":"/bomb/-"}`)
	}
	f.Add([]byte("[" + strings.Join(bomb, ",") + "]"))
	fw := startFuzzWebhook(f)
	d := fw.dispatcher(f, true, admissionregistrationv1.Fail)
	object := podCreate("fuzz").Object
	f.Fuzz(func(t *testing.T, patch []byte) {
		review, err := json.Marshal(map[string]any{
			"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
			"response": map[string]any{"uid": fuzzUID, "allowed": true, "patch": patch, "patchType": "JSONPatch"},
		})
		if err != nil {
			t.Fatal(err)
		}
		fw.current.Store(&answer{status: 200, contentType: "application/json", body: review})
		res, err := d.Admit(context.Background(), podCreate("fuzz"))
		if err != nil {
			t.Fatalf("Admit: %v", err)
		}
		if !res.Allowed {
			if res.Status == nil || res.Status.Code != 500 {
				t.Fatalf("rejected with %s: a webhook that allowed can only cause an internal error", statusText(res.Status))
			}
			return
		}
		var asObject map[string]any
		decoder := json.NewDecoder(bytes.NewReader(res.Object))
		decoder.UseNumber() // a number out of float64's range is still JSON
		if err := decoder.Decode(&asObject); err != nil {
			t.Fatalf("the admitted object is not a JSON object: %v", err)
		}
		// json.Marshal may spell a character of the patch in 6 bytes (\u003c for <).
		if limit := len(object) + 6*len(patch) + 3<<20; len(res.Object) > limit {
			t.Fatalf("a %d-byte patch grew a %d-byte object to %s", len(patch), len(object), mib(int64(len(res.Object))))
		}
	})
}

// certificateBlock matches one PEM certificate block, from its BEGIN line to its END line.
var certificateBlock = regexp.MustCompile(`(?s)-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----`)

// FuzzParseCertificatesPEM feeds arbitrary bundles to the caBundle parser every command uses
// before writing a caBundle. Whatever it accepts holds certificate blocks and whitespace, nothing
// else: text the parser skips (a damaged key block, base64 without its BEGIN line) would be
// published in the caBundle with the certificates.
func FuzzParseCertificatesPEM(f *testing.F) {
	ca, err := certs.NewCA("fuzz", time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	other, err := certs.NewCA("fuzz other", time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	cert, key := ca.CertPEM(), ca.KeyPEM()
	f.Add(cert)
	f.Add(append(append([]byte{}, cert...), other.CertPEM()...))
	f.Add(append(append([]byte{}, cert...), key...))
	f.Add(append([]byte(strings.Replace(string(key), "-----END PRIVATE KEY-----", "-----END PRIVATE KEY----", 1)), cert...))
	f.Add(append([]byte("comment\n"), cert...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, bundle []byte) {
		parsed, err := certs.ParseCertificatesPEM(bundle)
		if err != nil {
			if parsed != nil {
				t.Fatal("certificates returned with an error")
			}
			return
		}
		if len(parsed) == 0 {
			t.Fatal("a bundle without certificates was accepted")
		}
		blocks := certificateBlock.FindAll(bundle, -1)
		outside := bytes.TrimSpace(certificateBlock.ReplaceAll(bundle, nil))
		if len(outside) > 0 || len(blocks) != len(parsed) {
			t.Fatalf("accepted %d certificates from %d certificate blocks and %q outside them:\n%s", len(parsed), len(blocks), outside, bundle)
		}
	})
}

// shirt is the one type of the conversion fuzz target's two versions.
type shirt struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              string `json:"size"`
}

// FuzzConversionHandler sends arbitrary bodies to a CRD conversion webhook. Every reply is JSON
// with a status the apiserver understands, and a converted review answers the request's uid with
// either every object, each in the desired version, or a Failure and none.
func FuzzConversionHandler(f *testing.F) {
	review := func(objects string) []byte {
		return []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"c1","desiredAPIVersion":"shop.example.com/v2","objects":[` + objects + `]}}`)
	}
	object := `{"apiVersion":"shop.example.com/v1","kind":"Shirt","metadata":{"name":"tee"},"size":"M"}`
	f.Add(review(object))
	f.Add(review(object + "," + strings.Replace(object, "v1", "v2", 1)))
	f.Add(review(strings.Replace(object, "v1", "v9", 1)))
	f.Add(review(`{"apiVersion":"shop.example.com/v1","kind":"Shirt","size":7}`))
	f.Add(review(`null,"x",[]`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"c1","objects":[]}}`))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview"}`))
	hub := conversion.NewHub[shirt]("Shirt")
	identity := func(from *shirt, to *shirt) error { *to = *from; return nil }
	for _, v := range []string{"shop.example.com/v1", "shop.example.com/v2"} {
		if err := conversion.AddVersion(hub, v, identity, identity); err != nil {
			f.Fatal(err)
		}
	}
	handler := conversion.NewHTTPHandler(hub, conversion.Options{MaxRequestBytes: 1 << 16})
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("HTTP %d with a reply that is not JSON: %q", w.Code, w.Body.String())
		}
		switch w.Code {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			return
		case http.StatusOK:
		default:
			t.Fatalf("unexpected HTTP status %d: %s", w.Code, w.Body.String())
		}
		var request, answer apiextensionsv1.ConversionReview
		if err := json.Unmarshal(body, &request); err != nil || request.Request == nil {
			t.Fatalf("answered 200 to a body that is not a ConversionReview: %v", err)
		}
		if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil || answer.Response == nil {
			t.Fatalf("the answer is not a ConversionReview with a response: %v: %s", err, w.Body.String())
		}
		resp := answer.Response
		if resp.UID != request.Request.UID {
			t.Fatalf("answer for uid %q, want %q", resp.UID, request.Request.UID)
		}
		switch resp.Result.Status {
		case metav1.StatusSuccess:
			if len(resp.ConvertedObjects) != len(request.Request.Objects) {
				t.Fatalf("%d objects converted of %d", len(resp.ConvertedObjects), len(request.Request.Objects))
			}
			for i, o := range resp.ConvertedObjects {
				var head metav1.TypeMeta
				if err := json.Unmarshal(o.Raw, &head); err != nil || head.APIVersion != request.Request.DesiredAPIVersion {
					t.Fatalf("converted object %d is %q (%v), want apiVersion %s", i, o.Raw, err, request.Request.DesiredAPIVersion)
				}
			}
		case metav1.StatusFailure:
			if len(resp.ConvertedObjects) != 0 || resp.Result.Message == "" {
				t.Fatalf("a Failure with %d objects and message %q", len(resp.ConvertedObjects), resp.Result.Message)
			}
		default:
			t.Fatalf("result status %q", resp.Result.Status)
		}
	})
}
