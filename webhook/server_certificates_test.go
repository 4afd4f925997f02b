package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/admitkit/admit/certs"
)

// issue returns a serving certificate for 127.0.0.1 signed by pki's CA, in memory.
func (p *testPKI) issue(t *testing.T, validFor time.Duration) *tls.Certificate {
	t.Helper()
	kp, err := p.ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: validFor})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	return &cert
}

// servedLeaf is the certificate the server presents on a new connection.
func servedLeaf(t *testing.T, s *Server, pool *x509.CertPool) *x509.Certificate {
	t.Helper()
	conn, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

func certificateExpiry(t *testing.T, reg *prometheus.Registry) time.Time {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "admit_webhook_certificate_expiration_timestamp_seconds" {
			return time.Unix(int64(f.GetMetric()[0].GetGauge().GetValue()), 0)
		}
	}
	t.Fatal("no certificate expiry metric")
	return time.Time{}
}

// A certificate held in memory is served as it is, without files, and its expiry recorded.
func TestServerServesACertificateFromMemory(t *testing.T) {
	pki := newTestPKI(t)
	cert := pki.issue(t, 2*time.Hour)
	reg := prometheus.NewRegistry()
	metrics, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := startServer(t, ServerOptions{Certificate: cert, Handler: webhookHandler(t), Metrics: metrics})
	resp, err := sendReview(t, tlsClient(pki.pool()), s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	leaf := servedLeaf(t, s, pki.pool())
	if resp.StatusCode != http.StatusOK || !leaf.Equal(mustLeaf(t, cert)) {
		t.Fatalf("review: %d, served serial %s", resp.StatusCode, leaf.SerialNumber)
	}
	if got := certificateExpiry(t, reg); !got.Equal(leaf.NotAfter.Truncate(time.Second)) {
		t.Errorf("expiry metric %s, want %s", got, leaf.NotAfter)
	}
}

// GetCertificate is asked for each handshake: a certificate it changes is served from the next
// connection on, and the expiry follows it.
func TestServerAsksGetCertificateForEachHandshake(t *testing.T) {
	pki := newTestPKI(t)
	first, second := pki.issue(t, time.Hour), pki.issue(t, 3*time.Hour)
	var current atomic.Pointer[tls.Certificate]
	current.Store(first)
	reg := prometheus.NewRegistry()
	metrics, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := startServer(t, ServerOptions{Handler: webhookHandler(t), Metrics: metrics,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return current.Load(), nil }})
	for _, cert := range []*tls.Certificate{first, second} {
		current.Store(cert)
		want := mustLeaf(t, cert)
		if got := servedLeaf(t, s, pki.pool()); !got.Equal(want) {
			t.Fatalf("served serial %s, want %s", got.SerialNumber, want.SerialNumber)
		}
		if got := certificateExpiry(t, reg); !got.Equal(want.NotAfter.Truncate(time.Second)) {
			t.Errorf("expiry metric %s, want %s", got, want.NotAfter)
		}
	}
}

func mustLeaf(t *testing.T, cert *tls.Certificate) *x509.Certificate {
	t.Helper()
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// The serving certificate comes from exactly one source.
func TestNewServerTakesOneCertificateSource(t *testing.T) {
	cert := newTestPKI(t).issue(t, time.Hour)
	get := func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return cert, nil }
	tests := []struct {
		name string
		opts ServerOptions
		want string
	}{
		{"none", ServerOptions{}, "webhook server: a serving certificate is required: CertFile and KeyFile, Certificate, or GetCertificate"},
		{"two", ServerOptions{Certificate: cert, GetCertificate: get}, "webhook server: give the serving certificate one way: CertFile and KeyFile, Certificate, or GetCertificate"},
		{"files and memory", ServerOptions{CertFile: "c", KeyFile: "k", Certificate: cert}, "webhook server: give the serving certificate one way"},
		{"a file without its key", ServerOptions{CertFile: "c"}, "webhook server: a certificate file and a key file are required"},
		{"a certificate without a key", ServerOptions{Certificate: &tls.Certificate{Certificate: cert.Certificate}}, "webhook server: the serving certificate: it needs a certificate chain and a private key"},
		{"a certificate that does not parse", ServerOptions{Certificate: &tls.Certificate{Certificate: [][]byte{[]byte("junk")}, PrivateKey: cert.PrivateKey}}, "webhook server: the serving certificate: parsing its leaf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Handler = http.NotFoundHandler()
			if _, err := NewServer(tt.opts); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to start with %q", err, tt.want)
			}
		})
	}
}
