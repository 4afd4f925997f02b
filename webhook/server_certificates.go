package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/admitkit/admit/certs"
)

// certificateSource gives the server its certificate for each handshake.
type certificateSource interface {
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// Start begins what keeps the certificate current, until ctx ends.
	Start(ctx context.Context) error
}

// newCertificateSource picks the one source opts give: files (watched and reloaded), a
// certificate in memory, or a function.
func newCertificateSource(opts ServerOptions, logger *slog.Logger) (certificateSource, error) {
	files := opts.CertFile != "" || opts.KeyFile != ""
	given := 0
	for _, set := range []bool{files, opts.Certificate != nil, opts.GetCertificate != nil} {
		if set {
			given++
		}
	}
	switch {
	case given == 0:
		return nil, errors.New("a serving certificate is required: CertFile and KeyFile, Certificate, or GetCertificate")
	case given > 1:
		return nil, errors.New("give the serving certificate one way: CertFile and KeyFile, Certificate, or GetCertificate")
	case files && (opts.CertFile == "" || opts.KeyFile == ""):
		return nil, errors.New("a certificate file and a key file are required")
	case files:
		return certs.NewWatcher(opts.CertFile, opts.KeyFile, certs.WatcherOptions{
			PollInterval: opts.CertPollInterval,
			Logger:       logger,
			OnReload:     func(leaf *x509.Certificate) { opts.Metrics.SetCertificateExpiry(leaf.NotAfter) },
		}), nil
	case opts.Certificate != nil:
		cert, leaf, err := withLeaf(opts.Certificate)
		if err != nil {
			return nil, fmt.Errorf("the serving certificate: %w", err)
		}
		opts.Metrics.SetCertificateExpiry(leaf.NotAfter)
		return staticCertificate{cert: cert}, nil
	default:
		return &certificateFunc{get: opts.GetCertificate, metrics: opts.Metrics}, nil
	}
}

// withLeaf returns a copy of cert with its parsed leaf, refusing one without a certificate or
// a key.
func withLeaf(cert *tls.Certificate) (*tls.Certificate, *x509.Certificate, error) {
	if len(cert.Certificate) == 0 || cert.PrivateKey == nil {
		return nil, nil, errors.New("it needs a certificate chain and a private key")
	}
	c := *cert
	if c.Leaf == nil {
		leaf, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			return nil, nil, fmt.Errorf("parsing its leaf: %w", err)
		}
		c.Leaf = leaf
	}
	return &c, c.Leaf, nil
}

// staticCertificate is a certificate given once.
type staticCertificate struct{ cert *tls.Certificate }

func (s staticCertificate) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.cert, nil
}
func (staticCertificate) Start(context.Context) error { return nil }

// certificateFunc asks a function for each handshake's certificate, and records the expiry of
// each new certificate it returns.
type certificateFunc struct {
	get     func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	metrics *Metrics
	// last is the certificate whose expiry was recorded last, so that a handshake parses a
	// certificate only when it changed.
	last atomic.Pointer[tls.Certificate]
}

func (f *certificateFunc) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	cert, err := f.get(hello)
	if err != nil || cert == nil || f.last.Load() == cert {
		return cert, err
	}
	if f.last.Swap(cert) != cert {
		leaf := cert.Leaf
		if leaf == nil && len(cert.Certificate) > 0 {
			leaf, _ = x509.ParseCertificate(cert.Certificate[0])
		}
		if leaf != nil {
			f.metrics.SetCertificateExpiry(leaf.NotAfter)
		}
	}
	return cert, nil
}

func (*certificateFunc) Start(context.Context) error { return nil }
