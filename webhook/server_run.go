package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

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

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}
