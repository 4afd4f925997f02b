package reliability

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/admitkit/admit/certs"
)

// hugeAnswerBytes is the size of the oversized answers: beyond what dispatch (16 MiB) and
// extension (10 MiB) read.
const hugeAnswerBytes = 20 << 20

// copyBombDoublings copy operations double a 64-byte array 16 times: 4 MiB of copies, over
// the 3 MiB kube-apiserver lets copy operations add (JSONPatchMaxCopyBytes), yet small enough
// not to hurt the machine when a caller has no limit at all. Each further doubling would double
// the memory: 30 of them, under 2 KB of patch, make 64 GiB.
const copyBombDoublings = 16

// hostileServer is a webhook server on 127.0.0.1 whose paths misbehave the ways a broken webhook
// or extension does. Answers that need a shape are AdmissionReviews for paths under /admission/
// and Runtime-SDK-style responses ({"status":...}) under /extension/; the other behaviours are
// the same for both:
//
//	hang         never answers, until the caller gives up (counted in hanging meanwhile)
//	reset        reads the request, then resets the connection
//	garbage      200 application/json with bytes that are not JSON
//	html         200 text/html, as a misrouted ingress answers
//	redirect     307 to /allow on a second server, which counts the calls it gets
//	huge         200 application/json, 20 MiB
//	drip         200 application/json, then the body a byte every 100 ms
//	allow        a valid allowed answer
//	warnings     allowed, with 2,000 distinct warnings of 300 characters (admission only)
//	copybomb     a patch of copy operations, each doubling the object (admission only)
//	hugepatch    a 20 MiB patch (admission only)
//	nonobject    a patch turning the object into a number (admission only)
//	badmetadata  a patch turning the object's metadata into a string (admission only)
type hostileServer struct {
	url      string
	caBundle []byte
	// redirectTarget counts the requests the redirect behaviour's target received.
	redirectTarget atomic.Int64
	// hanging counts the requests the hang behaviour holds right now.
	hanging atomic.Int64
	release chan struct{}
}

// startHostileServer starts the server; it is stopped when the test ends. HTTP/2 is offered, as
// loopback webhooks speak it to kube-apiserver.
func startHostileServer(t *testing.T) *hostileServer {
	t.Helper()
	ca, err := certs.NewCA("hostile webhooks", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileServer{caBundle: ca.CertPEM(), release: make(chan struct{})}
	target := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h.redirectTarget.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"Success"}`))
	}))
	target.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	target.StartTLS()

	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.serve(w, r, target.URL)
	}))
	server.Config.ErrorLog = log.New(io.Discard, "", 0) // reset and abandoned connections are the point
	server.EnableHTTP2 = true
	server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	server.StartTLS()
	h.url = server.URL
	t.Cleanup(func() {
		close(h.release)
		server.Close()
		target.Close()
	})
	return h
}

// path is the URL of behaviour for callers of kind "admission" or "extension".
func (h *hostileServer) path(kind, behaviour string) string {
	return h.url + "/" + kind + "/" + behaviour
}

func (h *hostileServer) serve(w http.ResponseWriter, r *http.Request, redirectTo string) {
	kind, behaviour, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		return
	}
	switch behaviour {
	case "hang":
		h.hanging.Add(1)
		defer h.hanging.Add(-1)
		select {
		case <-r.Context().Done():
		case <-h.release:
		}
	case "reset":
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			// HTTP/2 cannot be hijacked: abort the stream instead.
			panic(http.ErrAbortHandler)
		}
		if tcp, ok := conn.(*tls.Conn).NetConn().(*net.TCPConn); ok {
			_ = tcp.SetLinger(0) // close with RST, not FIN
		}
		conn.Close()
	case "garbage":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{\"response\":{\"uid\":\x00\xff garbage"))
	case "html":
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>Welcome to nginx!</body></html>"))
	case "redirect":
		http.Redirect(w, r, redirectTo+"/allow", http.StatusTemporaryRedirect)
	case "huge":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"padding":"`))
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range hugeAnswerBytes >> 20 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		_, _ = w.Write([]byte(`"}`))
	case "drip":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		for i := 0; i < 1000; i++ {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			_ = http.NewResponseController(w).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-h.release:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	case "hugepatch":
		if kind == "admission" {
			writeHugePatch(w, body)
			return
		}
		fallthrough
	default:
		if kind == "extension" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"status":"Success"}`))
			return
		}
		h.answerAdmission(w, behaviour, body)
	}
}

// answerAdmission answers a review with behaviour's allowed response.
func (h *hostileServer) answerAdmission(w http.ResponseWriter, behaviour string, body []byte) {
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	jsonPatch := admissionv1.PatchTypeJSONPatch
	switch behaviour {
	case "allow":
	case "warnings":
		for i := range 2000 {
			resp.Warnings = append(resp.Warnings, fmt.Sprintf("warning %04d %s", i, strings.Repeat("w", 288)))
		}
	case "copybomb":
		// Each operation appends the array to itself, doubling it.
		ops := []string{`{"op":"add","path":"/bomb","value":["` + strings.Repeat("b", 60) + `"]}`}
		for range copyBombDoublings {
			ops = append(ops, `{"op":"copy","from":"/bomb","path":"/bomb/-"}`)
		}
		resp.Patch, resp.PatchType = []byte("["+strings.Join(ops, ",")+"]"), &jsonPatch
	case "nonobject":
		resp.Patch, resp.PatchType = []byte(`[{"op":"replace","path":"","value":42}]`), &jsonPatch
	case "badmetadata":
		resp.Patch, resp.PatchType = []byte(`[{"op":"replace","path":"/metadata","value":"gone"}]`), &jsonPatch
	default:
		http.Error(w, "unknown behaviour "+behaviour, http.StatusNotFound)
		return
	}
	review.Response, review.Request = resp, nil
	out, err := json.Marshal(review)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// writeHugePatch answers a review with a patch of 20 MiB, streamed: the answer is never held in
// memory, and callers that stop reading at their limit make the server stop writing.
func writeHugePatch(w http.ResponseWriter, body []byte) {
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"apiVersion":%q,"kind":"AdmissionReview","response":{"uid":%q,"allowed":true,"patchType":"JSONPatch","patch":"`,
		review.APIVersion, review.Request.UID)
	// The patch is base64 in JSON; "A" is a valid base64 digit, and the content does not matter:
	// a caller must stop reading long before it could decode it.
	block := strings.Repeat("A", 1<<20)
	for range hugeAnswerBytes / len(block) {
		if _, err := w.Write([]byte(block)); err != nil {
			return
		}
	}
	_, _ = w.Write([]byte(`"}}`))
}
