package servers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/admitkit/admit/certs"
)

// Kind names a server under test.
type Kind string

// The servers compared.
const (
	Admit             Kind = "admit"
	ControllerRuntime Kind = "controller-runtime"
	Handwritten       Kind = "hand-written"
	Floor             Kind = "floor"
)

// Kinds lists every server, in the order reports show them.
func Kinds() []Kind { return []Kind{Admit, Handwritten, ControllerRuntime, Floor} }

// ParseKind returns the Kind named s.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown server %q: want one of %v", s, Kinds())
}

// MutatePath is where every server answers the Pod defaulter, the path admit generates for it.
const MutatePath = "/mutate-core-v1-pod"

// Running is a server that was started; Stop it when done.
type Running struct {
	// URL is the server's base URL, https://127.0.0.1:<port>.
	URL  string
	stop func() error
}

// Stop shuts the server down and returns what its serving loop returned.
func (r *Running) Stop() error { return r.stop() }

// Start runs the server of the given kind on a free loopback port with the certificate WriteTLS
// put in certDir, and returns once it accepts TLS connections.
func Start(ctx context.Context, kind Kind, certDir string) (*Running, error) {
	var (
		running *Running
		err     error
	)
	switch kind {
	case Admit:
		running, err = startAdmit(ctx, certDir)
	case ControllerRuntime:
		running, err = startControllerRuntime(ctx, certDir)
	case Handwritten:
		running, err = startHandwritten(ctx, certDir)
	case Floor:
		running, err = startFloor(ctx, certDir)
	default:
		_, err = ParseKind(string(kind))
	}
	if err != nil {
		return nil, fmt.Errorf("starting the %s server: %w", kind, err)
	}
	caPEM, err := os.ReadFile(filepath.Join(certDir, certs.CAFileName))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("reading the CA: %w", err), running.Stop())
	}
	if err := waitForTLS(ctx, running.URL, caPEM); err != nil {
		return nil, errors.Join(fmt.Errorf("%s server: %w", kind, err), running.Stop())
	}
	return running, nil
}

// WriteTLS creates a CA and a serving certificate for 127.0.0.1 in dir, with the file names of a
// kubernetes.io/tls Secret (ca.crt, tls.crt, tls.key) that admit and controller-runtime both read,
// and returns the CA certificate in PEM.
func WriteTLS(dir string) ([]byte, error) {
	ca, err := certs.NewCA("admit-bench", 24*time.Hour)
	if err != nil {
		return nil, fmt.Errorf("creating the benchmark CA: %w", err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: 24 * time.Hour})
	if err != nil {
		return nil, fmt.Errorf("issuing the serving certificate: %w", err)
	}
	if err := certs.WriteFiles(dir, ca, kp); err != nil {
		return nil, fmt.Errorf("writing the certificates: %w", err)
	}
	return ca.CertPEM(), nil
}

// ClientTLS is the TLS configuration a client of the servers uses: it trusts caPEM and offers
// HTTP/1.1 only.
func ClientTLS(caPEM []byte) (*tls.Config, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("the CA bundle holds no PEM certificate")
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}, nil
}

// serverTLS is the configuration every server under test shares: TLS 1.2 or later, HTTP/1.1.
func serverTLS(certDir string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, certs.CertFileName), filepath.Join(certDir, certs.KeyFileName))
	if err != nil {
		return nil, fmt.Errorf("loading the serving certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}, nil
}

// waitForTLS dials url until a TLS handshake succeeds, for at most ten seconds.
func waitForTLS(ctx context.Context, url string, caPEM []byte) error {
	cfg, err := ClientTLS(caPEM)
	if err != nil {
		return err
	}
	host := url[len("https://"):]
	dialer := &tls.Dialer{NetDialer: &net.Dialer{Timeout: time.Second}, Config: cfg}
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := dialer.DialContext(ctx, "tcp", host)
		if err == nil {
			return conn.Close()
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("no TLS handshake with %s within 10s: %w", host, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeLoopbackPort returns a port on 127.0.0.1 that was free a moment ago, for servers that take
// a port number rather than a listener.
func freeLoopbackPort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
