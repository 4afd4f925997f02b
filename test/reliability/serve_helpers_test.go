package reliability

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/internal/lockedbuf"
)

// admitPath is the admit binary the serving scenarios run, set by TestMain before any test
// starts (see internal/testbin): no test's deadline includes building it.
var admitPath string

// admitBinary returns admitPath, failing t when TestMain did not provide one (a -run pattern
// that TestMain judged to need no binary).
func admitBinary(t testing.TB) string {
	t.Helper()
	if admitPath == "" {
		t.Fatal("no admit binary: TestMain builds it only when TestReliability runs")
	}
	return admitPath
}

// runAdmit runs an admit command to completion and returns its output and exit code.
func runAdmit(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, admitBinary(t), args...)
	cmd.Env = admitEnv()
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running admit %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code
}

// admitEnv is the environment admit runs in: this process's, without ADMIT_ settings that would
// change which webhooks run, plus the image mirror the scenarios send Pods to.
func admitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ADMIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "ADMIT_IMAGE_MIRRORS=docker.io="+mirrorRegistry)
}

// serveProcess is a running `admit serve`.
type serveProcess struct {
	cmd *exec.Cmd
	// addr is the TLS address of the webhooks; healthURL serves /healthz, /readyz and /metrics.
	addr      string
	healthURL string
	logs      *lockedbuf.Buffer
	// exited is closed when the process has ended; exitCode is valid then.
	exited   chan struct{}
	exitCode int
}

// startServe starts `admit serve` on free loopback ports with the certificate in certDir and waits
// until /readyz answers 200. The process is stopped when the test ends.
func startServe(t *testing.T, certDir string, args ...string) *serveProcess {
	t.Helper()
	args = append([]string{"serve", "--addr", "127.0.0.1:0", "--health-addr", "127.0.0.1:0", "--cert-dir", certDir}, args...)
	cmd := exec.Command(admitBinary(t), args...)
	cmd.Env = admitEnv()
	logs := &lockedbuf.Buffer{}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting admit serve: %v", err)
	}
	p := &serveProcess{cmd: cmd, logs: logs, exited: make(chan struct{})}
	started := make(chan startedEvent, 1)
	go p.readLogs(stderr, started)
	go func() {
		_ = cmd.Wait()
		p.exitCode = cmd.ProcessState.ExitCode()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t) })

	select {
	case ev := <-started:
		p.addr, p.healthURL = ev.Addr, "http://"+ev.HealthAddr
	case <-p.exited:
		t.Fatalf("admit serve exited with code %d before serving:\n%s", p.exitCode, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("admit serve did not start within 30s:\n%s", logs)
	}
	waitFor(t, 30*time.Second, "admit serve to be ready", func() error {
		code, err := p.get("/readyz")
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("/readyz answered %d", code)
		}
		return err
	})
	return p
}

// startedEvent is the log record admit serve writes once it listens.
type startedEvent struct {
	Msg        string `json:"msg"`
	Addr       string `json:"addr"`
	HealthAddr string `json:"healthAddr"`
}

func (p *serveProcess) readLogs(r io.Reader, started chan<- startedEvent) {
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64<<10), 4<<20)
	for scanner.Scan() {
		line := scanner.Bytes()
		p.logs.Write(append(line, '\n'))
		var ev startedEvent
		if json.Unmarshal(line, &ev) == nil && ev.Msg == "webhook server started" {
			select {
			case started <- ev:
			default:
			}
		}
	}
}

// get fetches a path of the health listener and returns its status code.
func (p *serveProcess) get(path string) (int, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(p.healthURL + path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// metric returns the value of the sample of /metrics whose line starts with prefix (name and
// labels), or 0 when there is none.
func (p *serveProcess) metric(t *testing.T, prefix string) float64 {
	t.Helper()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(p.healthURL + "/metrics")
	if err != nil {
		t.Fatalf("scraping metrics: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return sampleValue(string(body), prefix)
}

// signal sends sig to the process.
func (p *serveProcess) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signalling admit serve: %v", err)
	}
}

// stop ends the process if it still runs: SIGTERM, then SIGKILL if it has not exited in time.
func (p *serveProcess) stop(t *testing.T) {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(45 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("admit serve did not stop within 45s of SIGTERM")
	}
}

// peakRSS is the process's peak resident set size (VmHWM), read while it runs.
func (p *serveProcess) peakRSS(t *testing.T) int64 {
	t.Helper()
	return peakRSSOf(t, fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
}

// tlsConfig trusts ca and nothing else, on HTTP/1.1.
func tlsConfig(ca *certs.CA) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Certificate())
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
}

// servingPKI is a CA and a serving certificate for 127.0.0.1 it issued.
type servingPKI struct {
	ca      *certs.CA
	serving *certs.KeyPair
}

func newServingPKI(t *testing.T) servingPKI {
	t.Helper()
	ca, err := certs.NewCA("admit reliability CA", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return servingPKI{ca: ca, serving: issueServing(t, ca)}
}

func issueServing(t *testing.T, ca *certs.CA) *certs.KeyPair {
	t.Helper()
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

// files are the keys of a kubernetes.io/tls Secret holding kp, plus ca.crt.
func (p servingPKI) files(kp *certs.KeyPair) map[string][]byte {
	return map[string][]byte{certs.CAFileName: p.ca.CertPEM(), certs.CertFileName: kp.CertPEM(), certs.KeyFileName: kp.KeyPEM()}
}

// secretVolume lays files out as the kubelet mounts a Secret: the data lives in a timestamped
// directory, "..data" is a symlink to it, and each key is a symlink through "..data". An update
// writes a new directory and swaps "..data" with a rename, the one atomic step a reader can see.
type secretVolume struct {
	dir        string
	generation int
}

func newSecretVolume(t *testing.T, files map[string][]byte) *secretVolume {
	t.Helper()
	v := &secretVolume{dir: t.TempDir()}
	if err := v.update(files); err != nil {
		t.Fatal(err)
	}
	for name := range files {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(v.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// update publishes files as the next generation and removes the previous one.
func (v *secretVolume) update(files map[string][]byte) error {
	v.generation++
	current := fmt.Sprintf("..%s_%d", time.Now().UTC().Format("2006_01_02_15_04_05"), v.generation)
	if err := os.Mkdir(filepath.Join(v.dir, current), 0o755); err != nil {
		return fmt.Errorf("secret volume: %w", err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(v.dir, current, name), data, 0o600); err != nil {
			return fmt.Errorf("secret volume: %w", err)
		}
	}
	previous, _ := os.Readlink(filepath.Join(v.dir, "..data"))
	tmp := filepath.Join(v.dir, "..data_tmp")
	if err := os.Symlink(current, tmp); err != nil {
		return fmt.Errorf("secret volume: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		return fmt.Errorf("secret volume: swapping ..data: %w", err)
	}
	if previous != "" {
		if err := os.RemoveAll(filepath.Join(v.dir, previous)); err != nil {
			return fmt.Errorf("secret volume: removing %s: %w", previous, err)
		}
	}
	return nil
}
