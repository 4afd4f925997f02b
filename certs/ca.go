package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// clockSkewAllowance back-dates NotBefore so a certificate issued on one machine is already
// valid on a peer whose clock runs a little behind (a fresh cluster node, a laptop).
const clockSkewAllowance = 5 * time.Minute

// CA is a certificate authority able to issue serving and client certificates.
type CA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
	keyPEM  []byte
}

// KeyPair is an issued certificate and its private key.
type KeyPair struct {
	cert    *x509.Certificate
	certPEM []byte
	keyPEM  []byte
}

// ServingOptions describes a serving certificate. At least one DNS name or IP is required:
// clients, the apiserver included, match the host they dial against the subject alternative
// names only, never against the common name.
type ServingOptions struct {
	// DNSNames are the host names the certificate is valid for, for a webhook behind a
	// Service typically "<service>.<namespace>.svc".
	DNSNames []string
	// IPs are the IP addresses the certificate is valid for, for example 127.0.0.1.
	IPs []net.IP
	// ValidFor is the lifetime; it is capped at the CA's own expiry.
	ValidFor time.Duration
	// Now is when the validity starts; default the current time (see NewCAAt).
	Now time.Time
}

// NewCA creates a self-signed ECDSA P-256 CA valid for validFor.
func NewCA(commonName string, validFor time.Duration) (*CA, error) {
	return NewCAAt(commonName, time.Now(), validFor)
}

// NewCAAt is NewCA for a validity that starts at now: for programs that decide renewals by a
// clock of their own (a test's), so that the certificates they issue agree with it.
func NewCAAt(commonName string, now time.Time, validFor time.Duration) (*CA, error) {
	if commonName == "" {
		return nil, errors.New("new CA: common name is empty")
	}
	if validFor <= 0 {
		return nil, fmt.Errorf("new CA %q: validity %v must be positive", commonName, validFor)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("new CA %q: generating key: %w", commonName, err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, fmt.Errorf("new CA %q: %w", commonName, err)
	}
	template := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-clockSkewAllowance),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// The CA only signs leaves; refusing intermediates limits what a leaked key can do.
		MaxPathLen:     0,
		MaxPathLenZero: true,
	}
	cert, certPEM, err := sign(template, template, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("new CA %q: %w", commonName, err)
	}
	keyPEM, err := encodeKeyPEM(key)
	if err != nil {
		return nil, fmt.Errorf("new CA %q: %w", commonName, err)
	}
	return &CA{cert: cert, key: key, certPEM: certPEM, keyPEM: keyPEM}, nil
}

// ParseCA loads a CA saved earlier from CertPEM and KeyPEM, so that new
// certificates chain to a caBundle that is already deployed.
func ParseCA(certPEM, keyPEM []byte) (*CA, error) {
	certs, err := ParseCertificatesPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	if len(certs) != 1 {
		return nil, fmt.Errorf("parse CA certificate: want exactly 1 certificate, found %d", len(certs))
	}
	cert := certs[0]
	if !cert.IsCA || cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, fmt.Errorf("parse CA certificate: %q is not a CA (needs basic constraint CA:TRUE and key usage cert sign)", cert.Subject.CommonName)
	}
	key, err := decodeKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("parse CA key: %w", err)
	}
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || !pub.Equal(key.Public()) {
		return nil, fmt.Errorf("parse CA: private key does not match certificate %q", cert.Subject.CommonName)
	}
	return &CA{cert: cert, key: key, certPEM: encodeCertPEM(cert.Raw), keyPEM: keyPEM}, nil
}

// Certificate returns the parsed CA certificate. Callers must not modify it.
func (ca *CA) Certificate() *x509.Certificate { return ca.cert }

// CertPEM returns the CA certificate in PEM: the value for a webhook's caBundle.
func (ca *CA) CertPEM() []byte { return clone(ca.certPEM) }

// KeyPEM returns the CA private key in PKCS #8 PEM.
func (ca *CA) KeyPEM() []byte { return clone(ca.keyPEM) }

// IssueServing issues a TLS server certificate signed by the CA.
func (ca *CA) IssueServing(opts ServingOptions) (*KeyPair, error) {
	if len(opts.DNSNames) == 0 && len(opts.IPs) == 0 {
		return nil, errors.New("issue serving certificate: no DNS names or IPs; clients verify the host against these")
	}
	for i, name := range opts.DNSNames {
		if name == "" {
			return nil, fmt.Errorf("issue serving certificate: DNSNames[%d] is empty", i)
		}
	}
	for i, ip := range opts.IPs {
		if ip.To16() == nil {
			return nil, fmt.Errorf("issue serving certificate: IPs[%d] is not a valid IP address", i)
		}
	}
	// The common name is informational only (shown by tools); use the first name.
	commonName := ""
	if len(opts.DNSNames) > 0 {
		commonName = opts.DNSNames[0]
	} else {
		commonName = opts.IPs[0].String()
	}
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		DNSNames:    append([]string(nil), opts.DNSNames...),
		IPAddresses: append([]net.IP(nil), opts.IPs...),
		// ECDSA keys sign the handshake; they never encipher keys, so no KeyEncipherment.
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	kp, err := ca.issue(template, opts.Now, opts.ValidFor)
	if err != nil {
		return nil, fmt.Errorf("issue serving certificate for %q: %w", commonName, err)
	}
	return kp, nil
}

// IssueClient issues a TLS client certificate. Kubernetes reads the common name as the user
// name and the organizations as the groups.
func (ca *CA) IssueClient(commonName string, orgs []string, validFor time.Duration) (*KeyPair, error) {
	if commonName == "" {
		return nil, errors.New("issue client certificate: common name is empty")
	}
	template := &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName, Organization: append([]string(nil), orgs...)},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	kp, err := ca.issue(template, time.Time{}, validFor)
	if err != nil {
		return nil, fmt.Errorf("issue client certificate for %q: %w", commonName, err)
	}
	return kp, nil
}

// issue completes template with a fresh key, serial and validity window and signs it.
func (ca *CA) issue(template *x509.Certificate, now time.Time, validFor time.Duration) (*KeyPair, error) {
	if validFor <= 0 {
		return nil, fmt.Errorf("validity %v must be positive", validFor)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating key: %w", err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	if now.IsZero() {
		now = time.Now()
	}
	template.SerialNumber = serial
	template.NotBefore = now.Add(-clockSkewAllowance)
	template.NotAfter = now.Add(validFor)
	// A certificate is useless once its issuer has expired, so never claim more.
	if template.NotAfter.After(ca.cert.NotAfter) {
		template.NotAfter = ca.cert.NotAfter
	}
	template.BasicConstraintsValid = true
	cert, certPEM, err := sign(template, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, err
	}
	keyPEM, err := encodeKeyPEM(key)
	if err != nil {
		return nil, err
	}
	return &KeyPair{cert: cert, certPEM: certPEM, keyPEM: keyPEM}, nil
}

// Certificate returns the parsed certificate. Callers must not modify it.
func (kp *KeyPair) Certificate() *x509.Certificate { return kp.cert }

// CertPEM returns the certificate in PEM (the content of tls.crt).
func (kp *KeyPair) CertPEM() []byte { return clone(kp.certPEM) }

// KeyPEM returns the private key in PKCS #8 PEM (the content of tls.key).
func (kp *KeyPair) KeyPEM() []byte { return clone(kp.keyPEM) }

// TLSCertificate returns the pair in the form crypto/tls serves, with Leaf set.
func (kp *KeyPair) TLSCertificate() (tls.Certificate, error) {
	pair, err := tls.X509KeyPair(kp.certPEM, kp.keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("building TLS certificate for %q: %w", kp.cert.Subject.CommonName, err)
	}
	return pair, nil
}

func sign(template, parent *x509.Certificate, pub crypto.PublicKey, signer crypto.Signer) (*x509.Certificate, []byte, error) {
	der, err := x509.CreateCertificate(rand.Reader, template, parent, pub, signer)
	if err != nil {
		return nil, nil, fmt.Errorf("signing certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing signed certificate: %w", err)
	}
	return cert, encodeCertPEM(der), nil
}

// randomSerial returns a positive 128-bit serial number. RFC 5280 allows up to 20 octets;
// 128 random bits make collisions between independently created CAs practically impossible.
func randomSerial() (*big.Int, error) {
	limit := new(big.Int).Lsh(big.NewInt(1), 128)
	for {
		serial, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return nil, fmt.Errorf("generating serial number: %w", err)
		}
		if serial.Sign() > 0 {
			return serial, nil
		}
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }
