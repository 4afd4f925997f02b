package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// healthMux serves /healthz (the process answers), /readyz (ready, below: what a load balancer
// and the drain go by) and, with a Gatherer, /metrics.
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

func writePlain(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body + "\n"))
}
