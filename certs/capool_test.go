package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func startCAPoolWatcher(t *testing.T, file string, opts CAPoolWatcherOptions) *CAPoolWatcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := NewCAPoolWatcher(file, opts)
	if err := w.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return w
}

// TestCAPoolWatcherVerifiesClientsWithRotatedCA runs a server that requires client
// certificates and takes its client CA pool from the watcher for every handshake.
func TestCAPoolWatcherVerifiesClientsWithRotatedCA(t *testing.T) {
	serverCA, oldClientCA, newClientCA := newTestCA(t), newTestCA(t), newTestCA(t)
	serverPair, err := issueServing(t, serverCA, "hook.svc").TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	issueClient := func(ca *CA) tls.Certificate {
		kp, err := ca.IssueClient("kube-apiserver", nil, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		pair, err := kp.TLSCertificate()
		if err != nil {
			t.Fatal(err)
		}
		return pair
	}
	oldClient, newClient := issueClient(oldClientCA), issueClient(newClientCA)

	bundle := filepath.Join(t.TempDir(), "client-ca.crt")
	if err := os.WriteFile(bundle, oldClientCA.CertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := newLogRecorder()
	var reloadsMu sync.Mutex
	var reloads []int
	pool := startCAPoolWatcher(t, bundle, CAPoolWatcherOptions{
		PollInterval: time.Hour,
		Logger:       slog.New(logs),
		OnReload: func(cas []*x509.Certificate) {
			reloadsMu.Lock()
			defer reloadsMu.Unlock()
			reloads = append(reloads, len(cas))
		},
	})

	base := &tls.Config{Certificates: []tls.Certificate{serverPair}, MinVersion: tls.VersionTLS12}
	url := serveTLS(t, &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			config := base.Clone()
			config.ClientAuth = tls.RequireAndVerifyClientCert
			config.ClientCAs = pool.Pool()
			return config, nil
		},
	})
	accepted := func(client tls.Certificate) bool {
		c := &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{
				RootCAs:      poolOf(serverCA.Certificate()),
				Certificates: []tls.Certificate{client},
				MinVersion:   tls.VersionTLS12,
			},
			DisableKeepAlives: true,
		}}
		resp, err := c.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}

	if !accepted(oldClient) || accepted(newClient) {
		t.Fatal("before rotation: want the old client accepted and the new one refused")
	}

	// Rotation overlap: both CAs trusted at once.
	writeAtomic(t, bundle, append(oldClientCA.CertPEM(), newClientCA.CertPEM()...))
	waitFor(t, "the new client to be accepted", func() bool { return accepted(newClient) })
	if !accepted(oldClient) {
		t.Error("during the overlap the old client was refused")
	}

	writeAtomic(t, bundle, newClientCA.CertPEM())
	waitFor(t, "the old client to be refused", func() bool { return !accepted(oldClient) })

	// A bundle that smuggles in a private key is refused and the current pool stays.
	kp := issueServing(t, newClientCA, "oops.svc")
	writeAtomic(t, bundle, append(newClientCA.CertPEM(), kp.KeyPEM()...))
	waitFor(t, "the refused bundle to be logged", func() bool {
		_, ok := logs.find("ERROR reload failed", `"PRIVATE KEY"`, bundle)
		return ok
	})
	if !accepted(newClient) {
		t.Error("after a refused bundle the current client CA is no longer trusted")
	}
	reloadsMu.Lock()
	defer reloadsMu.Unlock()
	if diff := cmp.Diff([]int{1, 2, 1}, reloads); diff != "" {
		t.Errorf("bundle sizes seen by OnReload (-want +got):\n%s", diff)
	}
}

func TestCAPoolWatcherStartRefusesBadBundle(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	tests := []struct {
		name    string
		content []byte
		wantErr string
	}{
		{name: "key in bundle", content: append(ca.CertPEM(), ca.KeyPEM()...), wantErr: `PEM block 1 is "PRIVATE KEY"`},
		{name: "empty file", content: nil, wantErr: "no certificates found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.WriteFile(file, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			w := NewCAPoolWatcher(file, CAPoolWatcherOptions{Logger: quietLogger()})
			err := w.Start(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), file) {
				t.Fatalf("Start error = %v, want it to name %s and contain %q", err, file, tt.wantErr)
			}
			if w.Pool() != nil {
				t.Error("Pool is set after a failed Start")
			}
		})
	}
}

func writeAtomic(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := writeFileAtomic(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
