package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitFor polls cond until it holds or a generous deadline passes. The deadline only
// bounds a hung test; it is not a timing assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// logRecorder is a slog.Handler that keeps every record so tests can wait for one.
type logRecorder struct {
	mu      *sync.Mutex
	records *[]string
	attrs   []slog.Attr
}

func newLogRecorder() *logRecorder {
	return &logRecorder{mu: &sync.Mutex{}, records: new([]string)}
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", r.Level, r.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&b, " %s", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s", a)
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.records = append(*h.records, b.String())
	return nil
}

func (h *logRecorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	clone := *h
	clone.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &clone
}

func (h *logRecorder) WithGroup(string) slog.Handler { return h }

// find returns the first record containing all of parts.
func (h *logRecorder) find(parts ...string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range *h.records {
		if containsAll(r, parts) {
			return r, true
		}
	}
	return "", false
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// secretVolume imitates the directory kubelet maintains for a Secret volume: the data lives
// in a timestamped directory, "..data" links to it, and each key is a link through
// "..data". An update writes a new timestamped directory and renames a new "..data" link
// over the old one, which is the only atomic step, then deletes the old directory.
type secretVolume struct {
	t       *testing.T
	dir     string
	version int
}

func newSecretVolume(t *testing.T, files map[string][]byte) *secretVolume {
	v := &secretVolume{t: t, dir: t.TempDir()}
	v.update(files)
	for name := range files {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(v.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func (v *secretVolume) path(name string) string { return filepath.Join(v.dir, name) }

func (v *secretVolume) update(files map[string][]byte) {
	t := v.t
	old, _ := os.Readlink(filepath.Join(v.dir, "..data"))
	v.version++
	tsDir := fmt.Sprintf("..2026_01_02_15_04_05.%09d", v.version)
	if err := os.Mkdir(filepath.Join(v.dir, tsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(v.dir, tsDir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(tsDir, filepath.Join(v.dir, "..data_tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(v.dir, "..data_tmp"), filepath.Join(v.dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if old != "" {
		if err := os.RemoveAll(filepath.Join(v.dir, old)); err != nil {
			t.Fatal(err)
		}
	}
}

func issueServing(t *testing.T, ca *CA, name string) *KeyPair {
	t.Helper()
	kp, err := ca.IssueServing(ServingOptions{DNSNames: []string{name}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		t.Fatalf("IssueServing: %v", err)
	}
	return kp
}

func startWatcher(t *testing.T, certFile, keyFile string, opts WatcherOptions) *Watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := NewWatcher(certFile, keyFile, opts)
	if err := w.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return w
}

func servingSerial(w *Watcher) string {
	cert, err := w.GetCertificate(nil)
	if err != nil {
		return "error: " + err.Error()
	}
	return cert.Leaf.SerialNumber.String()
}

func serialOf(kp *KeyPair) string { return kp.Certificate().SerialNumber.String() }

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestWatcherStartFailsOnUnusableFiles(t *testing.T) {
	ca := newTestCA(t)
	kp := issueServing(t, ca, "a.svc")
	other := issueServing(t, ca, "b.svc")
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cert := write("tls.crt", kp.CertPEM())
	key := write("tls.key", kp.KeyPEM())
	otherKey := write("other.key", other.KeyPEM())
	truncated := write("truncated.crt", kp.CertPEM()[:100])

	tests := []struct {
		name      string
		cert, key string
		wantErr   string
	}{
		{name: "missing certificate", cert: filepath.Join(dir, "nope.crt"), key: key, wantErr: "nope.crt: no such file or directory"},
		{name: "missing key", cert: cert, key: filepath.Join(dir, "nope.key"), wantErr: "nope.key: no such file or directory"},
		{name: "key of another certificate", cert: cert, key: otherKey, wantErr: "private key does not match public key"},
		{name: "half-written certificate", cert: truncated, key: key, wantErr: "failed to find any PEM data in certificate input"},
		{name: "empty path", cert: "", key: key, wantErr: "file path is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWatcher(tt.cert, tt.key, WatcherOptions{Logger: quietLogger()})
			err := w.Start(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Start error = %v, want it to contain %q", err, tt.wantErr)
			}
			if _, err := w.GetCertificate(nil); err == nil {
				t.Error("GetCertificate succeeded after a failed Start")
			}
			if w.Leaf() != nil {
				t.Error("Leaf is set after a failed Start")
			}
		})
	}
}

func TestWatcherFollowsSecretVolumeUpdate(t *testing.T) {
	ca := newTestCA(t)
	first, second := issueServing(t, ca, "first.svc"), issueServing(t, ca, "second.svc")
	volume := newSecretVolume(t, map[string][]byte{"tls.crt": first.CertPEM(), "tls.key": first.KeyPEM()})

	var mu sync.Mutex
	var reloaded []string
	w := startWatcher(t, volume.path("tls.crt"), volume.path("tls.key"), WatcherOptions{
		// Long enough that only file events can explain a reload within the test.
		PollInterval: time.Hour,
		Logger:       quietLogger(),
		OnReload: func(leaf *x509.Certificate) {
			mu.Lock()
			defer mu.Unlock()
			reloaded = append(reloaded, leaf.Subject.CommonName)
		},
	})
	if got, want := servingSerial(w), serialOf(first); got != want {
		t.Fatalf("serving serial %s right after Start, want %s", got, want)
	}

	volume.update(map[string][]byte{"tls.crt": second.CertPEM(), "tls.key": second.KeyPEM()})
	waitFor(t, "the second certificate to be served", func() bool { return servingSerial(w) == serialOf(second) })
	if got := w.Leaf().Subject.CommonName; got != "second.svc" {
		t.Errorf("Leaf().Subject.CommonName = %q, want second.svc", got)
	}

	// And again, now that the watched paths resolve through a different directory.
	volume.update(map[string][]byte{"tls.crt": first.CertPEM(), "tls.key": first.KeyPEM()})
	waitFor(t, "the first certificate to be served again", func() bool { return servingSerial(w) == serialOf(first) })

	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(reloaded, ","); got != "first.svc,second.svc,first.svc" {
		t.Errorf("OnReload saw %s, want first.svc,second.svc,first.svc", got)
	}
}

// TestWatcherPollsWhenNoEventArrives changes the certificate in a way inotify on the watched
// paths cannot see: the files are symlinks into a directory reached through a second
// symlink that is swapped. Only the periodic poll can notice.
func TestWatcherPollsWhenNoEventArrives(t *testing.T) {
	ca := newTestCA(t)
	first, second := issueServing(t, ca, "first.svc"), issueServing(t, ca, "second.svc")
	store := t.TempDir()
	for version, kp := range map[string]*KeyPair{"v1": first, "v2": second} {
		if err := WriteFiles(filepath.Join(store, version), ca, kp); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("v1", filepath.Join(store, "current")); err != nil {
		t.Fatal(err)
	}
	served := t.TempDir()
	for _, name := range []string{CertFileName, KeyFileName} {
		if err := os.Symlink(filepath.Join(store, "current", name), filepath.Join(served, name)); err != nil {
			t.Fatal(err)
		}
	}
	w := startWatcher(t, filepath.Join(served, CertFileName), filepath.Join(served, KeyFileName),
		WatcherOptions{PollInterval: 20 * time.Millisecond, Logger: quietLogger()})

	if err := os.Symlink("v2", filepath.Join(store, "next")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(store, "next"), filepath.Join(store, "current")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the poll to pick up the second certificate", func() bool { return servingSerial(w) == serialOf(second) })
}

func TestWatcherKeepsServingWhenReplacementIsBad(t *testing.T) {
	ca := newTestCA(t)
	first, second := issueServing(t, ca, "first.svc"), issueServing(t, ca, "second.svc")
	dir := t.TempDir()
	if err := WriteFiles(dir, ca, first); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName)
	logs := newLogRecorder()
	w := startWatcher(t, certFile, keyFile, WatcherOptions{PollInterval: time.Hour, Logger: slog.New(logs)})

	// Step by step, the way a careless rotation script replaces the pair.
	steps := []struct {
		name       string
		file       string
		data       []byte
		wantLog    []string // a record that proves the watcher has seen this step
		wantSerial string
	}{
		{
			name: "half-written certificate", file: certFile, data: second.CertPEM()[:64],
			wantLog: []string{"ERROR reload failed", "failed to find any PEM data"}, wantSerial: serialOf(first),
		},
		{
			name: "new certificate, old key", file: certFile, data: second.CertPEM(),
			wantLog: []string{"ERROR reload failed", "private key does not match public key"}, wantSerial: serialOf(first),
		},
		{
			name: "matching key arrives", file: keyFile, data: second.KeyPEM(),
			wantLog: []string{"INFO loaded serving certificate", "second.svc"}, wantSerial: serialOf(second),
		},
	}
	for _, step := range steps {
		if err := os.WriteFile(step.file, step.data, 0o600); err != nil {
			t.Fatal(err)
		}
		waitFor(t, fmt.Sprintf("step %q to be logged", step.name), func() bool {
			_, ok := logs.find(step.wantLog...)
			return ok
		})
		if got := servingSerial(w); got != step.wantSerial {
			t.Errorf("after step %q: serving serial %s, want %s", step.name, got, step.wantSerial)
		}
	}
	if record, _ := logs.find("ERROR reload failed"); !strings.Contains(record, certFile) {
		t.Errorf("error record %q does not name the certificate file", record)
	}
}

func TestWatcherServesRotatedCertificateOverTLS(t *testing.T) {
	ca := newTestCA(t)
	first, second := issueServing(t, ca, "first.svc"), issueServing(t, ca, "second.svc")
	dir := t.TempDir()
	if err := WriteFiles(dir, ca, first); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName), WatcherOptions{Logger: quietLogger()})

	url := serveTLS(t, &tls.Config{GetCertificate: w.GetCertificate, MinVersion: tls.VersionTLS12})
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: poolOf(ca.Certificate()), MinVersion: tls.VersionTLS12},
		DisableKeepAlives: true, // every request is a new handshake
	}}
	servedSerial := func() string {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer resp.Body.Close()
		return resp.TLS.PeerCertificates[0].SerialNumber.String()
	}
	if got, want := servedSerial(), serialOf(first); got != want {
		t.Fatalf("handshake presented serial %s, want %s", got, want)
	}
	if err := WriteFiles(dir, ca, second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a handshake presenting the rotated certificate", func() bool { return servedSerial() == serialOf(second) })
}

// serveTLS serves "ok" over TLS on a loopback port until the test ends and returns its URL.
// (httptest.Server would install its own certificate, which crypto/tls prefers over
// GetCertificate for clients that send no server name.)
func serveTLS(t *testing.T, config *tls.Config) string {
	t.Helper()
	listener, err := tls.Listen("tcp", "127.0.0.1:0", config)
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{
		Handler:  http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { io.WriteString(rw, "ok") }),
		ErrorLog: log.New(io.Discard, "", 0), // rejected handshakes are expected in some tests
	}
	go server.Serve(listener)
	t.Cleanup(func() { server.Close() })
	return "https://" + listener.Addr().String()
}

func TestWatcherRefusesSecondStart(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	if err := WriteFiles(dir, ca, issueServing(t, ca, "a.svc")); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName), WatcherOptions{Logger: quietLogger()})
	if err := w.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "already started") {
		t.Fatalf("second Start error = %v, want 'already started'", err)
	}
}

func TestGetCertificateBeforeStart(t *testing.T) {
	w := NewWatcher("tls.crt", "tls.key", WatcherOptions{})
	if _, err := w.GetCertificate(nil); err == nil || !strings.Contains(err.Error(), "not started") {
		t.Fatalf("GetCertificate error = %v, want one saying the watcher was not started", err)
	}
}
