package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admitkit/admit/patch"
)

// reviewJSON encodes an AdmissionReview of the given apiVersion around req.
func reviewJSON(t *testing.T, apiVersion string, req *admissionv1.AdmissionRequest) []byte {
	t.Helper()
	body, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": "AdmissionReview", "request": req})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func podCreateRequest() *admissionv1.AdmissionRequest {
	return &admissionv1.AdmissionRequest{
		UID:       types.UID("uid-1"),
		Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name:      "web",
		Namespace: "default",
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`)},
	}
}

func post(t *testing.T, h http.Handler, contentType string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// decodeStatus reads an error reply and checks it is a JSON metav1.Status.
func decodeStatus(t *testing.T, w *httptest.ResponseRecorder) metav1.Status {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	var s metav1.Status
	if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil {
		t.Fatalf("error reply is not a Status: %v: %s", err, w.Body.String())
	}
	if s.Kind != "Status" || s.APIVersion != "v1" || s.Status != metav1.StatusFailure {
		t.Fatalf("error reply type = %s %s %s, want v1 Status Failure", s.APIVersion, s.Kind, s.Status)
	}
	return s
}

func TestHTTPHandlerRefusesMalformedRequests(t *testing.T) {
	allow := HandlerFunc(func(context.Context, *Request) Response { return Allowed() })
	valid := reviewJSON(t, "admission.k8s.io/v1", podCreateRequest())
	noUID := podCreateRequest()
	noUID.UID = ""
	tests := []struct {
		name        string
		method      string
		contentType string
		body        []byte
		wantCode    int
		wantReason  metav1.StatusReason
		wantMessage string
	}{
		{"GET", http.MethodGet, "application/json", valid, 405, metav1.StatusReasonMethodNotAllowed, "method GET is not allowed"},
		{"no content type", http.MethodPost, "", valid, 415, metav1.StatusReasonUnsupportedMediaType, "Content-Type header is missing"},
		{"text/plain", http.MethodPost, "text/plain", valid, 415, metav1.StatusReasonUnsupportedMediaType, `Content-Type "text/plain" is not supported`},
		{"malformed media type", http.MethodPost, "application/json; =", valid, 415, metav1.StatusReasonUnsupportedMediaType, "is not a valid media type"},
		{"empty body", http.MethodPost, "application/json", nil, 400, metav1.StatusReasonBadRequest, "request body is empty"},
		{"whitespace body", http.MethodPost, "application/json", []byte(" \n "), 400, metav1.StatusReasonBadRequest, "request body is empty"},
		{"not JSON", http.MethodPost, "application/json", []byte("{\n \"apiVersion\": admission}"), 400, metav1.StatusReasonBadRequest, "decoding AdmissionReview: line 2, column"},
		{"wrong type for request", http.MethodPost, "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[]}`), 400, metav1.StatusReasonBadRequest, "decoding AdmissionReview: line 1, column"},
		{"unknown version", http.MethodPost, "application/json", reviewJSON(t, "admission.k8s.io/v2", podCreateRequest()), 400, metav1.StatusReasonBadRequest, `unsupported AdmissionReview apiVersion "admission.k8s.io/v2"`},
		{"wrong kind", http.MethodPost, "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"ConversionReview","request":{"uid":"x"}}`), 400, metav1.StatusReasonBadRequest, `unsupported kind "ConversionReview"`},
		{"no request", http.MethodPost, "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), 400, metav1.StatusReasonBadRequest, "AdmissionReview has no request"},
		{"no uid", http.MethodPost, "application/json", reviewJSON(t, "admission.k8s.io/v1", noUID), 400, metav1.StatusReasonBadRequest, "request has no uid"},
		{"duplicate key", http.MethodPost, "application/json", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"a","uid":"b"}}`), 400, metav1.StatusReasonBadRequest, `decoding AdmissionReview: duplicate field "request.uid"`},
		{"invalid UTF-8", http.MethodPost, "application/json", []byte("{\"apiVersion\":\"admission.k8s.io/v1\",\n\"kind\":\"Admission\xffReview\"}"), 400, metav1.StatusReasonBadRequest, "line 2, column 18: the body is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := NewMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			h := NewHTTPHandler("hook", allow, HTTPOptions{Metrics: m})
			r := httptest.NewRequest(tt.method, "/hook", bytes.NewReader(tt.body))
			if tt.contentType != "" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d; body %s", w.Code, tt.wantCode, w.Body.String())
			}
			s := decodeStatus(t, w)
			if s.Code != int32(tt.wantCode) || s.Reason != tt.wantReason || !strings.Contains(s.Message, tt.wantMessage) {
				t.Fatalf("status = %d %s %q, want %d %s containing %q", s.Code, s.Reason, s.Message, tt.wantCode, tt.wantReason, tt.wantMessage)
			}
			if got := testutil.ToFloat64(m.badRequests); got != 1 {
				t.Fatalf("bad request counter = %v, want 1", got)
			}
		})
	}
}

// countingReader records how much of the body the handler read.
type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

func TestHTTPHandlerRefusesOversizedBodiesWithoutReadingThem(t *testing.T) {
	h := NewHTTPHandler("hook", HandlerFunc(func(context.Context, *Request) Response { return Allowed() }), HTTPOptions{MaxRequestBytes: 1024})

	t.Run("declared length", func(t *testing.T) {
		body := &countingReader{r: bytes.NewReader(make([]byte, 4096))}
		r := httptest.NewRequest(http.MethodPost, "/hook", body)
		r.ContentLength = 4096
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("code = %d, want 413", w.Code)
		}
		if body.read != 0 {
			t.Fatalf("handler read %d bytes of a body declared too large", body.read)
		}
		if s := decodeStatus(t, w); !strings.Contains(s.Message, "request body of 4096 bytes exceeds the limit of 1024 bytes") {
			t.Fatalf("message = %q", s.Message)
		}
	})
	t.Run("undeclared length", func(t *testing.T) {
		body := &countingReader{r: strings.NewReader(strings.Repeat(" ", 100000))}
		r := httptest.NewRequest(http.MethodPost, "/hook", body)
		r.ContentLength = -1
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("code = %d, want 413", w.Code)
		}
		if body.read > 1024+4096 {
			t.Fatalf("handler read %d bytes, want to stop near the 1024-byte limit", body.read)
		}
	})
}

func TestHTTPHandlerAnswersEachOutcome(t *testing.T) {
	denyStatus := metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "bad", Details: &metav1.StatusDetails{
		Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "data[x]", Message: "nope"}},
	}}
	jsonPatch := admissionv1.PatchTypeJSONPatch
	tests := []struct {
		name       string
		version    string
		resp       Response
		wantCode   int
		wantReview *admissionv1.AdmissionResponse // for 200 answers
		wantStatus *metav1.Status                 // for error answers
		wantLabel  string
	}{
		{
			name: "allowed v1", version: "admission.k8s.io/v1", resp: Allowed(), wantCode: 200,
			wantReview: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true}, wantLabel: "allowed",
		},
		{
			name: "allowed v1beta1 answered in v1beta1", version: "admission.k8s.io/v1beta1", resp: Allowed().WithWarnings("careful"), wantCode: 200,
			wantReview: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, Warnings: []string{"careful"}}, wantLabel: "allowed",
		},
		{
			name: "denied with message", version: "admission.k8s.io/v1", resp: Denied("no pods today"), wantCode: 200,
			wantReview: &admissionv1.AdmissionResponse{UID: "uid-1", Result: &metav1.Status{Status: "Failure", Code: 403, Reason: "Forbidden", Message: "no pods today"}},
			wantLabel:  "denied",
		},
		{
			name: "denied with status keeps causes", version: "admission.k8s.io/v1", resp: DeniedWithStatus(denyStatus), wantCode: 200,
			wantReview: &admissionv1.AdmissionResponse{UID: "uid-1", Result: &metav1.Status{Status: "Failure", Code: 422, Reason: "Invalid", Message: "bad", Details: denyStatus.Details}},
			wantLabel:  "denied",
		},
		{
			name: "denied with a success code becomes 403", version: "admission.k8s.io/v1", resp: DeniedWithStatus(metav1.Status{Code: 200, Message: "m"}), wantCode: 200,
			wantReview: &admissionv1.AdmissionResponse{UID: "uid-1", Result: &metav1.Status{Status: "Failure", Code: 403, Reason: "Forbidden", Message: "m"}},
			wantLabel:  "denied",
		},
		{
			name: "patched", version: "admission.k8s.io/v1",
			resp:     Patched(patch.Patch{{Op: "add", Path: "/metadata/labels", Value: json.RawMessage(`{"a":"b"}`)}}).WithAuditAnnotation("reason", "defaulted"),
			wantCode: 200,
			wantReview: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, PatchType: &jsonPatch,
				Patch: []byte(`[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`), AuditAnnotations: map[string]string{"reason": "defaulted"}},
			wantLabel: "patched",
		},
		{
			name: "empty patch is allowed", version: "admission.k8s.io/v1", resp: Patched(nil), wantCode: 200,
			wantReview: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true}, wantLabel: "allowed",
		},
		{
			name: "multi-line warnings are split and cleaned", version: "admission.k8s.io/v1",
			resp:       Allowed().WithWarnings("first line\nsecond\tline\x07", "", "  ", "bad utf8 \xff here"),
			wantCode:   200,
			wantReview: &admissionv1.AdmissionResponse{UID: "uid-1", Allowed: true, Warnings: []string{"first line", "second line", "bad utf8  here"}}, wantLabel: "allowed",
		},
		{
			name: "errored is a 500 Status", version: "admission.k8s.io/v1", resp: Errored(errTest("database unreachable")), wantCode: 500,
			wantStatus: &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: 500, Reason: "InternalError", Message: "database unreachable"},
			wantLabel:  "error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := NewMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			h := NewHTTPHandler("hook", HandlerFunc(func(context.Context, *Request) Response { return tt.resp }), HTTPOptions{Metrics: m})
			w := post(t, h, "application/json; charset=utf-8", reviewJSON(t, tt.version, podCreateRequest()))
			if w.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d: %s", w.Code, tt.wantCode, w.Body.String())
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type = %q", ct)
			}
			if tt.wantStatus != nil {
				var got metav1.Status
				if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(*tt.wantStatus, got); diff != "" {
					t.Fatalf("status (-want +got):\n%s", diff)
				}
			} else {
				var got admissionv1.AdmissionReview
				if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
					t.Fatal(err)
				}
				if got.APIVersion != tt.version || got.Kind != "AdmissionReview" {
					t.Fatalf("answered as %s %s, want %s AdmissionReview", got.APIVersion, got.Kind, tt.version)
				}
				if diff := cmp.Diff(tt.wantReview, got.Response); diff != "" {
					t.Fatalf("response (-want +got):\n%s", diff)
				}
			}
			if got := testutil.ToFloat64(m.requests.WithLabelValues("hook", "CREATE", tt.wantLabel)); got != 1 {
				t.Fatalf("requests_total{outcome=%s} = %v, want 1", tt.wantLabel, got)
			}
		})
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

func TestHTTPHandlerRecoversPanics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHTTPHandler("hook", HandlerFunc(func(context.Context, *Request) Response { panic("boom") }), HTTPOptions{Metrics: m})
	for i := 0; i < 3; i++ {
		w := post(t, h, "application/json", reviewJSON(t, "admission.k8s.io/v1", podCreateRequest()))
		if w.Code != http.StatusInternalServerError {
			t.Fatalf("code = %d, want 500", w.Code)
		}
		if s := decodeStatus(t, w); s.Message != "webhook handler panicked: boom" {
			t.Fatalf("message = %q", s.Message)
		}
	}
	if got := testutil.ToFloat64(m.panics.WithLabelValues("hook")); got != 3 {
		t.Fatalf("panics_total = %v, want 3", got)
	}
	if got := testutil.ToFloat64(m.inFlight.WithLabelValues("hook")); got != 0 {
		t.Fatalf("in-flight gauge = %v after the requests, want 0", got)
	}
}

func TestHTTPHandlerPassesTheWholeRequest(t *testing.T) {
	in := podCreateRequest()
	in.SubResource = "status"
	in.RequestKind = &metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}
	in.RequestSubResource = "status"
	dry := true
	in.DryRun = &dry
	in.UserInfo.Username = "alice"
	in.UserInfo.Groups = []string{"devs"}
	in.Options = runtime.RawExtension{Raw: []byte(`{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}`)}
	var got *Request
	h := NewHTTPHandler("hook", HandlerFunc(func(_ context.Context, r *Request) Response { got = r; return Allowed() }), HTTPOptions{})
	post(t, h, "application/json", reviewJSON(t, "admission.k8s.io/v1beta1", in))
	if got == nil {
		t.Fatal("handler not called")
	}
	if got.ReviewVersion != ReviewV1beta1 || !got.IsDryRun() {
		t.Fatalf("version %q dryRun %v, want v1beta1 and dry run", got.ReviewVersion, got.IsDryRun())
	}
	if diff := cmp.Diff(*in, got.AdmissionRequest); diff != "" {
		t.Fatalf("request (-sent +received):\n%s", diff)
	}
}
