package lint

import (
	"cmp"
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/certs"
)

// certificateSpec is the part of a cert-manager Certificate that says which names the issued
// certificate will carry, whether it is a CA, and who issues it.
type certificateSpec struct {
	name        namespacedName
	dnsNames    []string
	ipAddresses []string
	secretName  string
	isCA        bool
	// issuerName and issuerKind are its issuerRef's; the kind is Issuer when unset.
	issuerName, issuerKind string
}

// caIssuer is a cert-manager Issuer or ClusterIssuer of type CA: it signs with the key pair in
// secretName, which a CA Certificate usually writes.
type caIssuer struct {
	kind       string // Issuer or ClusterIssuer
	name       namespacedName
	secretName string
}

// certificateGroup and certificateKind name cert-manager's Certificate, read in any version;
// issuerKind and clusterIssuerKind its issuers.
const (
	certificateGroup  = "cert-manager.io"
	certificateKind   = "Certificate"
	issuerKind        = "Issuer"
	clusterIssuerKind = "ClusterIssuer"
)

// addSecret keeps the certificates of a Secret's tls.crt (data or stringData), the only key
// lint reads: its other values are not lint's concern, so a value it cannot decode there (a
// template's ${VARIABLE} where base64 will be) does not stop the lint. A tls.crt that does not
// parse is left out: the Secret may be a placeholder filled in at deploy time.
func (inv *inventory) addSecret(u *unstructured.Unstructured) error {
	var data []byte
	encoded, found, err := unstructured.NestedString(u.Object, "data", corev1.TLSCertKey)
	if err != nil {
		return fmt.Errorf("data.%s: %w", corev1.TLSCertKey, err)
	}
	if found {
		if data, err = base64.StdEncoding.DecodeString(encoded); err != nil {
			return fmt.Errorf("data.%s is not base64: %w", corev1.TLSCertKey, err)
		}
	}
	if text, ok, err := unstructured.NestedString(u.Object, "stringData", corev1.TLSCertKey); err != nil {
		return fmt.Errorf("stringData.%s: %w", corev1.TLSCertKey, err)
	} else if ok {
		data = []byte(text)
	}
	if len(data) == 0 {
		return nil
	}
	chain, err := certs.ParseCertificatesPEM(data)
	if err != nil {
		return nil
	}
	if inv.focus.inNamespaces(u.GetNamespace()) {
		inv.secrets[namespacedName{u.GetNamespace(), u.GetName()}] = chain
	}
	return nil
}

func (inv *inventory) addCertificate(u *unstructured.Unstructured) error {
	spec := &certificateSpec{name: namespacedName{u.GetNamespace(), u.GetName()}}
	var err error
	if spec.dnsNames, _, err = unstructured.NestedStringSlice(u.Object, "spec", "dnsNames"); err != nil {
		return fmt.Errorf("spec.dnsNames: %w", err)
	}
	if spec.ipAddresses, _, err = unstructured.NestedStringSlice(u.Object, "spec", "ipAddresses"); err != nil {
		return fmt.Errorf("spec.ipAddresses: %w", err)
	}
	if spec.secretName, _, err = unstructured.NestedString(u.Object, "spec", "secretName"); err != nil {
		return fmt.Errorf("spec.secretName: %w", err)
	}
	if spec.isCA, _, err = unstructured.NestedBool(u.Object, "spec", "isCA"); err != nil {
		return fmt.Errorf("spec.isCA: %w", err)
	}
	if spec.issuerName, _, err = unstructured.NestedString(u.Object, "spec", "issuerRef", "name"); err != nil {
		return fmt.Errorf("spec.issuerRef.name: %w", err)
	}
	if spec.issuerKind, _, err = unstructured.NestedString(u.Object, "spec", "issuerRef", "kind"); err != nil {
		return fmt.Errorf("spec.issuerRef.kind: %w", err)
	}
	spec.issuerKind = cmp.Or(spec.issuerKind, issuerKind)
	inv.certificates[spec.name] = spec
	return nil
}

// addIssuer keeps the Issuers and ClusterIssuers of type CA: which CA key pair signs the
// Certificates that name them.
func (inv *inventory) addIssuer(kind string, u *unstructured.Unstructured) error {
	secretName, found, err := unstructured.NestedString(u.Object, "spec", "ca", "secretName")
	if err != nil {
		return fmt.Errorf("spec.ca.secretName: %w", err)
	}
	if found {
		inv.caIssuers = append(inv.caIssuers, caIssuer{kind: kind, name: namespacedName{u.GetNamespace(), u.GetName()}, secretName: secretName})
	}
	return nil
}
