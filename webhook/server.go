package webhook

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/admitkit/admit/certs"
)

// ServerOptions configure a Server. Handler and one source of the serving certificate are
// required: CertFile and KeyFile, Certificate, or GetCertificate.
type ServerOptions struct {
	// Addr is the TLS listen address; default ":9443".
	Addr string
	// CertFile and KeyFile are the serving certificate and key (PEM). They are reloaded when the
	// files change, including the symlink swap a mounted Secret does.
	CertFile, KeyFile string
	// Certificate is a serving certificate held in memory, e.g. issued by a test's throwaway
	// CA (certs.KeyPair.TLSCertificate); it never changes.
	Certificate *tls.Certificate
	// GetCertificate returns the serving certificate for each TLS handshake, for certificates
	// kept by something else (an in-process rotator, a certificate manager). Its certificate's
	// expiry is recorded in Metrics each time it changes.
	GetCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// ClientCAFile, when set, requires clients to present a certificate signed by one of its CAs;
	// the bundle is reloaded when it changes.
	ClientCAFile string
	// MinTLSVersion defaults to TLS 1.2.
	MinTLSVersion uint16
	// EnableHTTP2 offers HTTP/2. It is off by default: kube-apiserver calls webhooks over HTTP/1.1,
	// and HTTP/2 has had denial-of-service flaws (rapid reset) a webhook should not be exposed to.
	EnableHTTP2 bool
	// TLSOptions adjust the TLS configuration last (cipher suites, curve preferences...).
	TLSOptions []func(*tls.Config)
	// Handler serves the webhooks, typically a *Registry.
	Handler http.Handler
	// HealthAddr, when set, serves /healthz, /readyz and /metrics over plain HTTP on their own
	// listener; otherwise they are served on the TLS listener next to the webhooks.
	HealthAddr string
	// Gatherer is served on /metrics; nil serves no /metrics.
	Gatherer prometheus.Gatherer
	// Metrics receives the serving certificate's expiry; may be nil.
	Metrics *Metrics
	// Logger receives server events; nil discards.
	Logger *slog.Logger
	// DrainDelay is how long /readyz reports not-ready before the listener closes on shutdown, so
	// load balancers and Service endpoints stop sending new requests first. Zero closes at once;
	// a few seconds suits a cluster.
	DrainDelay time.Duration
	// GracePeriod bounds how long in-flight requests may take to finish after the listener
	// closes; default 30 s. Connections still busy then are closed.
	GracePeriod time.Duration
	// ReadHeaderTimeout (default 10 s) stops clients that send headers slowly; ReadTimeout
	// (default 30 s) bounds reading a whole request, body included, so a client that trickles
	// its body cannot hold a connection; IdleTimeout (default 90 s) closes idle keep-alive
	// connections.
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// CertPollInterval is how often certificate files are re-read even without a file event.
	CertPollInterval time.Duration
}

// Server serves webhooks over TLS with hot-reloaded certificates, health and readiness endpoints,
// metrics and a graceful drain on shutdown.
type Server struct {
	opts   ServerOptions
	logger *slog.Logger

	certs    certificateSource
	clientCA *certs.CAPoolWatcher

	mu             sync.Mutex
	tlsListener    net.Listener
	healthListener net.Listener

	serving  atomic.Bool
	draining atomic.Bool

	unused connTracker
}

// NewServer checks opts and returns a Server; nothing is read or bound until Listen or Run.
func NewServer(opts ServerOptions) (*Server, error) {
	if opts.Handler == nil {
		return nil, errors.New("webhook server: a handler is required")
	}
	if opts.Addr == "" {
		opts.Addr = ":9443"
	}
	if opts.MinTLSVersion == 0 {
		opts.MinTLSVersion = tls.VersionTLS12
	}
	if opts.GracePeriod <= 0 {
		opts.GracePeriod = 30 * time.Second
	}
	if opts.ReadHeaderTimeout <= 0 {
		opts.ReadHeaderTimeout = 10 * time.Second
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = 30 * time.Second
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 90 * time.Second
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, logger: logger}
	source, err := newCertificateSource(opts, logger)
	if err != nil {
		return nil, fmt.Errorf("webhook server: %w", err)
	}
	s.certs = source
	if opts.ClientCAFile != "" {
		s.clientCA = certs.NewCAPoolWatcher(opts.ClientCAFile, certs.CAPoolWatcherOptions{PollInterval: opts.CertPollInterval, Logger: logger})
	}
	return s, nil
}

// Listen binds the listeners so Addr can be read before serving.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tlsListener != nil {
		return errors.New("webhook server: already listening")
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("webhook server: listening on %s: %w", s.opts.Addr, err)
	}
	if s.opts.HealthAddr != "" {
		hl, err := net.Listen("tcp", s.opts.HealthAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("webhook server: listening on health address %s: %w", s.opts.HealthAddr, err)
		}
		s.healthListener = hl
	}
	s.tlsListener = ln
	return nil
}

// Addr is the bound TLS address (after Listen).
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tlsListener == nil {
		return nil
	}
	return s.tlsListener.Addr()
}

// HealthAddr is the bound health address, or nil when health is served on the TLS listener.
func (s *Server) HealthAddr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.healthListener == nil {
		return nil
	}
	return s.healthListener.Addr()
}

func (s *Server) closeListeners() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ln := range []net.Listener{s.tlsListener, s.healthListener} {
		if ln != nil {
			ln.Close()
		}
	}
}

func (s *Server) tlsConfig() *tls.Config {
	protos := []string{"http/1.1"}
	if s.opts.EnableHTTP2 {
		protos = []string{"h2", "http/1.1"}
	}
	cfg := &tls.Config{
		MinVersion:     s.opts.MinTLSVersion,
		GetCertificate: s.certs.GetCertificate,
		NextProtos:     protos,
	}
	for _, opt := range s.opts.TLSOptions {
		opt(cfg)
	}
	if s.clientCA != nil {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	base := cfg
	// A config per handshake: it tells the drain when this connection's handshake is done, and
	// picks up a rotated client CA bundle.
	return &tls.Config{
		MinVersion: base.MinVersion, NextProtos: base.NextProtos, GetCertificate: base.GetCertificate,
		GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			chosen := base
			if base.GetConfigForClient != nil {
				c, err := base.GetConfigForClient(hello)
				if err != nil {
					return nil, err
				}
				if c != nil {
					chosen = c
				}
			}
			c := chosen.Clone()
			c.GetConfigForClient = nil
			if s.clientCA != nil {
				c.ClientCAs = s.clientCA.Pool()
			}
			verify := c.VerifyConnection
			c.VerifyConnection = func(state tls.ConnectionState) error {
				if verify != nil {
					if err := verify(state); err != nil {
						return err
					}
				}
				s.unused.handshakeDone(hello.Conn)
				return nil
			}
			return c, nil
		},
	}
}
