package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/admitkit/admit/certs"
)

// Identity of the admin user in the token file. system:masters bypasses RBAC.
const (
	adminUser  = "admin"
	adminGroup = "system:masters"
)

// apiserverFiles are the credential files kube-apiserver is started with.
type apiserverFiles struct {
	servingCert, servingKey   string // TLS serving certificate for 127.0.0.1 and localhost
	saPublicKey, saSigningKey string // service account token verification and signing
	tokenFile                 string // static bearer tokens
	caPEM                     []byte // CA that signed the serving certificate
	adminToken                string
}

// writeAPIServerFiles creates a CA, a serving certificate, a service account key pair and
// a token file granting an admin user, in dir.
func writeAPIServerFiles(dir string) (apiserverFiles, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return apiserverFiles{}, fmt.Errorf("writing apiserver credentials: %w", err)
	}
	ca, err := certs.NewCA("admit-testenv-ca", 7*24*time.Hour)
	if err != nil {
		return apiserverFiles{}, fmt.Errorf("writing apiserver credentials: %w", err)
	}
	serving, err := ca.IssueServing(certs.ServingOptions{
		DNSNames: []string{"localhost"},
		IPs:      []net.IP{net.IPv4(127, 0, 0, 1)},
		ValidFor: 7 * 24 * time.Hour,
	})
	if err != nil {
		return apiserverFiles{}, fmt.Errorf("writing apiserver credentials: %w", err)
	}
	if err := certs.WriteFiles(dir, ca, serving); err != nil {
		return apiserverFiles{}, fmt.Errorf("writing apiserver credentials: %w", err)
	}
	saPublic, saPrivate, err := serviceAccountKeyPEM()
	if err != nil {
		return apiserverFiles{}, fmt.Errorf("writing apiserver credentials: %w", err)
	}
	token, err := randomToken()
	if err != nil {
		return apiserverFiles{}, fmt.Errorf("writing apiserver credentials: %w", err)
	}
	files := apiserverFiles{
		servingCert:  filepath.Join(dir, certs.CertFileName),
		servingKey:   filepath.Join(dir, certs.KeyFileName),
		saPublicKey:  filepath.Join(dir, "sa.pub"),
		saSigningKey: filepath.Join(dir, "sa.key"),
		tokenFile:    filepath.Join(dir, "tokens.csv"),
		caPEM:        ca.CertPEM(),
		adminToken:   token,
	}
	writes := []struct {
		path string
		data []byte
	}{
		{files.saPublicKey, saPublic},
		{files.saSigningKey, saPrivate},
		{files.tokenFile, tokenFileLine(token, adminUser, adminGroup)},
	}
	for _, w := range writes {
		if err := os.WriteFile(w.path, w.data, 0o600); err != nil {
			return apiserverFiles{}, fmt.Errorf("writing apiserver credentials: %w", err)
		}
	}
	return files, nil
}

// tokenFileLine formats one line of a --token-auth-file: token,user,uid,"group1,group2".
func tokenFileLine(token, user, group string) []byte {
	return fmt.Appendf(nil, "%s,%s,%s,%q\n", token, user, user, group)
}

// serviceAccountKeyPEM returns an ECDSA key pair (ES256 tokens) as PKIX public and PKCS #8
// private PEM.
func serviceAccountKeyPEM() (public, private []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating service account key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, nil, fmt.Errorf("encoding service account public key: %w", err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding service account private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), nil
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
