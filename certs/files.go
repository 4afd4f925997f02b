package certs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File names of a kubernetes.io/tls Secret (plus ca.crt, which cert-manager adds), so a
// directory written by WriteFiles and a mounted Secret look the same to a server.
const (
	CAFileName   = "ca.crt"
	CertFileName = "tls.crt"
	KeyFileName  = "tls.key"
)

// WriteFiles writes the CA certificate and the key pair into dir as ca.crt, tls.crt and
// tls.key, creating dir if needed. The key is readable by the owner only. Each file is
// replaced atomically, so a Watcher never reads a half-written file. The CA's own key is
// not written: a serving directory has no use for it.
func WriteFiles(dir string, ca *CA, kp *KeyPair) error {
	if ca == nil || kp == nil {
		return errors.New("write certificate files: CA and key pair are required")
	}
	return WriteFilesPEM(dir, ca.certPEM, kp.certPEM, kp.keyPEM)
}

// WriteFilesPEM writes, as WriteFiles does, PEM read elsewhere (a Secret): caBundle (one CA
// or several) as ca.crt, certPEM as tls.crt and keyPEM as tls.key.
func WriteFilesPEM(dir string, caBundle, certPEM, keyPEM []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write certificate files: %w", err)
	}
	files := []struct {
		name string
		data []byte
		perm os.FileMode
	}{
		{CAFileName, caBundle, 0o644},
		{CertFileName, certPEM, 0o644},
		{KeyFileName, keyPEM, 0o600},
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(dir, f.name), f.data, f.perm); err != nil {
			return fmt.Errorf("write certificate files: %w", err)
		}
	}
	return nil
}

// writeFileAtomic writes data to a temporary file next to path and renames it into place.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("setting mode of %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return nil
}
