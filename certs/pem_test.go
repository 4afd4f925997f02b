package certs

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseCertificatesPEM(t *testing.T) {
	ca := newTestCA(t)
	other := newTestCA(t)
	kp, err := ca.IssueServing(ServingOptions{DNSNames: []string{"a.svc"}, ValidFor: time.Hour})
	if err != nil {
		t.Fatalf("IssueServing: %v", err)
	}
	ecKey := []byte("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n")
	corrupt := []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")

	join := func(parts ...[]byte) []byte { return []byte(strings.Join(byteStrings(parts), "")) }
	tests := []struct {
		name        string
		input       []byte
		wantSubject []string
		wantErr     string
	}{
		{name: "one certificate", input: ca.CertPEM(), wantSubject: []string{"test-ca"}},
		{name: "bundle of two", input: join(ca.CertPEM(), other.CertPEM()), wantSubject: []string{"test-ca", "test-ca"}},
		{name: "surrounding whitespace", input: join([]byte("\n\n"), ca.CertPEM(), []byte("\n  \n")), wantSubject: []string{"test-ca"}},
		{name: "certificate followed by its key", input: join(kp.CertPEM(), kp.KeyPEM()), wantErr: `PEM block 1 is "PRIVATE KEY", want "CERTIFICATE" (a private key must never be part of a CA bundle)`},
		{name: "EC key first", input: join(ecKey, ca.CertPEM()), wantErr: `PEM block 0 is "EC PRIVATE KEY"`},
		{name: "other block type", input: []byte("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n"), wantErr: `PEM block 0 is "CERTIFICATE REQUEST", want "CERTIFICATE"`},
		{name: "corrupt certificate", input: join(ca.CertPEM(), corrupt), wantErr: "PEM block 1: parsing certificate"},
		{name: "trailing garbage", input: join(ca.CertPEM(), []byte("oops")), wantErr: "unexpected non-PEM data after PEM block 0"},
		{name: "key without END line before a certificate", input: join([]byte("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMG\n"), ca.CertPEM()),
			wantErr: `PEM block 0 is "PRIVATE KEY", want "CERTIFICATE" (a private key must never be part of a CA bundle)`},
		{name: "certificate without END line", input: []byte("-----BEGIN CERTIFICATE-----\nMIGHAgEAMBMG\n"), wantErr: `PEM block 0 has no "-----END CERTIFICATE-----" line`},
		{name: "key body under a certificate header, unterminated", input: join([]byte("-----BEGIN CERTIFICATE-----\nMIGHAgEAMBMG\n"), ca.CertPEM()),
			wantErr: "PEM block 0 is not terminated before the next block begins"},
		{name: "text with a key before the first block", input: join([]byte("PRIVATE KEY material\n"), ca.CertPEM()),
			wantErr: "unexpected non-PEM data before PEM block 0 (a private key must never be part of a CA bundle)"},
		{name: "text between blocks", input: join(ca.CertPEM(), []byte("note\n"), other.CertPEM()), wantErr: "unexpected non-PEM data before PEM block 1"},
		{name: "not PEM", input: []byte("hello"), wantErr: "no PEM data found"},
		{name: "empty", input: nil, wantErr: "no certificates found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			certs, err := ParseCertificatesPEM(tt.input)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				if certs != nil {
					t.Errorf("got %d certificates along with the error, want none", len(certs))
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseCertificatesPEM: %v", err)
			}
			var subjects []string
			for _, c := range certs {
				subjects = append(subjects, c.Subject.CommonName)
			}
			if diff := cmp.Diff(tt.wantSubject, subjects); diff != "" {
				t.Errorf("subjects (-want +got):\n%s", diff)
			}
		})
	}
}

func byteStrings(parts [][]byte) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}
