package webhook

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/internal/lockedbuf"
)

// testPKI is a CA with a serving certificate for 127.0.0.1 written to a directory.
type testPKI struct {
	ca  *certs.CA
	dir string
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	ca, err := certs.NewCA("admit-test-ca", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p := &testPKI{ca: ca, dir: t.TempDir()}
	p.rotate(t)
	return p
}

// rotate issues a new serving certificate and writes it over the old files; it returns its leaf.
func (p *testPKI) rotate(t *testing.T) *x509.Certificate {
	t.Helper()
	kp, err := p.ca.IssueServing(certs.ServingOptions{DNSNames: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := certs.WriteFiles(p.dir, p.ca, kp); err != nil {
		t.Fatal(err)
	}
	return kp.Certificate()
}

func (p *testPKI) pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(p.ca.Certificate())
	return pool
}

func (p *testPKI) certFile() string { return filepath.Join(p.dir, certs.CertFileName) }
func (p *testPKI) keyFile() string  { return filepath.Join(p.dir, certs.KeyFileName) }

// startServer runs a server on loopback until the test ends and returns it once it is ready.
func startServer(t *testing.T, opts ServerOptions) (*Server, context.CancelFunc, <-chan error) {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	waitFor(t, "server ready", func() bool {
		return s.serving.Load()
	})
	return s, cancel, done
}

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func tlsClient(pool *x509.CertPool, mutate ...func(*tls.Config)) *http.Client {
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	for _, m := range mutate {
		m(cfg)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
}

func webhookHandler(t *testing.T) http.Handler {
	r := NewRegistry(HTTPOptions{})
	if err := r.Register(Webhook{Name: "pods.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: allowHandler}); err != nil {
		t.Fatal(err)
	}
	return r
}

func sendReview(t *testing.T, c *http.Client, addr net.Addr) (*http.Response, error) {
	t.Helper()
	body := reviewJSON(t, "admission.k8s.io/v1", podCreateRequest())
	return c.Post("https://"+addr.String()+"/validate-core-v1-pod", "application/json", bytes.NewReader(body))
}

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServerServesWebhooksHealthAndMetrics(t *testing.T) {
	pki := newTestPKI(t)
	reg := prometheus.NewRegistry()
	metrics, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: webhookHandler(t), Gatherer: reg, Metrics: metrics})
	c := tlsClient(pki.pool())

	resp, err := sendReview(t, c, s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 1 {
		t.Fatalf("review: %d over %s, want 200 over HTTP/1.1", resp.StatusCode, resp.Proto)
	}
	base := "https://" + s.Addr().String()
	if code, body := get(t, c, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz = %d %q", code, body)
	}
	if code, body := get(t, c, base+"/readyz"); code != 200 {
		t.Fatalf("/readyz = %d %q", code, body)
	}
	code, body := get(t, c, base+"/metrics")
	if code != 200 || !strings.Contains(body, "admit_webhook_certificate_expiration_timestamp_seconds") {
		t.Fatalf("/metrics = %d, want the certificate expiry metric:\n%s", code, body)
	}
}

func TestServerTLSPolicy(t *testing.T) {
	pki := newTestPKI(t)

	t.Run("TLS 1.1 refused", func(t *testing.T) {
		s, _, _ := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: webhookHandler(t)})
		c := tlsClient(pki.pool(), func(c *tls.Config) { c.MinVersion, c.MaxVersion = tls.VersionTLS10, tls.VersionTLS11 })
		if _, err := sendReview(t, c, s.Addr()); err == nil {
			t.Fatal("a TLS 1.1 client was served")
		}
	})
	t.Run("TLS 1.3 minimum", func(t *testing.T) {
		s, _, _ := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: webhookHandler(t), MinTLSVersion: tls.VersionTLS13})
		c := tlsClient(pki.pool(), func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 })
		if _, err := sendReview(t, c, s.Addr()); err == nil {
			t.Fatal("a TLS 1.2 client was served with a 1.3 minimum")
		}
	})
	t.Run("HTTP/2 only when enabled", func(t *testing.T) {
		s, _, _ := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: webhookHandler(t), EnableHTTP2: true})
		resp, err := sendReview(t, tlsClient(pki.pool()), s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Fatalf("protocol = %s, want HTTP/2 when enabled", resp.Proto)
		}
	})
}

func TestServerReloadsRotatedCertificate(t *testing.T) {
	pki := newTestPKI(t)
	reg := prometheus.NewRegistry()
	metrics, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: webhookHandler(t), Metrics: metrics, CertPollInterval: 100 * time.Millisecond})
	served := func() *x509.Certificate {
		conn, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: pki.pool(), ServerName: "127.0.0.1"})
		if err != nil {
			t.Fatalf("handshake: %v", err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0]
	}
	first := served()
	next := pki.rotate(t)
	if next.SerialNumber.Cmp(first.SerialNumber) == 0 {
		t.Fatal("rotation issued the same serial")
	}
	waitFor(t, "the rotated certificate to be served", func() bool { return served().SerialNumber.Cmp(next.SerialNumber) == 0 })
}

func TestServerVerifiesClientsWithTheClientCA(t *testing.T) {
	pki := newTestPKI(t)
	clientCA, err := certs.NewCA("clients", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "client-ca.crt")
	if err := os.WriteFile(caFile, clientCA.CertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _, _ := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), ClientCAFile: caFile, Handler: webhookHandler(t)})

	if _, err := sendReview(t, tlsClient(pki.pool()), s.Addr()); err == nil {
		t.Fatal("a client without a certificate was served")
	}
	stranger, err := certs.NewCA("stranger", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for name, ca := range map[string]*certs.CA{"known CA": clientCA, "unknown CA": stranger} {
		kp, err := ca.IssueClient("kube-apiserver", nil, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := kp.TLSCertificate()
		if err != nil {
			t.Fatal(err)
		}
		c := tlsClient(pki.pool(), func(c *tls.Config) { c.Certificates = []tls.Certificate{cert} })
		resp, err := sendReview(t, c, s.Addr())
		if name == "known CA" {
			if err != nil {
				t.Fatalf("client signed by the client CA refused: %v", err)
			}
			resp.Body.Close()
		} else if err == nil {
			resp.Body.Close()
			t.Fatal("client signed by an unknown CA was served")
		}
	}
	if err := s.ready(context.Background()); err != nil {
		t.Fatalf("readiness with a client CA: %v", err)
	}
}

// blockingHandler holds requests until released, to have requests in flight during shutdown.
type blockingHandler struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockingHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	b.entered <- struct{}{}
	<-b.release
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("done"))
}

func TestServerDrainsGracefully(t *testing.T) {
	pki := newTestPKI(t)
	h := &blockingHandler{entered: make(chan struct{}, 4), release: make(chan struct{})}
	var logs lockedbuf.Buffer
	s, cancel, done := startServer(t, ServerOptions{
		CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: h,
		HealthAddr: "127.0.0.1:0", DrainDelay: 500 * time.Millisecond, GracePeriod: 10 * time.Second,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	c := tlsClient(pki.pool())
	healthURL := "http://" + s.HealthAddr().String() + "/readyz"
	if code, body := get(t, http.DefaultClient, healthURL); code != 200 {
		t.Fatalf("/readyz before shutdown = %d %q", code, body)
	}

	var wg sync.WaitGroup
	results := make(chan string, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Post("https://"+s.Addr().String()+"/slow", "application/json", strings.NewReader("{}"))
			if err != nil {
				results <- "error: " + err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			results <- string(b)
		}()
	}
	<-h.entered
	<-h.entered

	cancel()
	waitFor(t, "readiness to fail while draining", func() bool {
		resp, err := http.Get(healthURL)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	close(h.release)
	wg.Wait()
	close(results)
	for r := range results {
		if r != "done" {
			t.Fatalf("in-flight request got %q, want it to complete", r)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("Run after a clean drain: %v", err)
	}
	if _, err := net.DialTimeout("tcp", s.Addr().String(), time.Second); err == nil {
		t.Fatal("listener still accepts connections after the drain")
	}
	// Durations are logged as people write them, not in nanoseconds.
	if want := `"msg":"webhook server draining","drainDelay":"500ms","gracePeriod":"10s"`; !strings.Contains(logs.String(), want) {
		t.Errorf("the drain's log record lacks %s:\n%s", want, logs.String())
	}
}

func TestServerCutsOffRequestsAfterTheGracePeriod(t *testing.T) {
	pki := newTestPKI(t)
	h := &blockingHandler{entered: make(chan struct{}, 1), release: make(chan struct{})}
	defer close(h.release)
	s, cancel, done := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: h, GracePeriod: 200 * time.Millisecond})
	go func() {
		resp, err := tlsClient(pki.pool()).Post("https://"+s.Addr().String()+"/slow", "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-h.entered
	cancel()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "grace period") {
		t.Fatalf("Run = %v, want an error about the grace period", err)
	}
}

func TestNewServerRequiresFilesAndHandler(t *testing.T) {
	for _, opts := range []ServerOptions{{Handler: http.NotFoundHandler()}, {CertFile: "c", KeyFile: "k"}} {
		if _, err := NewServer(opts); err == nil {
			t.Errorf("NewServer(%+v) succeeded", opts)
		}
	}
	s, err := NewServer(ServerOptions{CertFile: "/nonexistent/tls.crt", KeyFile: "/nonexistent/tls.key", Handler: http.NotFoundHandler(), Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/tls.crt") {
		t.Fatalf("Run with missing certificate files = %v, want an error naming the file", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatal("unexpected cancellation")
	}
}

// A client may open a connection and never send a request on it (kube-apiserver's connection
// pool does). net/http only treats such a connection as idle after 5 s; the drain must not wait
// for it, nor count it as a request in flight.
func TestServerDrainClosesConnectionsThatNeverSentARequest(t *testing.T) {
	pki := newTestPKI(t)
	s, cancel, done := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: webhookHandler(t), GracePeriod: 3 * time.Second})
	conn, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: pki.pool(), ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v: an unused connection held the drain past the grace period", err)
	}
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Fatal("the unused connection is still open after the drain")
	}
}

// A connection accepted just before the listener closes must still get its request answered,
// even when the request is sent after the listener closed: kube-apiserver may have opened the
// connection moments before, and dropping the request would apply its failurePolicy.
func TestServerDrainAnswersARequestOnAConnectionAcceptedBeforeTheListenerClosed(t *testing.T) {
	tests := []struct {
		name string
		// drainDelay is how long the listener stays open after the drain starts; the client
		// connects at once.
		drainDelay time.Duration
		// handshakeAfterClose delays the TLS handshake until after the listener closed (a
		// loaded client or server); otherwise it completes as the connection opens.
		handshakeAfterClose bool
		// sendAfterClose is how long after the listener closed the request is written.
		sendAfterClose time.Duration
	}{
		{name: "request just after the close", drainDelay: 300 * time.Millisecond},
		// The handshake was done long before the close: the client still gets most of a
		// second after the close to write its request.
		{name: "handshake long before the close", drainDelay: 1500 * time.Millisecond, sendAfterClose: 600 * time.Millisecond},
		// A handshake in progress is a request on its way, however long it takes.
		{name: "handshake after the close", drainDelay: 300 * time.Millisecond, handshakeAfterClose: true, sendAfterClose: 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pki := newTestPKI(t)
			s, cancel, done := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: webhookHandler(t),
				DrainDelay: tt.drainDelay, GracePeriod: 10 * time.Second})
			cancel()
			raw, err := net.DialTimeout("tcp", s.Addr().String(), 5*time.Second)
			if err != nil {
				t.Fatalf("connecting during the drain delay: %v", err)
			}
			conn := tls.Client(raw, &tls.Config{RootCAs: pki.pool(), ServerName: "127.0.0.1"})
			defer conn.Close()
			if !tt.handshakeAfterClose {
				if err := conn.Handshake(); err != nil {
					t.Fatalf("TLS handshake during the drain delay: %v", err)
				}
			}
			waitFor(t, "the listener to close", func() bool {
				c, err := net.DialTimeout("tcp", s.Addr().String(), time.Second)
				if err == nil {
					c.Close()
					return false
				}
				return true
			})
			time.Sleep(tt.sendAfterClose)
			req, err := http.NewRequest(http.MethodPost, "https://"+s.Addr().String()+"/validate-core-v1-pod", bytes.NewReader(reviewJSON(t, "admission.k8s.io/v1", podCreateRequest())))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if err := req.Write(conn); err != nil {
				t.Fatalf("writing the request: %v", err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), req)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !resp.Close {
				t.Fatalf("answer %d (close %v), want 200 with Connection: close", resp.StatusCode, resp.Close)
			}
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
		})
	}
}

// A client that sends its headers and then trickles its body is cut off by ReadTimeout instead
// of holding the connection.
func TestServerCutsOffATricklingBody(t *testing.T) {
	pki := newTestPKI(t)
	s, _, _ := startServer(t, ServerOptions{CertFile: pki.certFile(), KeyFile: pki.keyFile(), Handler: webhookHandler(t), ReadTimeout: 500 * time.Millisecond})
	conn, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: pki.pool(), ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST /validate-core-v1-pod HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	// Trickle far longer than the timeout; the server must stop waiting well before we finish.
	start := time.Now()
	for i := 0; i < 100; i++ {
		if _, err := conn.Write([]byte(" ")); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
		if time.Since(start) > 5*time.Second {
			break
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if err == nil && !strings.Contains(string(buf[:n]), "400") && !strings.Contains(string(buf[:n]), "413") {
		t.Fatalf("the trickling client got %q, want the connection cut off or a 4xx", buf[:n])
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the server still waits for the trickling body")
	}
}
