package extension_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/admitkit/admit/extension"
	"github.com/admitkit/admit/internal/lockedbuf"
)

// upgradeHook is the hook the tests call.
func upgradeHook() extension.Hook {
	return extension.Hook{Group: "hooks.test.admitkit.io", Version: "v1alpha1", Name: "BeforeUpgrade"}
}

type upgradeRequest struct {
	Version string `json:"version"`
}

type upgradeResponse struct {
	extension.CommonResponse
	Note string `json:"note,omitempty"`
}

// testCA is a CA and a serving certificate for 127.0.0.1 and the given DNS names, so the tests
// verify TLS for real instead of skipping verification.
type testCA struct {
	bundle  []byte // PEM of the CA certificate: the caBundle
	serving tls.Certificate
}

func newTestCA(t testing.TB, dnsNames ...string) *testCA {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "extension test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "extension test server"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     dnsNames,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{
		bundle:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		serving: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
	}
}

// serve starts a TLS server on 127.0.0.1 with the CA's serving certificate; it stops at cleanup.
func (ca *testCA) serve(t testing.TB, handler http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(handler)
	// Aborted handshakes (a refused certificate, a dial the client no longer needs) are part of
	// the tests; the server logging them would only bury real failures.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.serving}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// answer replies 200 with resp as JSON.
func answer(resp any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}
}

func success(retryAfter int32) http.HandlerFunc {
	return answer(extension.CommonResponse{Status: extension.StatusSuccess, RetryAfterSeconds: retryAfter})
}

func failure(message string, retryAfter int32) http.HandlerFunc {
	return answer(extension.CommonResponse{Status: extension.StatusFailure, Message: message, RetryAfterSeconds: retryAfter})
}

// raw replies with a fixed status and body.
func raw(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// hits counts requests per path and remembers the ?timeout= each carried.
type hits struct {
	mu       sync.Mutex
	count    map[string]int
	timeouts map[string]string
}

func (h *hits) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		if h.count == nil {
			h.count, h.timeouts = map[string]int{}, map[string]string{}
		}
		h.count[r.URL.Path]++
		h.timeouts[r.URL.Path] = r.URL.Query().Get("timeout")
		h.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (h *hits) of(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count[path]
}

func (h *hits) timeoutOf(path string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.timeouts[path]
}

// checkNoGoroutineLeak fails t when, after every later cleanup (servers closed, caller closed),
// more goroutines run than before the test. Register it first so it runs last.
func checkNoGoroutineLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			now := runtime.NumGoroutine()
			if now <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutine leak: %d goroutines before the test, %d after\n%s", before, now, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// newCaller returns a Caller closed at cleanup.
func newCaller(t testing.TB, registry *extension.Registry, opts extension.Options) *extension.Caller {
	t.Helper()
	caller, err := extension.NewCaller(registry, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(caller.Close)
	return caller
}

// register registers extensions in a fresh registry.
func register(t testing.TB, extensions ...extension.Extension) *extension.Registry {
	t.Helper()
	registry := extension.NewRegistry()
	if err := registry.Register(extensions...); err != nil {
		t.Fatal(err)
	}
	return registry
}

// urlExtension is an extension of upgradeHook at base+path trusting ca.
func urlExtension(name, url string, ca *testCA, policy extension.FailurePolicy) extension.Extension {
	return extension.Extension{
		Name:          name,
		Hook:          upgradeHook(),
		ClientConfig:  extension.ClientConfig{URL: url, CABundle: ca.bundle},
		FailurePolicy: policy,
	}
}

// logRecords splits what a slog handler wrote into its records.
func logRecords(b *lockedbuf.Buffer) []string {
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}

// loopbackResolver resolves every service to the test server at serverURL, keeping its path.
func loopbackResolver(t testing.TB, serverURL string) extension.ServiceResolver {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	return extension.ServiceResolver(func(_ context.Context, svc extension.ServiceReference) (*url.URL, error) {
		return &url.URL{Scheme: "https", Host: u.Host, Path: svc.Path}, nil
	})
}
