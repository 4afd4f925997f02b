package callout

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"
)

// ErrNoCertificates is NewClient's error for a CA bundle with no PEM certificate in it; callers
// word it as their users expect.
var ErrNoCertificates = errors.New("the CA bundle contains no PEM-encoded certificate")

// ClientOptions say how to reach one TLS identity.
type ClientOptions struct {
	// CABundle verifies the server's certificate; empty for the system's roots.
	CABundle []byte
	// ServerName is the name the certificate must hold; empty to verify the URL's host.
	ServerName string
	// Dial connects to the server; default a net.Dialer with DialTimeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// DialTimeout bounds connecting when Dial is not given.
	DialTimeout time.Duration
	// HTTP2 allows HTTP/2. Without it calls use HTTP/1.1, so that concurrent calls spread over a
	// Service's endpoints instead of multiplexing onto one replica (kubernetes/kubernetes#75791).
	HTTP2 bool
	// Proxy chooses a proxy per request; default none.
	Proxy func(*http.Request) (*url.URL, error)
	// MaxIdleConnsPerHost is how many idle connections are kept per host.
	MaxIdleConnsPerHost int
	// Timeout caps every call, whatever its context allows; zero for none.
	Timeout time.Duration
}

// NewClient builds the HTTPS client for one identity: TLS 1.2 or later, redirects refused.
func NewClient(opts ClientOptions) (*http.Client, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: opts.ServerName}
	if len(opts.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(opts.CABundle) {
			return nil, ErrNoCertificates
		}
		tlsConfig.RootCAs = pool
	}
	dial := opts.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: opts.DialTimeout, KeepAlive: 30 * time.Second}).DialContext
	}
	transport := &http.Transport{
		Proxy:               opts.Proxy,
		DialContext:         dial,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: opts.MaxIdleConnsPerHost,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   opts.HTTP2,
	}
	if !opts.HTTP2 {
		tlsConfig.NextProtos = []string{"http/1.1"}
	}
	return &http.Client{Transport: transport, Timeout: opts.Timeout, CheckRedirect: RefuseRedirects}, nil
}

// RefuseRedirects hands a 3xx answer back instead of following it: a webhook or extension must
// not be able to point the caller, and what it sends, at another address (CVE-2020-8561).
// kube-apiserver follows redirects; this is a deliberate difference.
func RefuseRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// WithTimeout tells the server how long the caller will wait, as kube-apiserver does:
// ?timeout=<N>s, the time left rounded up to whole seconds (at least one second).
func WithTimeout(u *url.URL, left time.Duration) *url.URL {
	seconds := max((left+time.Second-1)/time.Second, 1)
	out := *u
	q := out.Query()
	q.Set("timeout", (seconds * time.Second).String())
	out.RawQuery = q.Encode()
	return &out
}
