package lint

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"slices"
	"strings"
)

// servingCert is a certificate a webhook's server may present, and where the input holds it.
type servingCert struct {
	cert *x509.Certificate
	// chain is what the server sends: cert, then the intermediates after it in its tls.crt.
	chain []*x509.Certificate
	from  string
}

// fromBundle is the servingCert.from of a leaf certificate placed directly in caBundle.
const fromBundle = "caBundle"

// servingCerts finds the certificates a webhook's server may present, as far as the input
// tells. trusted says how to judge them. The configuration trusts some: the tls.crt of the
// Secret its injection annotation names (cert-manager.io/inject-ca-from's Certificate writes
// it, or the Certificates that CA issues when it names a CA; inject-ca-from-secret names it),
// a tls.crt issued by a certificate of its caBundle, a leaf certificate placed in caBundle. The
// server presents one of those, so each is judged (trusted true). Failing those, every tls.crt
// the server's pods mount may be the one it loads (kubebuilder's scaffold mounts a metrics
// certificate beside the serving one): trusted is false, and a rule reports only when none of
// them would do.
func (a *analysis) servingCerts(w *webhook, bundle []*x509.Certificate) (certs []servingCert, trusted bool) {
	var mounted, trustedCerts []servingCert
	seen := map[[sha256.Size]byte]bool{}
	add := func(to *[]servingCert, chain []*x509.Certificate, from string) {
		sum := sha256.Sum256(chain[0].Raw)
		if !seen[sum] {
			seen[sum] = true
			*to = append(*to, servingCert{cert: chain[0], chain: chain, from: from})
		}
	}
	named := a.injectedSecrets(w.config)
	if b := w.backend; b != nil {
		for _, name := range a.mountedSecrets(b) {
			chain, _ := lookup(a.inv.secrets, b.namespace, name)
			if len(chain) == 0 {
				continue
			}
			from := fmt.Sprintf("Secret %q", b.namespace+"/"+name)
			if slices.ContainsFunc(named, func(n namespacedName) bool { return n.name == name && inNamespace(n.namespace, b.namespace) }) || trustedByBundle(chain, bundle) {
				add(&trustedCerts, chain, from)
			} else {
				add(&mounted, chain, from)
			}
		}
		if len(b.workloads) == 0 {
			// No workload says what the server mounts: the Secrets of its namespace that the
			// configuration trusts are the candidates.
			for _, key := range sortedKeys(a.inv.secrets) {
				chain := a.inv.secrets[key]
				if inNamespace(key.namespace, b.namespace) && len(chain) > 0 && (slices.Contains(named, key) || trustedByBundle(chain, bundle)) {
					add(&trustedCerts, chain, fmt.Sprintf("Secret %q", key.String()))
				}
			}
		}
	}
	for _, cert := range bundle {
		if !cert.IsCA {
			add(&trustedCerts, []*x509.Certificate{cert}, fromBundle)
		}
	}
	if len(trustedCerts) > 0 {
		return trustedCerts, true
	}
	return mounted, false
}

// judgeServing applies a rule's test to a webhook's serving certificates: each one the
// configuration trusts, or, when it trusts none, the candidates only when every one fails,
// as the server may load any of them.
func judgeServing(certs []servingCert, trusted bool, fails func(servingCert) bool) []servingCert {
	var failed []servingCert
	for _, sc := range certs {
		if fails(sc) {
			failed = append(failed, sc)
		}
	}
	if !trusted && len(failed) < len(certs) {
		return nil
	}
	return failed
}

// trustedByBundle says whether a chain the server sends verifies against the bundle as far as
// names tell: one of its certificates is in the bundle or issued by one there.
func trustedByBundle(chain, bundle []*x509.Certificate) bool {
	for _, cert := range chain {
		if inBundle(cert, bundle) || issuedByAny(cert, bundle) {
			return true
		}
	}
	return false
}

func inBundle(cert *x509.Certificate, bundle []*x509.Certificate) bool {
	return slices.ContainsFunc(bundle, func(b *x509.Certificate) bool { return bytes.Equal(b.Raw, cert.Raw) })
}

// signsChain says whether anchor would anchor the chain in a verification: it is one of its
// certificates, or signed one.
func signsChain(anchor *x509.Certificate, chain []*x509.Certificate) bool {
	for _, cert := range chain {
		if bytes.Equal(cert.Raw, anchor.Raw) ||
			(bytes.Equal(cert.RawIssuer, anchor.RawSubject) && cert.CheckSignatureFrom(anchor) == nil) {
			return true
		}
	}
	return false
}

// injectedSecrets names the Secrets whose certificates the configuration's injection annotation
// makes it trust: the one cert-manager.io/inject-ca-from-secret names, the one the Certificate
// cert-manager.io/inject-ca-from names writes, or, when that Certificate is a CA, the ones the
// Certificates it issues write.
func (a *analysis) injectedSecrets(c *configuration) []namespacedName {
	var out []namespacedName
	if ns, name, ok := strings.Cut(c.annotations["cert-manager.io/inject-ca-from-secret"], "/"); ok {
		out = append(out, namespacedName{ns, name})
	}
	named, ok := a.injectedCertificate(c)
	if !ok {
		return out
	}
	specs := []*certificateSpec{named}
	if named.isCA {
		specs = a.issuedBy(named)
	}
	for _, spec := range specs {
		out = append(out, namespacedName{spec.name.namespace, spec.secretName})
	}
	return out
}

// injectedCertificate is the Certificate the configuration's cert-manager.io/inject-ca-from
// annotation names, when the input has it.
func (a *analysis) injectedCertificate(c *configuration) (*certificateSpec, bool) {
	ns, name, ok := strings.Cut(c.annotations["cert-manager.io/inject-ca-from"], "/")
	if !ok {
		return nil, false
	}
	spec, found := lookup(a.inv.certificates, ns, name)
	return spec, found && spec != nil
}

// issuedBy lists the Certificates of the input that a CA Certificate signs: those naming an
// Issuer of type CA in its namespace, or a ClusterIssuer of type CA, whose key pair is the
// Secret the CA Certificate writes.
func (a *analysis) issuedBy(ca *certificateSpec) []*certificateSpec {
	var out []*certificateSpec
	for _, issuer := range a.inv.caIssuers {
		if issuer.secretName != ca.secretName {
			continue
		}
		if issuer.kind == issuerKind && !inNamespace(issuer.name.namespace, ca.name.namespace) && !inNamespace(ca.name.namespace, issuer.name.namespace) {
			continue
		}
		for _, key := range sortedKeys(a.inv.certificates) {
			spec := a.inv.certificates[key]
			if spec == ca || spec.issuerName != issuer.name.name || spec.issuerKind != issuer.kind || slices.Contains(out, spec) {
				continue
			}
			if issuer.kind == issuerKind && !inNamespace(spec.name.namespace, issuer.name.namespace) && !inNamespace(issuer.name.namespace, spec.name.namespace) {
				continue
			}
			out = append(out, spec)
		}
	}
	return out
}

// certificateSpecs finds the cert-manager Certificates that can serve a webhook; E03 reports
// only when none of them covers the name. The one its configuration's inject-ca-from annotation
// names is the one it trusts, so the serving one, unless it is a CA (isCA): the configuration
// then trusts what the CA issues, and the Certificates issued by it (those the server mounts,
// when the input says) serve. Others the server mounts (a metrics certificate, as kubebuilder's
// scaffold adds) serve something else. Without the annotation, every Certificate writing a
// Secret the server's pods mount may be the one, but for CAs: lint cannot tell which file the
// server loads.
func (a *analysis) certificateSpecs(w *webhook) []*certificateSpec {
	named, ok := a.injectedCertificate(w.config)
	if ok && !named.isCA {
		return []*certificateSpec{named}
	}
	var mounted []*certificateSpec
	if b := w.backend; b != nil {
		for _, secret := range a.mountedSecrets(b) {
			for _, key := range sortedKeys(a.inv.certificates) {
				spec := a.inv.certificates[key]
				if inNamespace(spec.name.namespace, b.namespace) && spec.secretName == secret && !spec.isCA && !slices.Contains(mounted, spec) {
					mounted = append(mounted, spec)
				}
			}
		}
	}
	if !ok {
		return mounted
	}
	issued := a.issuedBy(named)
	if both := slices.DeleteFunc(slices.Clone(issued), func(s *certificateSpec) bool { return !slices.Contains(mounted, s) }); len(both) > 0 {
		return both
	}
	if len(issued) > 0 {
		return issued
	}
	return mounted
}

// mountedSecrets lists the Secrets the backend's pods mount.
func (a *analysis) mountedSecrets(b *backend) []string {
	var names []string
	for _, wl := range b.workloads {
		names = append(names, wl.secretVolumes...)
	}
	return names
}

// sortedKeys returns the keys of m in name order, for stable output.
func sortedKeys[V any](m map[namespacedName]V) []namespacedName {
	keys := make([]namespacedName, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y namespacedName) int { return strings.Compare(x.String(), y.String()) })
	return keys
}

func issuedByAny(cert *x509.Certificate, bundle []*x509.Certificate) bool {
	for _, ca := range bundle {
		if bytes.Equal(cert.RawIssuer, ca.RawSubject) {
			return true
		}
	}
	return false
}

func selfSigned(cert *x509.Certificate) bool { return bytes.Equal(cert.RawIssuer, cert.RawSubject) }

// describeCert names a certificate by its common name, else its serial number.
func describeCert(cert *x509.Certificate) string {
	if cert.Subject.CommonName != "" {
		return fmt.Sprintf("%q", cert.Subject.CommonName)
	}
	return "with serial " + cert.SerialNumber.String()
}
