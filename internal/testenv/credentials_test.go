package testenv

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/csv"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/certs"
)

func TestWriteAPIServerFiles(t *testing.T) {
	files, err := writeAPIServerFiles(t.TempDir())
	if err != nil {
		t.Fatalf("writeAPIServerFiles: %v", err)
	}

	// The token file parses as the apiserver's CSV: token,user,uid,"groups".
	data, err := os.ReadFile(files.tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatalf("token file is not CSV: %v", err)
	}
	want := [][]string{{files.adminToken, "admin", "admin", "system:masters"}}
	if diff := cmp.Diff(want, records); diff != "" {
		t.Errorf("token file (-want +got):\n%s", diff)
	}
	if len(files.adminToken) != 64 {
		t.Errorf("admin token has %d characters, want 64 (32 random bytes in hex)", len(files.adminToken))
	}

	// The serving certificate verifies for the loopback address clients dial.
	pair, err := tls.LoadX509KeyPair(files.servingCert, files.servingKey)
	if err != nil {
		t.Fatalf("serving pair: %v", err)
	}
	cas, err := certs.ParseCertificatesPEM(files.caPEM)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cas[0])
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if _, err := pair.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
			t.Errorf("serving certificate does not verify for %s: %v", host, err)
		}
	}

	for _, path := range []string{files.saPublicKey, files.saSigningKey} {
		if info, err := os.Stat(path); err != nil || info.Size() == 0 {
			t.Errorf("service account key %s missing or empty (%v)", path, err)
		}
	}
}
