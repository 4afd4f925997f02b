package webhooktest

import (
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/internal/lockedbuf"
)

// Server is a running fake webhook server. Its methods are safe for concurrent use.
type Server struct {
	// URL is the server's base URL, https://127.0.0.1:<port>, without a trailing slash.
	URL string
	// CABundle is the PEM certificate of the CA that signed the server's certificate: the
	// caBundle of a webhook configuration that calls the server.
	CABundle []byte

	server *httptest.Server
	// log holds what the HTTP server reports: failed handshakes, closed connections.
	log         lockedbuf.Buffer
	connections atomic.Int64
	mu          sync.Mutex
	calls       map[string]int
	requests    map[string][]*admissionv1.AdmissionRequest
	timeouts    map[string][]string
	wire        map[string][]Wire
}

// Wire is a call as it arrived: what a typed decoding would hide (field names' case, unknown
// fields, the review's apiVersion, headers, the protocol).
type Wire struct {
	// Proto is the request's protocol, "HTTP/2.0" or "HTTP/1.1".
	Proto  string
	Header http.Header
	Body   []byte
}

// NewServer starts a server on a free port of 127.0.0.1 with a new CA. Close it when done.
func NewServer() (*Server, error) {
	ca, err := certs.NewCA("webhooktest", time.Hour)
	if err != nil {
		return nil, fmt.Errorf("creating the webhooktest CA: %w", err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		return nil, fmt.Errorf("issuing the webhooktest serving certificate: %w", err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		return nil, fmt.Errorf("loading the webhooktest serving certificate: %w", err)
	}
	s := &Server{CABundle: ca.CertPEM()}
	s.Reset()
	s.server = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	// Callers that give up (timeouts, canceled requests) close connections: that is not news, so
	// the server's complaints are kept for Log rather than printed (Start prints them when the test
	// fails: they are how a connection the server closed shows).
	s.server.Config.ErrorLog = log.New(&s.log, "", 0)
	s.server.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.connections.Add(1)
		}
	}
	// kube-apiserver speaks HTTP/2 to loopback webhooks: serve it as a real webhook would.
	s.server.EnableHTTP2 = true
	// Tests send a thousand calls at once. Go's HTTP/2 client opens a new TLS connection for each
	// call beyond a connection's stream limit (Go's server default: 250), and Go's server closes a
	// connection whose client SETTINGS it has not read within 2 seconds — which a storm of hundreds
	// of handshakes under the race detector on two cores makes happen, failing the calls sent on it
	// with "unexpected EOF". With streams for every call, a burst shares the open connection.
	s.server.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: MaxConcurrentStreams}
	s.server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s.server.StartTLS()
	s.URL = s.server.URL
	return s, nil
}

// MaxConcurrentStreams is how many calls the server takes at once on one HTTP/2 connection.
const MaxConcurrentStreams = 4096

// Start starts a server that is closed when t ends, failing t if it cannot start. When t fails,
// the server's log is printed with it.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		if log := s.Log(); t.Failed() && log != "" {
			t.Logf("the webhooktest server's log:\n%s", log)
		}
	})
	return s
}

// Log returns what the HTTP server reported so far: handshakes that failed, connections it closed.
func (s *Server) Log() string { return s.log.String() }

// Connections returns how many connections the server has accepted.
func (s *Server) Connections() int { return int(s.connections.Load()) }

// Close stops the server, waiting for the calls in progress.
func (s *Server) Close() { s.server.Close() }

// ClientConfig is the clientConfig of a webhook calling path on this server.
func (s *Server) ClientConfig(path string) admissionregistrationv1.WebhookClientConfig {
	u := s.URL + path
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: s.CABundle}
}

// Calls returns how many AdmissionReviews path received since the start or the last Reset.
func (s *Server) Calls(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[canonical(path)]
}

// Requests returns the AdmissionRequests path received, in arrival order.
func (s *Server) Requests(path string) []*admissionv1.AdmissionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*admissionv1.AdmissionRequest, 0, len(s.requests[canonical(path)]))
	for _, r := range s.requests[canonical(path)] {
		out = append(out, r.DeepCopy())
	}
	return out
}

// Timeouts returns the timeout query parameter of each call to path, in arrival order: how long
// the caller said it would wait ("" when it did not say).
func (s *Server) Timeouts(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.timeouts[canonical(path)]...)
}

// Wire returns the calls path received as they arrived, in arrival order.
func (s *Server) Wire(path string) []Wire {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Wire, 0, len(s.wire[canonical(path)]))
	for _, w := range s.wire[canonical(path)] {
		out = append(out, Wire{Proto: w.Proto, Header: w.Header.Clone(), Body: append([]byte(nil), w.Body...)})
	}
	return out
}

// Reset forgets the calls and requests recorded so far, so that one server can serve two
// callers of the same admission in turn (busyOnce is busy again after a Reset).
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = map[string]int{}
	s.requests = map[string][]*admissionv1.AdmissionRequest{}
	s.timeouts = map[string][]string{}
	s.wire = map[string][]Wire{}
}

// record counts a call to path and returns its number, 1 for the first.
func (s *Server) record(path, timeout string, req *admissionv1.AdmissionRequest, wire Wire) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[path]++
	s.wire[path] = append(s.wire[path], wire)
	s.requests[path] = append(s.requests[path], req.DeepCopy())
	s.timeouts[path] = append(s.timeouts[path], timeout)
	return s.calls[path]
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	call, err := parsePath(r.URL.EscapedPath())
	if err != nil {
		http.Error(w, "webhooktest: "+err.Error(), http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, "webhooktest: reading the AdmissionReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		http.Error(w, "webhooktest: decoding the AdmissionReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	if review.Request == nil {
		http.Error(w, "webhooktest: the AdmissionReview has no request", http.StatusBadRequest)
		return
	}
	n := s.record(canonical(r.URL.Path), r.URL.Query().Get("timeout"), review.Request, Wire{Proto: r.Proto, Header: r.Header.Clone(), Body: body})
	call.answer(w, r, &review, n)
}

// call is a parsed path: what to do and with which parameters.
type call struct {
	behaviour string
	args      []string
	options   []Option
}

// arity is the number of positional arguments of a behaviour; ok is false for an unknown one.
func arity(behaviour string) (n int, ok bool) {
	switch behaviour {
	case "allow", "allowTextPlain", "allowYAML", "deny", "busyOnce", "internalError", "statusError", "statusErrorTextPlain", "invalidJSON", "absentResponse",
		"emptyBody", "wrongUID", "undecodablePatch", "missingPathPatch", "emptyPatch", "patchWithoutType", "unsupportedPatchType":
		return 0, true
	case "removeLabel", "sleep", "patch":
		return 1, true
	case "setLabel":
		return 2, true
	}
	return 0, false
}

func parsePath(escaped string) (*call, error) {
	var segments []string
	for _, s := range strings.Split(strings.Trim(escaped, "/"), "/") {
		unescaped, err := url.PathUnescape(s)
		if err != nil {
			return nil, fmt.Errorf("path %q: %w", escaped, err)
		}
		segments = append(segments, unescaped)
	}
	c := &call{behaviour: segments[0]}
	n, ok := arity(c.behaviour)
	if !ok {
		return nil, fmt.Errorf("unknown behaviour %q in path %q", c.behaviour, escaped)
	}
	if len(segments)-1 < n {
		return nil, fmt.Errorf("path %q: %s takes %d arguments", escaped, c.behaviour, n)
	}
	c.args = segments[1 : 1+n]
	for _, s := range segments[1+n:] {
		key, value, found := strings.Cut(s, "=")
		switch {
		case !found:
			return nil, fmt.Errorf("path %q: parameter %q is not key=value", escaped, s)
		case key != "code" && key != "reason" && key != "message" && key != "warning" && key != "annotation":
			return nil, fmt.Errorf("path %q: unknown parameter %q", escaped, key)
		}
		if _, err := strconv.Atoi(value); key == "code" && err != nil {
			return nil, fmt.Errorf("path %q: code %q is not a number", escaped, value)
		}
		if key == "annotation" && !strings.Contains(value, "=") {
			return nil, fmt.Errorf("path %q: annotation %q is not key=value", escaped, value)
		}
		c.options = append(c.options, Option{key, value})
	}
	switch c.behaviour {
	case "sleep":
		if _, err := time.ParseDuration(c.args[0]); err != nil {
			return nil, fmt.Errorf("path %q: %w", escaped, err)
		}
	case "patch":
		if _, err := base64.RawURLEncoding.DecodeString(c.args[0]); err != nil {
			return nil, fmt.Errorf("path %q: the patch is not base64url: %w", escaped, err)
		}
	}
	return c, nil
}
