package reliability

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/webhook"
)

// hostileRequest is a request a webhook server must refuse with a clear 4xx.
type hostileRequest struct {
	name        string
	method      string // default POST
	path        string // default the Pod image-mirrors webhook
	contentType string // default application/json
	// noContentType sends no Content-Type header at all.
	noContentType bool
	body          func() []byte
	// chunked sends the body without a Content-Length, so the size is only known by reading.
	chunked  bool
	wantCode int
	// wantMessage must appear in the message of the metav1.Status the server answers with.
	wantMessage string
}

// hostileRequests are malformed and oversized requests and reviews admit serve must refuse.
func hostileRequests() []hostileRequest {
	review := func(s string) func() []byte { return func() []byte { return []byte(s) } }
	valid := string(podReview("hostile", "nginx"))
	return []hostileRequest{
		{name: "wrong method", method: http.MethodGet, wantCode: 405, wantMessage: "method GET is not allowed"},
		{name: "no media type", noContentType: true, body: review(valid), wantCode: 415, wantMessage: "Content-Type header is missing"},
		{name: "text/plain", contentType: "text/plain", body: review(valid), wantCode: 415, wantMessage: `Content-Type "text/plain" is not supported`},
		{name: "yaml", contentType: "application/yaml", body: review(valid), wantCode: 415, wantMessage: `Content-Type "application/yaml" is not supported`},
		{name: "malformed media type", contentType: "application/json; charset", body: review(valid), wantCode: 415, wantMessage: "is not a valid media type"},
		{name: "oversized chunked body", chunked: true, body: func() []byte {
			return append(append([]byte(`{"apiVersion":"`), bytes.Repeat([]byte("x"), int(webhook.DefaultMaxRequestBytes)+1<<20)...), `"}`...)
		}, wantCode: 413, wantMessage: "request body exceeds the limit of 7340032 bytes"},
		{name: "empty body", body: review(""), wantCode: 400, wantMessage: "request body is empty"},
		{name: "not JSON", body: review("admit me"), wantCode: 400, wantMessage: "decoding AdmissionReview: line 1, column "},
		{name: "JSON array", body: review(`[` + valid + `]`), wantCode: 400, wantMessage: "cannot unmarshal array"},
		{name: "deeply nested arrays in the object", body: func() []byte {
			return nestedReview(strings.Repeat("[", 100000) + strings.Repeat("]", 100000))
		}, wantCode: 400, wantMessage: "exceeded max depth"},
		{name: "deeply nested objects in the object", body: func() []byte {
			return nestedReview(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000))
		}, wantCode: 400, wantMessage: "exceeded max depth"},
		{name: "object of another kind", body: review(strings.Replace(valid, `"kind":"Pod"}`, `"kind":"Secret"}`, 1)),
			wantCode: 400, wantMessage: "this webhook handles /v1, Kind=Pod, not /v1, Kind=Secret"},
		{name: "object that is not an object", body: review(strings.Replace(valid, `"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"reliability"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`, `"object":"a pod"`, 1)),
			wantCode: 400, wantMessage: "decoding request.object as Pod"},
		{name: "number out of range", body: review(strings.Replace(valid, `"name":"app"`, `"name":"app","terminationMessagePath":1e999`, 1)),
			wantCode: 400, wantMessage: "decoding request.object as Pod"},
		{name: "unknown review version", body: review(strings.Replace(valid, "admission.k8s.io/v1", "admission.k8s.io/v2", 1)),
			wantCode: 400, wantMessage: `unsupported AdmissionReview apiVersion "admission.k8s.io/v2"`},
		{name: "review without request", body: review(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), wantCode: 400, wantMessage: "AdmissionReview has no request"},
		{name: "request without uid", body: review(strings.Replace(valid, `"uid":"hostile",`, "", 1)), wantCode: 400, wantMessage: "request has no uid"},
	}
}

// ambiguousRequests are reviews a JSON decoder could read in more than one way: two values for one
// key (which one did the webhook check?), bytes that are not UTF-8 (replaced by U+FFFD or refused,
// depending on the decoder). admit must refuse them with 400 rather than pick a reading.
func ambiguousRequests() []hostileRequest {
	valid := string(podReview("ambiguous", "nginx"))
	review := func(s string) func() []byte { return func() []byte { return []byte(s) } }
	return []hostileRequest{
		{name: "duplicate key in the review", body: review(strings.Replace(valid, `"uid":"ambiguous"`, `"uid":"ambiguous","uid":"other"`, 1)),
			wantCode: 400, wantMessage: `duplicate field "request.uid"`},
		{name: "duplicate key in the object", body: review(strings.Replace(valid, `"image":"nginx"`, `"image":"nginx","image":"evil.example/nginx"`, 1)),
			wantCode: 400, wantMessage: `duplicate field "spec.containers[0].image"`},
		{name: "invalid UTF-8 in the object", body: review(strings.Replace(valid, `"name":"app"`, "\"name\":\"app\xff\"", 1)),
			wantCode: 400, wantMessage: "not valid UTF-8"},
		{name: "invalid UTF-8 in the review", body: review(strings.Replace(valid, `"namespace":"reliability","name":"p"`, "\"namespace\":\"reliability\xc3\",\"name\":\"p\"", 1)),
			wantCode: 400, wantMessage: "not valid UTF-8"},
	}
}

// nestedReview is a Pod review whose object carries value in an unknown field.
func nestedReview(value string) []byte {
	return []byte(strings.Replace(string(podReview("nested", "nginx")), `"metadata":{`, `"nested":`+value+`,"metadata":{`, 1))
}

// hostileClients sends admit serve malformed, oversized and slow requests, several
// of each at once. Promises: each gets a clear 4xx with a Status saying what is wrong; a body
// declared too large is refused before it is read; clients that send headers slowly are
// disconnected after the header timeout; nothing panics; the server keeps serving; and its peak
// memory stays bounded.
func hostileClients(t *testing.T, m *measurements) {
	p := currentProfile()
	pki := newServingPKI(t)
	volume := newSecretVolume(t, pki.files(pki.serving))
	server := startServe(t, volume.dir)
	startRSS := server.peakRSS(t)

	var slowest time.Duration
	scenarios := []subtest{
		{"declared size over the limit", func(t *testing.T) { refusedUnread(t, server.addr, pki) }},
		{"slowloris", func(t *testing.T) { slowest = slowloris(t, server.addr, pki, p.slowClients) }},
	}
	for _, tt := range hostileRequests() {
		scenarios = append(scenarios, subtest{tt.name, func(t *testing.T) { sendConcurrently(t, p.concurrentHostile, server.addr, pki, tt) }})
	}
	passed := runConcurrently(t, scenarios...)
	m.Logf("%d of %d hostile requests and client behaviours handled as promised (%d copies of each request at once); the %d slow clients disconnected within %s",
		passed, len(scenarios), p.concurrentHostile, p.slowClients, slowest.Round(100*time.Millisecond))

	peak := server.peakRSS(t)
	m.Logf("peak RSS of admit serve %s at start, %s after %d copies of each hostile request at once and %d slow clients",
		mib(startRSS), mib(peak), p.concurrentHostile, p.slowClients)
	// Each request in flight buffers at most --max-request-bytes; the bound allows twice that per
	// concurrent request (buffer growth) on top of the runtime's own.
	if limit := startRSS + 64<<20 + 2*int64(p.concurrentHostile)*webhook.DefaultMaxRequestBytes; peak > limit {
		t.Errorf("peak RSS %s exceeds the bound of %s", mib(peak), mib(limit))
	}
	panics := server.metric(t, "admit_webhook_panics_total")
	if panics != 0 {
		t.Errorf("admit_webhook_panics_total is %v, want 0", panics)
	}
	m.Logf("admit_webhook_panics_total %v after", panics)
	if strings.Contains(server.logs.String(), "panic") {
		t.Errorf("admit serve logged a panic:\n%s", server.logs)
	}
	assertServes(t, server.addr, pki)
}

// ambiguousJSON sends reviews with duplicate keys and invalid UTF-8. Promise: each
// gets 400 and a Status naming the problem, rather than one reading picked silently.
func ambiguousJSON(t *testing.T, m *measurements) {
	pki := newServingPKI(t)
	volume := newSecretVolume(t, pki.files(pki.serving))
	server := startServe(t, volume.dir)
	refused, requests := 0, ambiguousRequests()
	for _, tt := range requests {
		if t.Run(tt.name, func(t *testing.T) {
			sendConcurrently(t, 1, server.addr, pki, tt)
		}) {
			refused++
		}
	}
	m.Logf("%d of %d ambiguous reviews refused as promised", refused, len(requests))
}

// sendConcurrently sends n copies of tt at once and checks every answer.
func sendConcurrently(t *testing.T, n int, addr string, pki servingPKI, tt hostileRequest) {
	var body []byte
	if tt.body != nil {
		body = tt.body()
	}
	client := tlsClient(pki)
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := sendHostile(client, addr, tt, body); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func sendHostile(client *http.Client, addr string, tt hostileRequest, body []byte) error {
	method, path := tt.method, tt.path
	if method == "" {
		method = http.MethodPost
	}
	if path == "" {
		path = mirroredPodPath
	}
	var reader io.Reader = bytes.NewReader(body)
	if tt.chunked {
		reader = io.MultiReader(reader) // hides the length: net/http sends it chunked
	}
	req, err := http.NewRequest(method, "https://"+addr+path, reader)
	if err != nil {
		return err
	}
	switch {
	case tt.noContentType:
	case tt.contentType != "":
		req.Header.Set("Content-Type", tt.contentType)
	default:
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %v", tt.name, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return checkStatusAnswer(resp.StatusCode, answer, tt.wantCode, tt.wantMessage)
}

// checkStatusAnswer expects HTTP code want and a metav1.Status body with the same code whose
// message contains message.
func checkStatusAnswer(code int, body []byte, want int, message string) error {
	var status metav1.Status
	if err := json.Unmarshal(body, &status); err != nil || status.Kind != "Status" {
		return fmt.Errorf("HTTP %d %q: want %d and a Status", code, body, want)
	}
	if code != want || int(status.Code) != want || !strings.Contains(status.Message, message) {
		return fmt.Errorf("HTTP %d, status %d %q: want %d and a message containing %q", code, status.Code, status.Message, want, message)
	}
	return nil
}

// refusedUnread declares a 100 MiB body and sends none of it: the answer must be 413, which
// proves the server refused without reading (it would otherwise wait for the body).
func refusedUnread(t *testing.T, addr string, pki servingPKI) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, tlsConfig(pki.ca))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", mirroredPodPath, addr, 100<<20)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a request declaring 100 MiB without sending it: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := checkStatusAnswer(resp.StatusCode, body, 413, "request body of 104857600 bytes exceeds the limit"); err != nil {
		t.Error(err)
	}
}

// slowloris opens n connections that never finish their headers — half without even a TLS
// handshake, half trickling a header byte every half second — and expects the server to close
// each of them after its header timeout (10 s in admit serve) while still serving others. It
// returns how long the slowest client was kept.
func slowloris(t *testing.T, addr string, pki servingPKI, n int) time.Duration {
	const headerTimeout = 10 * time.Second
	var wg sync.WaitGroup
	var mu sync.Mutex
	var slowest time.Duration
	for i := range n {
		wg.Go(func() {
			start := time.Now()
			var err error
			if i%2 == 0 {
				err = silentClient(addr, headerTimeout+10*time.Second)
			} else {
				err = tricklingClient(addr, pki, headerTimeout+10*time.Second)
			}
			if err != nil {
				t.Errorf("slow client %d: %v", i, err)
				return
			}
			mu.Lock()
			slowest = max(slowest, time.Since(start))
			mu.Unlock()
		})
	}
	// The slow clients hold connections; others are still served.
	for range 5 {
		assertServes(t, addr, pki)
		time.Sleep(time.Second)
	}
	wg.Wait()
	return slowest
}

// silentClient connects and sends nothing; it returns nil once the server closes the connection.
func silentClient(addr string, limit time.Duration) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	_, err = conn.Read(make([]byte, 1))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return fmt.Errorf("the connection is still open after %s without a byte sent", limit)
	}
	return nil
}

// tricklingClient completes a TLS handshake, then sends request headers a byte every 500 ms; it
// returns nil once the server closes the connection.
func tricklingClient(addr string, pki servingPKI, limit time.Duration) error {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, tlsConfig(pki.ca))
	if err != nil {
		return err
	}
	defer conn.Close()
	headers := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nX-Slow: %s", mirroredPodPath, addr, strings.Repeat("z", 200))
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		_ = conn.SetReadDeadline(time.Now().Add(limit))
		_, _ = conn.Read(make([]byte, 1))
	}()
	deadline := time.Now().Add(limit)
	for i := 0; time.Now().Before(deadline); i = (i + 1) % len(headers) {
		select {
		case <-closed:
			return nil
		case <-time.After(500 * time.Millisecond):
		}
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := conn.Write([]byte{headers[i]}); err != nil {
			return nil // the server closed the connection
		}
	}
	return fmt.Errorf("the connection is still open after %s of trickled headers", limit)
}

// assertServes sends one valid review and expects the mirrored answer.
func assertServes(t *testing.T, addr string, pki servingPKI) {
	t.Helper()
	req, err := postReview("https://"+addr+mirroredPodPath, podReview("still-serving", "nginx"))
	if err != nil {
		t.Fatal(err)
	}
	client := tlsClient(pki)
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Errorf("a valid review failed: %v", err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if err := checkMirrored("still-serving", resp, body); err != nil {
		t.Errorf("a valid review: %v", err)
	}
}
