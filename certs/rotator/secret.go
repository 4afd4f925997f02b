package rotator

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/admitkit/admit/certs"
)

// Keys of the Secret beyond those of a kubernetes.io/tls Secret.
const (
	// CAKeyKey holds the private key of the current CA, the first certificate of ca.crt.
	CAKeyKey = "ca.key"
	// PublishedAnnotation records when every owned caBundle first held the current CA
	// (RFC 3339). A serving certificate signed by that CA is used PublishGrace later.
	PublishedAnnotation = "admit.dev/ca-published"
)

// state is what the Secret holds, parsed. Any part may be missing or unusable; the writer
// replaces what is.
type state struct {
	// ca is the current CA (first of ca.crt, with ca.key); nil when missing or unusable.
	ca *certs.CA
	// trusted are the CA certificates of ca.crt, current first.
	trusted []*x509.Certificate
	// serving is the serving certificate of tls.crt with its key, when they parse and match.
	serving       *x509.Certificate
	certPEM       []byte
	keyPEM        []byte
	publishedAt   time.Time
	secretVersion string
}

// parseSecret reads what it can of s; nil s (no Secret yet) is the empty state.
func parseSecret(s *corev1.Secret) state {
	var st state
	if s == nil {
		return st
	}
	st.secretVersion = s.ResourceVersion
	if bundle, err := certs.ParseCertificatesPEM(s.Data[corev1.ServiceAccountRootCAKey]); err == nil {
		st.trusted = bundle
		if ca, err := certs.ParseCA(encodeCert(bundle[0]), s.Data[CAKeyKey]); err == nil {
			st.ca = ca
		}
	}
	if pair, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err == nil && pair.Leaf != nil {
		st.serving, st.certPEM, st.keyPEM = pair.Leaf, s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]
	}
	if at, err := time.Parse(time.RFC3339, s.Annotations[PublishedAnnotation]); err == nil {
		st.publishedAt = at
	}
	return st
}

// bundlePEM is the caBundle: every trusted CA, current first.
func (st state) bundlePEM() []byte {
	var b bytes.Buffer
	for _, c := range st.trusted {
		b.Write(encodeCert(c))
	}
	return b.Bytes()
}

// signedByCurrent says whether the serving certificate chains to the current CA.
func (st state) signedByCurrent() bool {
	return st.ca != nil && st.serving != nil && st.serving.CheckSignatureFrom(st.ca.Certificate()) == nil
}

// servingTrusted says whether the serving certificate chains to a CA of the bundle, so that
// serving it is safe while a newer CA is being published.
func (st state) servingTrusted(now time.Time) bool {
	if st.serving == nil || now.After(st.serving.NotAfter) {
		return false
	}
	for _, c := range st.trusted {
		if st.serving.CheckSignatureFrom(c) == nil {
			return true
		}
	}
	return false
}

// secretData lays the state out as the Secret's data.
func (st state) secretData() map[string][]byte {
	data := map[string][]byte{
		corev1.ServiceAccountRootCAKey: st.bundlePEM(),
		corev1.TLSCertKey:              st.certPEM,
		corev1.TLSPrivateKeyKey:        st.keyPEM,
	}
	if st.ca != nil {
		data[CAKeyKey] = st.ca.KeyPEM()
	}
	return data
}

func encodeCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}
