package webhooktest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// post sends one AdmissionReview for object to path, as an admission caller would.
func post(t *testing.T, s *Server, ctx context.Context, path, apiVersion, object string) (int, []byte) {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.CABundle) {
		t.Fatal("CABundle holds no certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: "AdmissionReview"},
		Request:  &admissionv1.AdmissionRequest{UID: "uid-1", Operation: admissionv1.Create, Name: "cm"},
	}
	if object != "" {
		review.Request.Object = runtime.RawExtension{Raw: []byte(object)}
	}
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path+"?timeout=10s", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

func decodeReview(t *testing.T, data []byte) admissionv1.AdmissionReview {
	t.Helper()
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return review
}

func ptr[T any](v T) *T { return &v }

const labelled = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"a":"b"}}}`
const unlabelled = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`

func TestAnswers(t *testing.T) {
	jsonPatch := admissionv1.PatchTypeJSONPatch
	tests := []struct {
		name   string
		path   string
		object string
		want   *admissionv1.AdmissionResponse
	}{
		{name: "allow", path: Allow(), want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true}},
		{name: "deny without status", path: Deny(), want: &admissionv1.AdmissionResponse{UID: "uid-1"}},
		{
			name: "deny with code, reason and a message holding spaces and punctuation",
			path: Deny(Code(422), Reason(metav1.StatusReasonInvalid), Message("spec is bad: x=1, y?")),
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Result: &metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "spec is bad: x=1, y?"}},
		},
		{
			name: "warnings keep duplicates and newlines",
			path: Allow(Warning("first"), Warning("first"), Warning("line one\nline two")),
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, Warnings: []string{"first", "first", "line one\nline two"}},
		},
		{
			name: "audit annotation",
			path: Allow(AuditAnnotation("key1", "a=b")),
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, AuditAnnotations: map[string]string{"key1": "a=b"}},
		},
		{
			name: "setLabel adds below existing labels", path: SetLabel("x.y", "1"), object: labelled,
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch,
				Patch: []byte(`[{"op":"add","path":"/metadata/labels/x.y","value":"1"}]`)},
		},
		{
			name: "setLabel creates the labels map", path: SetLabel("x", "1"), object: unlabelled,
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch,
				Patch: []byte(`[{"op":"add","path":"/metadata/labels","value":{"x":"1"}}]`)},
		},
		{
			name: "setLabel without an object", path: SetLabel("x", "1"),
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch,
				Patch: []byte(`[{"op":"add","path":"/metadata/labels/x","value":"1"}]`)},
		},
		{
			name: "removeLabel", path: RemoveLabel("a~b"), object: labelled,
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch,
				Patch: []byte(`[{"op":"remove","path":"/metadata/labels/a~0b"}]`)},
		},
		{
			name: "undecodable patch", path: PathUndecodablePatch,
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch, Patch: []byte(UndecodablePatch)},
		},
		{
			name: "patch to a missing path", path: PathMissingPathPatch,
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch, Patch: []byte(MissingPathPatch)},
		},
		{
			name: "a given patch, any text", path: Patch(`[{"op":"move","from":"/a/b~1c","path":"/d"}]`),
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch, Patch: []byte(`[{"op":"move","from":"/a/b~1c","path":"/d"}]`)},
		},
		{
			name: "empty patch", path: PathEmptyPatch,
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch, Patch: []byte(`[]`)},
		},
		{
			name: "patch without type", path: PathPatchWithoutType, object: labelled,
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels/webhooktest","value":"patched"}]`)},
		},
		{
			name: "unsupported patch type", path: PathUnsupportedPatchType, object: labelled,
			want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: ptr(admissionv1.PatchType("MergePatch")),
				Patch: []byte(`[{"op":"add","path":"/metadata/labels/webhooktest","value":"patched"}]`)},
		},
		{name: "wrong uid", path: PathWrongUID, want: &admissionv1.AdmissionResponse{UID: WrongUID, Allowed: true}},
		{name: "absent response", path: PathAbsentResponse, want: nil},
		{name: "sleep, then allow", path: Sleep(time.Millisecond), want: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true}},
	}
	s := Start(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, s, t.Context(), tt.path, "admission.k8s.io/v1", tt.object)
			if code != http.StatusOK {
				t.Fatalf("HTTP %d %s, want 200", code, body)
			}
			review := decodeReview(t, body)
			if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" {
				t.Errorf("answered %s %s, want admission.k8s.io/v1 AdmissionReview", review.APIVersion, review.Kind)
			}
			if diff := cmp.Diff(tt.want, review.Response); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorAnswers(t *testing.T) {
	tests := []struct {
		name            string
		path            string
		wantCode        int
		wantContentType string
		wantBody        string
	}{
		{name: "internal error", path: PathInternalError, wantCode: 500, wantContentType: "text/plain; charset=utf-8", wantBody: InternalErrorText + "\n"},
		{
			name: "status error", path: PathStatusError, wantCode: 500, wantContentType: "application/json",
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"webhook status error","reason":"InternalError","code":500}`,
		},
		{
			name: "status error labelled text/plain", path: PathStatusErrorTextPlain, wantCode: 500, wantContentType: "text/plain; charset=utf-8",
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"webhook status error","reason":"InternalError","code":500}` + "\n",
		},
		{name: "invalid JSON", path: PathInvalidJSON, wantCode: 200, wantContentType: "application/json", wantBody: "invalid json"},
		{name: "empty body", path: PathEmptyBody, wantCode: 200},
		{name: "unknown behaviour", path: "/alow", wantCode: 404, wantContentType: "text/plain; charset=utf-8", wantBody: "webhooktest: unknown behaviour \"alow\" in path \"/alow\"\n"},
		{name: "missing argument", path: "/setLabel/x", wantCode: 404, wantContentType: "text/plain; charset=utf-8", wantBody: "webhooktest: path \"/setLabel/x\": setLabel takes 2 arguments\n"},
		{name: "unknown parameter", path: "/allow/colour=red", wantCode: 404, wantContentType: "text/plain; charset=utf-8", wantBody: "webhooktest: path \"/allow/colour=red\": unknown parameter \"colour\"\n"},
		{name: "bad code", path: "/deny/code=x", wantCode: 404, wantContentType: "text/plain; charset=utf-8", wantBody: "webhooktest: path \"/deny/code=x\": code \"x\" is not a number\n"},
		{name: "patch not base64url", path: "/patch/a+b", wantCode: 404, wantContentType: "text/plain; charset=utf-8", wantBody: "webhooktest: path \"/patch/a+b\": the patch is not base64url: illegal base64 data at input byte 1\n"},
		{name: "bad duration", path: "/sleep/soon", wantCode: 404, wantContentType: "text/plain; charset=utf-8", wantBody: "webhooktest: path \"/sleep/soon\": time: invalid duration \"soon\"\n"},
	}
	s := Start(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(s.CABundle)
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
			resp, err := client.Post(s.URL+tt.path, "application/json", strings.NewReader(`{"request":{"uid":"u"}}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			got := []any{resp.StatusCode, resp.Header.Get("Content-Type"), string(body)}
			if diff := cmp.Diff([]any{tt.wantCode, tt.wantContentType, tt.wantBody}, got); diff != "" {
				t.Errorf("code, content type, body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBusyOnceAndReset(t *testing.T) {
	s := Start(t)
	var codes []int
	for range 2 {
		code, _ := post(t, s, t.Context(), PathBusyOnce, "admission.k8s.io/v1", "")
		codes = append(codes, code)
	}
	s.Reset()
	code, _ := post(t, s, t.Context(), PathBusyOnce, "admission.k8s.io/v1", "")
	codes = append(codes, code)
	if diff := cmp.Diff([]int{503, 200, 503}, codes); diff != "" {
		t.Errorf("codes of three calls around a Reset (-want +got):\n%s", diff)
	}
	if got := s.Calls(PathBusyOnce); got != 1 {
		t.Errorf("Calls after Reset and one call = %d, want 1", got)
	}
}

func TestRecordsPerPath(t *testing.T) {
	s := Start(t)
	deny := Deny(Message("no way"))
	post(t, s, t.Context(), deny, "admission.k8s.io/v1", labelled)
	post(t, s, t.Context(), deny, "admission.k8s.io/v1beta1", unlabelled)
	post(t, s, t.Context(), Allow(), "admission.k8s.io/v1", "")

	// Calls and Requests take the path escaped or not.
	if got := []int{s.Calls(deny), s.Calls("/deny/message=no way"), s.Calls(Allow()), s.Calls(PathAbsentResponse)}; !cmp.Equal(got, []int{2, 2, 1, 0}) {
		t.Errorf("calls = %v, want [2 2 1 0]", got)
	}
	var objects []string
	for _, r := range s.Requests(deny) {
		objects = append(objects, string(r.Object.Raw))
	}
	if diff := cmp.Diff([]string{labelled, unlabelled}, objects); diff != "" {
		t.Errorf("recorded objects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"10s", "10s"}, s.Timeouts(deny)); diff != "" {
		t.Errorf("timeouts (-want +got):\n%s", diff)
	}
	// Requests returns copies: changing them does not change the record.
	s.Requests(deny)[0].Name = "changed"
	if got := s.Requests(deny)[0].Name; got != "cm" {
		t.Errorf("recorded name = %q after changing a returned copy, want cm", got)
	}
}

func TestAnswersInTheRequestsVersion(t *testing.T) {
	s := Start(t)
	_, body := post(t, s, t.Context(), Allow(), "admission.k8s.io/v1beta1", "")
	if review := decodeReview(t, body); review.APIVersion != "admission.k8s.io/v1beta1" {
		t.Errorf("answered in %q, want admission.k8s.io/v1beta1", review.APIVersion)
	}
}

func TestSleepEndsWhenTheCallerGivesUp(t *testing.T) {
	s := Start(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CABundle)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+Sleep(time.Hour), strings.NewReader(`{"request":{"uid":"u"}}`))
	type outcome struct {
		err error
		at  time.Time
	}
	returned := make(chan outcome, 1)
	go func() {
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		returned <- outcome{err, time.Now()}
	}()
	// Give up only once the server is sleeping on the call, however slow the machine is.
	deadline := time.Now().Add(30 * time.Second)
	for s.Calls(Sleep(time.Hour)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the call never reached the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case got := <-returned:
		t.Fatalf("an hour-long sleep answered before the caller gave up (err %v)", got.err)
	case <-time.After(50 * time.Millisecond):
	}
	gaveUp := time.Now()
	cancel()
	// The transport may still hand over an answer the server wrote as the connection closed;
	// what must not happen is an answer before the caller gave up.
	if got := <-returned; got.err == nil && got.at.Before(gaveUp) {
		t.Fatal("a call to an hour-long sleep returned before the caller gave up")
	}
	// Close waits for the handlers in progress: it returns only if the sleep ended with the call.
	s.Close()
	if got := s.Calls(Sleep(time.Hour)); got != 1 {
		t.Errorf("calls = %d, want 1", got)
	}
}

func TestClientConfig(t *testing.T) {
	s := Start(t)
	cc := s.ClientConfig(Allow())
	if cc.URL == nil || *cc.URL != s.URL+"/allow" || !bytes.Equal(cc.CABundle, s.CABundle) || cc.Service != nil {
		t.Errorf("ClientConfig = %+v, want url %s/allow with the CA bundle", cc, s.URL)
	}
}

func TestAnswerEncodings(t *testing.T) {
	tests := []struct {
		path            string
		wantContentType string
		decode          func([]byte, any) error
	}{
		{path: PathAllow, wantContentType: "application/json", decode: json.Unmarshal},
		{path: PathAllowTextPlain, wantContentType: "text/plain; charset=utf-8", decode: json.Unmarshal},
		{path: PathAllowYAML, wantContentType: "application/yaml", decode: func(data []byte, v any) error { return yaml.UnmarshalStrict(data, v) }},
	}
	s := Start(t)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(s.CABundle)
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
			resp, err := client.Post(s.URL+tt.path, "application/json", strings.NewReader(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u"}}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if got := resp.Header.Get("Content-Type"); got != tt.wantContentType {
				t.Errorf("Content-Type = %q, want %q", got, tt.wantContentType)
			}
			var review admissionv1.AdmissionReview
			if err := tt.decode(body, &review); err != nil {
				t.Fatalf("decoding %s: %v", body, err)
			}
			want := admissionv1.AdmissionReview{
				TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
				Response: &admissionv1.AdmissionResponse{UID: "u", Allowed: true},
			}
			if diff := cmp.Diff(want, review); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

// A burst of calls at once, as the reliability suite sends a thousand admissions, is carried by
// the connection already open: a Go HTTP/2 client opens a new TLS connection for every call over
// the server's stream limit, and a storm of handshakes is what makes Go's server close
// connections it has not heard SETTINGS on within two seconds.
func TestBurstSharesTheOpenConnection(t *testing.T) {
	s := Start(t)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.CABundle) {
		t.Fatal("CABundle holds no certificate")
	}
	// As the dispatcher calls a loopback webhook: HTTP/2.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}}
	defer client.CloseIdleConnections()
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  &admissionv1.AdmissionRequest{UID: "uid-1", Operation: admissionv1.Create, Name: "cm"},
	})
	if err != nil {
		t.Fatal(err)
	}
	call := func() error {
		resp, err := client.Post(s.URL+"/allow", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		if resp.ProtoMajor != 2 {
			return fmt.Errorf("served over %s, want HTTP/2", resp.Proto)
		}
		return nil
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	const burst = 1000
	errs := make([]error, burst)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range errs {
		wg.Go(func() {
			<-start
			errs[i] = call()
		})
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := s.Connections(); got != 1 {
		t.Errorf("%d connections for a warm-up call and a burst of %d, want the warm-up's only", got, burst)
	}
	if got := s.Calls("/allow"); got != burst+1 {
		t.Errorf("%d calls recorded, want %d", got, burst+1)
	}
}
