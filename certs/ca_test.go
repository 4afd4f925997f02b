package certs

import (
	"crypto/ecdsa"
	"crypto/x509"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newTestCA(t *testing.T) *CA {
	t.Helper()
	ca, err := NewCA("test-ca", 24*time.Hour)
	if err != nil {
		t.Fatalf("NewCA: %v", err)
	}
	return ca
}

func poolOf(certs ...*x509.Certificate) *x509.CertPool {
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool
}

func TestNewCA(t *testing.T) {
	tests := []struct {
		name       string
		commonName string
		validFor   time.Duration
		wantErr    string
	}{
		{name: "valid", commonName: "webhook-ca", validFor: 365 * 24 * time.Hour},
		{name: "empty common name", commonName: "", validFor: time.Hour, wantErr: "common name is empty"},
		{name: "zero validity", commonName: "ca", validFor: 0, wantErr: "validity 0s must be positive"},
		{name: "negative validity", commonName: "ca", validFor: -time.Hour, wantErr: "validity -1h0m0s must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ca, err := NewCA(tt.commonName, tt.validFor)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewCA error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewCA: %v", err)
			}
			cert := ca.Certificate()
			type caFacts struct {
				CommonName     string
				IsCA           bool
				MaxPathLenZero bool
				KeyUsage       x509.KeyUsage
				Lifetime       time.Duration
			}
			got := caFacts{cert.Subject.CommonName, cert.IsCA, cert.MaxPathLenZero, cert.KeyUsage, cert.NotAfter.Sub(cert.NotBefore)}
			want := caFacts{
				CommonName:     tt.commonName,
				IsCA:           true,
				MaxPathLenZero: true,
				KeyUsage:       x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
				// Certificate times have second precision; the window is validFor plus the back-dating.
				Lifetime: (tt.validFor + clockSkewAllowance).Truncate(time.Second),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("CA certificate (-want +got):\n%s", diff)
			}
			if !cert.NotBefore.Before(time.Now().Add(-clockSkewAllowance / 2)) {
				t.Errorf("NotBefore = %v, want it back-dated by about %v", cert.NotBefore, clockSkewAllowance)
			}
			if _, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok {
				t.Errorf("public key is %T, want ECDSA", cert.PublicKey)
			}
		})
	}
}

func TestIssueServing(t *testing.T) {
	ca := newTestCA(t)
	tests := []struct {
		name    string
		opts    ServingOptions
		wantCN  string
		wantErr string
	}{
		{
			name:   "service DNS names",
			opts:   ServingOptions{DNSNames: []string{"hook.system.svc", "hook.system.svc.cluster.local"}, ValidFor: time.Hour},
			wantCN: "hook.system.svc",
		},
		{
			name:   "loopback IPs only",
			opts:   ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, ValidFor: time.Hour},
			wantCN: "127.0.0.1",
		},
		{
			name:   "names and IPs",
			opts:   ServingOptions{DNSNames: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour},
			wantCN: "localhost",
		},
		{name: "no names", opts: ServingOptions{ValidFor: time.Hour}, wantErr: "no DNS names or IPs"},
		{name: "empty name", opts: ServingOptions{DNSNames: []string{"a.svc", ""}, ValidFor: time.Hour}, wantErr: "DNSNames[1] is empty"},
		{name: "invalid IP", opts: ServingOptions{IPs: []net.IP{{1, 2, 3}}, ValidFor: time.Hour}, wantErr: "IPs[0] is not a valid IP address"},
		{name: "no validity", opts: ServingOptions{DNSNames: []string{"a.svc"}}, wantErr: `"a.svc": validity 0s must be positive`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kp, err := ca.IssueServing(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("IssueServing error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("IssueServing: %v", err)
			}
			cert := kp.Certificate()
			type leafFacts struct {
				CommonName  string
				DNSNames    []string
				IPs         []string
				IsCA        bool
				KeyUsage    x509.KeyUsage
				ExtKeyUsage []x509.ExtKeyUsage
			}
			got := leafFacts{cert.Subject.CommonName, cert.DNSNames, ipStrings(cert.IPAddresses), cert.IsCA, cert.KeyUsage, cert.ExtKeyUsage}
			want := leafFacts{
				CommonName:  tt.wantCN,
				DNSNames:    tt.opts.DNSNames,
				IPs:         ipStrings(tt.opts.IPs),
				KeyUsage:    x509.KeyUsageDigitalSignature,
				ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("serving certificate (-want +got):\n%s", diff)
			}
			// Every name and IP must verify the way a TLS client checks it.
			hosts := append([]string(nil), tt.opts.DNSNames...)
			hosts = append(hosts, ipStrings(tt.opts.IPs)...)
			for _, host := range hosts {
				_, err := cert.Verify(x509.VerifyOptions{DNSName: host, Roots: poolOf(ca.Certificate())})
				if err != nil {
					t.Errorf("verifying for host %q: %v", host, err)
				}
			}
			if _, err := cert.Verify(x509.VerifyOptions{DNSName: "other.example", Roots: poolOf(ca.Certificate())}); err == nil {
				t.Error("certificate verified for a host it was not issued for")
			}
		})
	}
}

func ipStrings(ips []net.IP) []string {
	var out []string
	for _, ip := range ips {
		out = append(out, ip.String())
	}
	return out
}

func TestIssueClient(t *testing.T) {
	ca := newTestCA(t)
	kp, err := ca.IssueClient("system:apiserver", []string{"system:masters", "admins"}, time.Hour)
	if err != nil {
		t.Fatalf("IssueClient: %v", err)
	}
	cert := kp.Certificate()
	// Kubernetes treats the organizations as a set of groups; DER encoding may reorder them.
	orgs := slices.Sorted(slices.Values(cert.Subject.Organization))
	if diff := cmp.Diff([]string{"admins", "system:masters"}, orgs); diff != "" {
		t.Errorf("organizations (-want +got):\n%s", diff)
	}
	if cert.Subject.CommonName != "system:apiserver" {
		t.Errorf("common name = %q, want system:apiserver", cert.Subject.CommonName)
	}
	roots := poolOf(ca.Certificate())
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("verifying as a client certificate: %v", err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
		t.Error("a client certificate verified as a serving certificate")
	}
	if _, err := ca.IssueClient("", nil, time.Hour); err == nil || !strings.Contains(err.Error(), "common name is empty") {
		t.Errorf("IssueClient with empty name: error = %v, want 'common name is empty'", err)
	}
}

func TestSerialNumbersAreRandomAnd128Bit(t *testing.T) {
	ca := newTestCA(t)
	seen := map[string]bool{ca.Certificate().SerialNumber.String(): true}
	for range 50 {
		kp, err := ca.IssueServing(ServingOptions{DNSNames: []string{"a.svc"}, ValidFor: time.Hour})
		if err != nil {
			t.Fatalf("IssueServing: %v", err)
		}
		serial := kp.Certificate().SerialNumber
		if serial.Sign() <= 0 || serial.BitLen() > 128 {
			t.Fatalf("serial %v: want a positive number of at most 128 bits", serial)
		}
		if seen[serial.String()] {
			t.Fatalf("serial %v issued twice", serial)
		}
		seen[serial.String()] = true
	}
}

func TestLeafNeverOutlivesCA(t *testing.T) {
	ca, err := NewCA("short-lived-ca", time.Hour)
	if err != nil {
		t.Fatalf("NewCA: %v", err)
	}
	kp, err := ca.IssueServing(ServingOptions{DNSNames: []string{"a.svc"}, ValidFor: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatalf("IssueServing: %v", err)
	}
	if got, want := kp.Certificate().NotAfter, ca.Certificate().NotAfter; !got.Equal(want) {
		t.Errorf("leaf NotAfter = %v, want it capped at the CA's %v", got, want)
	}
}

func TestParseCA(t *testing.T) {
	ca := newTestCA(t)
	other := newTestCA(t)
	leaf, err := ca.IssueServing(ServingOptions{DNSNames: []string{"a.svc"}, ValidFor: time.Hour})
	if err != nil {
		t.Fatalf("IssueServing: %v", err)
	}
	tests := []struct {
		name    string
		certPEM []byte
		keyPEM  []byte
		wantErr string
	}{
		{name: "round trip", certPEM: ca.CertPEM(), keyPEM: ca.KeyPEM()},
		{name: "key of another CA", certPEM: ca.CertPEM(), keyPEM: other.KeyPEM(), wantErr: "private key does not match certificate"},
		{name: "leaf instead of CA", certPEM: leaf.CertPEM(), keyPEM: leaf.KeyPEM(), wantErr: "is not a CA"},
		{name: "two certificates", certPEM: append(ca.CertPEM(), other.CertPEM()...), keyPEM: ca.KeyPEM(), wantErr: "want exactly 1 certificate, found 2"},
		{name: "key where the certificate belongs", certPEM: ca.KeyPEM(), keyPEM: ca.KeyPEM(), wantErr: `PEM block 0 is "PRIVATE KEY"`},
		{name: "certificate where the key belongs", certPEM: ca.CertPEM(), keyPEM: ca.CertPEM(), wantErr: `PEM block is "CERTIFICATE"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := ParseCA(tt.certPEM, tt.keyPEM)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseCA error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseCA: %v", err)
			}
			// A certificate issued by the parsed CA must chain to the original.
			kp, err := parsed.IssueServing(ServingOptions{DNSNames: []string{"b.svc"}, ValidFor: time.Hour})
			if err != nil {
				t.Fatalf("IssueServing from parsed CA: %v", err)
			}
			if _, err := kp.Certificate().Verify(x509.VerifyOptions{DNSName: "b.svc", Roots: poolOf(ca.Certificate())}); err != nil {
				t.Errorf("certificate from parsed CA does not chain to the original: %v", err)
			}
		})
	}
}

func TestTLSCertificate(t *testing.T) {
	ca := newTestCA(t)
	kp, err := ca.IssueServing(ServingOptions{DNSNames: []string{"a.svc"}, ValidFor: time.Hour})
	if err != nil {
		t.Fatalf("IssueServing: %v", err)
	}
	pair, err := kp.TLSCertificate()
	if err != nil {
		t.Fatalf("TLSCertificate: %v", err)
	}
	if pair.Leaf == nil || !pair.Leaf.Equal(kp.Certificate()) {
		t.Fatal("TLSCertificate: Leaf is not the issued certificate")
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok || !key.PublicKey.Equal(kp.Certificate().PublicKey) {
		t.Fatalf("TLSCertificate: private key %T does not match the certificate", pair.PrivateKey)
	}
}

func TestPEMAccessorsReturnCopies(t *testing.T) {
	ca := newTestCA(t)
	b := ca.CertPEM()
	b[0] = 'X'
	if ca.CertPEM()[0] == 'X' {
		t.Fatal("modifying the slice from CertPEM changed the CA")
	}
}
