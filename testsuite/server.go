package testsuite

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/internal/lockedbuf"
)

// vars are the $(NAME) variables of a test file's server and resolve entries.
type vars map[string]string

// variablePattern matches $(NAME), as Kubernetes expands variables in a container's command.
var variablePattern = regexp.MustCompile(`\$\(([A-Z_]+)\)`)

// expand replaces the known variables in s; an unknown one is an error, so that a typo does not
// start a server on a literal "$(PROT)".
func (v vars) expand(s string) (string, error) {
	var unknown []string
	out := variablePattern.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		value, ok := v[name]
		if !ok {
			unknown = append(unknown, m)
			return m
		}
		return value
	})
	if len(unknown) > 0 {
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, "$("+k+")")
		}
		sort.Strings(names)
		return "", fmt.Errorf("%q: unknown variable %s (known: %s)", s, strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	return out, nil
}

// serverTLS is the throwaway CA and serving certificate of a suite's server.
type serverTLS struct {
	dir      string
	caBundle []byte
	pool     *x509.CertPool
}

// newServerTLS writes tls.crt, tls.key and ca.crt for 127.0.0.1, localhost and dnsNames (the
// resolved services' names, which calls to them verify) into a new directory under parent.
func newServerTLS(parent string, dnsNames []string) (*serverTLS, error) {
	ca, err := certs.NewCA("admit test", 24*time.Hour)
	if err != nil {
		return nil, err
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, DNSNames: append([]string{"localhost"}, dnsNames...), ValidFor: 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, "tls")
	if err := certs.WriteFiles(dir, ca, kp); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Certificate())
	return &serverTLS{dir: dir, caBundle: ca.CertPEM(), pool: pool}, nil
}

// freePort returns a port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// process is a test file's webhook server, started in its own process group.
type process struct {
	cmd    *exec.Cmd
	output lockedbuf.Buffer
	exited chan struct{}
	err    error
}

// startServer starts spec's command in dir and waits until its ready address answers.
func startServer(ctx context.Context, spec *Server, v vars, dir string, pool *x509.CertPool) (*process, error) {
	args, ready, env, err := v.command(spec)
	if err != nil {
		return nil, err
	}
	s := &process{exited: make(chan struct{})}
	s.cmd = exec.Command(args[0], args[1:]...)
	s.cmd.Dir, s.cmd.Env = dir, env
	s.cmd.Stdout, s.cmd.Stderr = &s.output, &s.output
	// Its own process group: a command such as `go run` starts the server as a child, and
	// stopping must reach it too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server %q: %w", args[0], err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx, ready, spec.ReadyTimeout, pool); err != nil {
		s.stop()
		return nil, fmt.Errorf("the server %s: %w%s", strings.Join(args, " "), err, s.outputTail())
	}
	return s, nil
}

// command is spec's command, ready address and environment with the variables expanded.
func (v vars) command(spec *Server) (args []string, ready string, env []string, err error) {
	args = make([]string, len(spec.Command))
	for i, a := range spec.Command {
		if args[i], err = v.expand(a); err != nil {
			return nil, "", nil, fmt.Errorf("server.command: %w", err)
		}
	}
	if ready, err = v.expand(spec.Ready); err != nil {
		return nil, "", nil, fmt.Errorf("server.ready: %w", err)
	}
	env = os.Environ()
	names := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		value, err := v.expand(spec.Env[k])
		if err != nil {
			return nil, "", nil, fmt.Errorf("server.env %s: %w", k, err)
		}
		env = append(env, k+"="+value)
	}
	return args, ready, env, nil
}

// waitReady polls the ready address until it answers, the server exits or timeout passes.
func (s *process) waitReady(ctx context.Context, ready string, timeout time.Duration, pool *x509.CertPool) error {
	// The readiness probe is not the webhook call: without a generated CA, the server's
	// certificate is not checked here (the webhooks' caBundle is, on every call).
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, InsecureSkipVerify: pool == nil}, //nolint:gosec // readiness only, see above
	}}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if last = probe(client, ready); last == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("exited before it was ready (%v)", s.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s: %v", timeout, last)
		}
	}
}

// probe asks the ready address once: a TCP connection, or an HTTP(S) GET answered 200.
func probe(client *http.Client, ready string) error {
	if addr, ok := strings.CutPrefix(ready, "tcp://"); ok {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
		}
		return err
	}
	resp, err := client.Get(ready)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", ready, resp.Status)
	}
	return nil
}

// stopGrace is how long a server gets to exit after SIGTERM before it is killed.
const stopGrace = 10 * time.Second

// stop asks the server's process group to stop, and kills it if it does not.
func (s *process) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(stopGrace):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
}

// outputTail is the end of the server's output, for an error message.
func (s *process) outputTail() string {
	out := strings.TrimSpace(s.output.String())
	if out == "" {
		return ""
	}
	lines := strings.Split(out, "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return "; its output:\n  " + strings.Join(lines, "\n  ")
}

// exitedEarly says whether the server exited while the cases ran, and how.
func (s *process) exitedEarly() error {
	select {
	case <-s.exited:
		var exit *exec.ExitError
		if errors.As(s.err, &exit) {
			return fmt.Errorf("the server exited with code %d while the cases ran%s", exit.ExitCode(), s.outputTail())
		}
		return fmt.Errorf("the server exited while the cases ran (%v)%s", s.err, s.outputTail())
	default:
		return nil
	}
}
