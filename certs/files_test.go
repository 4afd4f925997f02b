package certs

import (
	"bytes"
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFiles(t *testing.T) {
	ca := newTestCA(t)
	kp, err := ca.IssueServing(ServingOptions{DNSNames: []string{"a.svc"}, ValidFor: time.Hour})
	if err != nil {
		t.Fatalf("IssueServing: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "serving-certs")
	if err := WriteFiles(dir, ca, kp); err != nil {
		t.Fatalf("WriteFiles: %v", err)
	}

	type fileFacts struct {
		Mode    os.FileMode
		Matches bool
	}
	want := map[string]fileFacts{
		"ca.crt":  {0o644, true},
		"tls.crt": {0o644, true},
		"tls.key": {0o600, true},
	}
	expected := map[string][]byte{"ca.crt": ca.CertPEM(), "tls.crt": kp.CertPEM(), "tls.key": kp.KeyPEM()}
	got := map[string]fileFacts{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		content, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = fileFacts{info.Mode().Perm(), bytes.Equal(content, expected[e.Name()])}
	}
	// Also proves no temporary files are left behind.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("written files (-want +got):\n%s", diff)
	}
	if _, err := tls.LoadX509KeyPair(filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName)); err != nil {
		t.Errorf("crypto/tls cannot load the written pair: %v", err)
	}
}

func TestWriteFilesErrors(t *testing.T) {
	ca := newTestCA(t)
	kp, err := ca.IssueServing(ServingOptions{DNSNames: []string{"a.svc"}, ValidFor: time.Hour})
	if err != nil {
		t.Fatalf("IssueServing: %v", err)
	}
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		ca   *CA
		kp   *KeyPair
	}{
		{name: "nil CA", dir: t.TempDir(), kp: kp},
		{name: "nil key pair", dir: t.TempDir(), ca: ca},
		{name: "directory is a file", dir: notADir, ca: ca, kp: kp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteFiles(tt.dir, tt.ca, tt.kp)
			if err == nil {
				t.Fatal("WriteFiles succeeded, want an error")
			}
			if !bytes.Contains([]byte(err.Error()), []byte("write certificate files")) {
				t.Errorf("error %q does not say what failed", err)
			}
		})
	}
}
