package loopback

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/admitkit/admit/certs"
)

// The certificate serves 127.0.0.1, and a client trusting only the CA accepts it.
func TestCertsServeLoopback(t *testing.T) {
	dir, caPEM := Certs(t, "loopback-test")
	kp, err := tls.LoadX509KeyPair(filepath.Join(dir, certs.CertFileName), filepath.Join(dir, certs.KeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	server.TLS = &tls.Config{Certificates: []tls.Certificate{kp}}
	server.StartTLS()
	defer server.Close()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("the CA's PEM holds no certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(server.URL)
	if err != nil {
		t.Fatalf("a client trusting the CA: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
}
