package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

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

// connTracker remembers connections that have not yet sent a request, and whether their TLS
// handshake is done. net/http's Shutdown only treats such a connection as idle after 5 s, and
// clients do keep them: kube-apiserver's connection pool opens connections it may never use.
// Closing them lets a drain end as soon as the requests in flight are done. A connection still in
// its handshake is a request on its way (on a loaded node a handshake can take a while) and is
// never closed as unused; net/http bounds the handshake by the read-header timeout.
type connTracker struct {
	mu sync.Mutex
	// unused is keyed by the connection below TLS, which is all a handshake callback sees.
	unused map[net.Conn]*unusedConn
}

type unusedConn struct {
	conn net.Conn
	// handshakeDone is when the TLS handshake completed; zero while it runs.
	handshakeDone time.Time
}

// track is the http.Server's ConnState hook.
func (t *connTracker) track(c net.Conn, state http.ConnState) {
	key := c
	if tc, ok := c.(*tls.Conn); ok {
		key = tc.NetConn()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if state == http.StateNew {
		if t.unused == nil {
			t.unused = map[net.Conn]*unusedConn{}
		}
		t.unused[key] = &unusedConn{conn: c}
		return
	}
	delete(t.unused, key)
}

// handshakeDone records that the connection below TLS completed its handshake.
func (t *connTracker) handshakeDone(raw net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if u, ok := t.unused[raw]; ok && u.handshakeDone.IsZero() {
		u.handshakeDone = time.Now()
	}
}

// count is how many connections have not sent a request yet.
func (t *connTracker) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.unused)
}

// closeUnused closes the connections whose handshake is done and that have sent no request for
// age since the later of the handshake and notBefore (when the listener closed): every
// connection accepted before the close gets age to send its request after it.
func (t *connTracker) closeUnused(age time.Duration, notBefore time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key, u := range t.unused {
		if u.handshakeDone.IsZero() {
			continue
		}
		quietSince := u.handshakeDone
		if notBefore.After(quietSince) {
			quietSince = notBefore
		}
		if time.Since(quietSince) >= age {
			u.conn.Close()
			delete(t.unused, key)
		}
	}
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

// Run listens (unless Listen was called) and serves until ctx is done, then drains: /readyz
// fails, keep-alives stop, after DrainDelay the listener closes and in-flight requests get
// GracePeriod to finish. It returns nil after a clean drain.
func (s *Server) Run(ctx context.Context) error {
	if s.Addr() == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	// The watchers outlive ctx: requests in flight during the drain still need certificates.
	watchCtx, stopWatching := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWatching()
	if err := s.certs.Start(watchCtx); err != nil {
		s.closeListeners()
		return fmt.Errorf("webhook server: %w", err)
	}
	if s.clientCA != nil {
		if err := s.clientCA.Start(watchCtx); err != nil {
			s.closeListeners()
			return fmt.Errorf("webhook server: client CA: %w", err)
		}
	}

	health := s.healthMux()
	mux := http.NewServeMux()
	mux.Handle("/", s.opts.Handler)
	if s.healthListener == nil {
		mux.Handle("/healthz", health)
		mux.Handle("/readyz", health)
		mux.Handle("/metrics", health)
	}
	errorLog := slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn)
	tlsServer := &http.Server{
		Handler:           mux,
		TLSConfig:         s.tlsConfig(),
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          errorLog,
		ConnState:         s.unused.track,
	}
	if !s.opts.EnableHTTP2 {
		// A non-nil, empty map keeps net/http from adding HTTP/2.
		tlsServer.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	servers := []*http.Server{tlsServer}
	errs := make(chan error, 2)
	go func() { errs <- tlsServer.ServeTLS(s.tlsListener, "", "") }()
	if s.healthListener != nil {
		healthServer := &http.Server{Handler: health, ReadHeaderTimeout: s.opts.ReadHeaderTimeout, ErrorLog: errorLog}
		servers = append(servers, healthServer)
		go func() { errs <- healthServer.Serve(s.healthListener) }()
	}
	s.serving.Store(true)
	s.logger.Info("webhook server started", "addr", s.tlsListener.Addr().String(), "healthAddr", addrString(s.HealthAddr()))

	select {
	case err := <-errs:
		s.serving.Store(false)
		for _, srv := range servers {
			srv.Close()
		}
		return fmt.Errorf("webhook server: %w", err)
	case <-ctx.Done():
	}
	return s.drain(servers)
}

// unusedConnectionAge is how long, after the listener closed and after its TLS handshake, a
// connection accepted before the close may wait without a request before the drain closes it: a
// client that dialed to send a request writes it at once.
const unusedConnectionAge = time.Second

// drain shuts the servers down in the order that loses no request: not-ready first, then close
// the listener, then wait for in-flight requests.
func (s *Server) drain(servers []*http.Server) error {
	s.draining.Store(true)
	for _, srv := range servers {
		srv.SetKeepAlivesEnabled(false)
	}
	s.logger.Info("webhook server draining", "drainDelay", s.opts.DrainDelay.String(), "gracePeriod", s.opts.GracePeriod.String())
	if s.opts.DrainDelay > 0 {
		time.Sleep(s.opts.DrainDelay)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.GracePeriod)
	defer cancel()
	// Stop accepting, then let every connection accepted so far either send its request or be
	// closed as unused, and only then call Shutdown: net/http drops a request it reads after
	// Shutdown has begun, even on a connection it had already accepted.
	s.mu.Lock()
	s.tlsListener.Close()
	s.mu.Unlock()
	closedAt := time.Now()
	for s.unused.count() > 0 && ctx.Err() == nil {
		s.unused.closeUnused(unusedConnectionAge, closedAt)
		time.Sleep(20 * time.Millisecond)
	}
	var result error
	for _, srv := range servers {
		// The TLS listener is closed already; Shutdown may find it so if Serve has not returned yet.
		if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, net.ErrClosed) {
			srv.Close()
			result = fmt.Errorf("webhook server: requests still in flight after the %s grace period were cut off: %w", s.opts.GracePeriod, err)
		}
	}
	s.serving.Store(false)
	s.logger.Info("webhook server stopped")
	return result
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

func (s *Server) healthMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writePlain(w, http.StatusOK, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := s.ready(r.Context()); err != nil {
			writePlain(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
		writePlain(w, http.StatusOK, "ok")
	})
	if s.opts.Gatherer != nil {
		mux.Handle("/metrics", promhttp.HandlerFor(s.opts.Gatherer, promhttp.HandlerOpts{}))
	}
	return mux
}

// ready is true when the server serves, is not draining, and a TLS handshake with its own
// listener presents a certificate that is currently valid: a listener that accepts but cannot
// complete a handshake is not ready to admit anything.
func (s *Server) ready(ctx context.Context) error {
	if s.draining.Load() {
		return errors.New("draining")
	}
	if !s.serving.Load() {
		return errors.New("not serving yet")
	}
	addr := loopbackAddr(s.Addr())
	dialer := &tls.Dialer{
		NetDialer: &net.Dialer{Timeout: time.Second},
		Config: &tls.Config{
			// The self-dial checks that the listener completes a handshake with the certificate it
			// serves; trust is the caller's business, so chain verification is skipped here and the
			// validity period is checked below.
			InsecureSkipVerify: true, //nolint:gosec // see above
			MinVersion:         s.opts.MinTLSVersion,
			NextProtos:         []string{"http/1.1"},
		},
	}
	var presented *x509.Certificate
	dialer.Config.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) > 0 {
			presented, _ = x509.ParseCertificate(raw[0])
		}
		return nil
	}
	dialCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := dialer.DialContext(dialCtx, "tcp", addr)
	if conn != nil {
		conn.Close()
	}
	// With a client CA the handshake is refused for want of a client certificate, after the
	// server presented its own: that is enough to know it serves.
	if presented == nil {
		if err == nil {
			err = errors.New("no certificate presented")
		}
		return fmt.Errorf("TLS self-check on %s failed: %w", addr, err)
	}
	now := time.Now()
	if now.After(presented.NotAfter) {
		return fmt.Errorf("serving certificate expired at %s", presented.NotAfter.UTC().Format(time.RFC3339))
	}
	if now.Before(presented.NotBefore) {
		return fmt.Errorf("serving certificate is not valid before %s", presented.NotBefore.UTC().Format(time.RFC3339))
	}
	return nil
}

// loopbackAddr turns a wildcard listen address into one the server can dial itself on.
func loopbackAddr(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	ip := tcp.IP
	if ip == nil || ip.IsUnspecified() {
		if ip.To4() == nil && ip != nil {
			ip = net.IPv6loopback
		} else {
			ip = net.IPv4(127, 0, 0, 1)
		}
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(tcp.Port))
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

func writePlain(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body + "\n"))
}
