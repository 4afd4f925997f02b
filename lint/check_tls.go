package lint

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/admitkit/admit/certs"
)

// injectionAnnotations tell an injector to fill in caBundle.
func injectionAnnotations() []string {
	return []string{
		"cert-manager.io/inject-ca-from",
		"cert-manager.io/inject-ca-from-secret",
		"cert-manager.io/inject-apiserver-ca",
		openShiftInjectionAnnotation,
	}
}

// openShiftInjectionAnnotation asks OpenShift's service CA operator to fill in caBundle: only
// OpenShift answers it, so a configuration carrying it is meant for OpenShift.
const openShiftInjectionAnnotation = "service.beta.openshift.io/inject-cabundle"

// bundleGroup is the webhooks of one configuration that share a caBundle: checks report a
// bundle once, on its first webhook.
type bundleGroup struct {
	first *webhook
	count int
	data  []byte
	certs []*x509.Certificate
	err   error
}

func (g *bundleGroup) shared() string {
	if g.count < 2 {
		return ""
	}
	return fmt.Sprintf(" (the same caBundle is set on %d webhooks of this configuration)", g.count)
}

func bundleGroups(c *configuration) []*bundleGroup {
	var groups []*bundleGroup
	index := map[string]*bundleGroup{}
	for _, w := range c.webhooks {
		data := w.spec.ClientConfig.CABundle
		if g, ok := index[string(data)]; ok {
			g.count++
			continue
		}
		g := &bundleGroup{first: w, count: 1, data: data}
		if len(data) > 0 {
			g.certs, g.err = certs.ParseCertificatesPEM(data)
		}
		index[string(data)] = g
		groups = append(groups, g)
	}
	return groups
}

func caBundleField(w *webhook) string {
	return w.path().Child("clientConfig", "caBundle").String()
}

// checkCABundlePEM (E01): caBundle must hold certificates and nothing else.
func checkCABundlePEM(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, g := range bundleGroups(c) {
			if g.err == nil || emptyBundle(g.data) {
				continue // an empty or blank bundle is rule E05's
			}
			hint := "set caBundle to the PEM of the CA certificate(s) that signed the serving certificate"
			if bytes.Contains(g.data, []byte("PRIVATE KEY")) {
				hint = "remove the private key and replace the key pair: everyone who can read webhook configurations has seen it"
			}
			out = append(out, finding{
				config: c, webhook: g.first, field: caBundleField(g.first),
				message: fmt.Sprintf("is not a bundle of certificates only: %v%s", g.err, g.shared()),
				hint:    hint,
			})
		}
	}
	return out
}

// servingCert is a serving certificate found in the input, and where.
type servingCert struct {
	cert *x509.Certificate
	from string
}

// servingCerts finds the certificates a webhook's server presents, as far as the input tells:
// the tls.crt of Secrets its pods mount (or, when no workload is known, of Secrets in its
// namespace issued by a CA of the caBundle), and leaf certificates put directly in caBundle.
func (a *analysis) servingCerts(w *webhook, bundle []*x509.Certificate) []servingCert {
	var out []servingCert
	seen := map[[sha256.Size]byte]bool{}
	add := func(cert *x509.Certificate, from string) {
		sum := sha256.Sum256(cert.Raw)
		if !seen[sum] {
			seen[sum] = true
			out = append(out, servingCert{cert: cert, from: from})
		}
	}
	if b := w.backend; b != nil {
		for _, name := range a.mountedSecrets(b) {
			if chain, _ := lookup(a.inv.secrets, b.namespace, name); len(chain) > 0 {
				add(chain[0], fmt.Sprintf("Secret %q", b.namespace+"/"+name))
			}
		}
		if len(b.workloads) == 0 {
			for _, key := range sortedKeys(a.inv.secrets) {
				chain := a.inv.secrets[key]
				if inNamespace(key.namespace, b.namespace) && len(chain) > 0 && issuedByAny(chain[0], bundle) {
					add(chain[0], fmt.Sprintf("Secret %q", key.String()))
				}
			}
		}
	}
	for _, cert := range bundle {
		if !cert.IsCA {
			add(cert, "caBundle")
		}
	}
	return out
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

// checkExpiry (E02): expired, not yet valid and soon expiring certificates.
func checkExpiry(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		reported := map[[sha256.Size]byte]bool{}
		report := func(w *webhook, field string, cert *x509.Certificate, what, suffix string) {
			sum := sha256.Sum256(cert.Raw)
			if reported[sum] {
				return
			}
			reported[sum] = true
			if f, ok := a.expiryFinding(c, w, field, cert, what, suffix); ok {
				out = append(out, f)
			}
		}
		for _, g := range bundleGroups(c) {
			for _, cert := range g.certs {
				what := "the CA certificate " + describeCert(cert) + " in caBundle"
				if !cert.IsCA {
					what = "the certificate " + describeCert(cert) + " in caBundle"
				}
				report(g.first, caBundleField(g.first), cert, what, g.shared())
			}
		}
		for _, w := range c.webhooks {
			for _, sc := range a.servingCerts(w, parsedBundle(w)) {
				if sc.from == "caBundle" {
					continue // reported with the bundle
				}
				report(w, w.path().Child("clientConfig", "service").String(), sc.cert, "the serving certificate "+describeCert(sc.cert)+" in "+sc.from, "")
			}
		}
	}
	return out
}

func (a *analysis) expiryFinding(c *configuration, w *webhook, field string, cert *x509.Certificate, what, suffix string) (finding, bool) {
	f := finding{config: c, webhook: w, field: field}
	day := func(t time.Time) string { return t.UTC().Format("2006-01-02") }
	switch {
	case a.now.After(cert.NotAfter):
		f.severity = Error
		f.message = fmt.Sprintf("%s expired on %s: TLS handshakes with the webhook fail%s", what, day(cert.NotAfter), suffix)
		f.hint = "renew the certificate; for a CA, publish the new one in caBundle before the server uses a certificate it signed"
	case a.now.Before(cert.NotBefore):
		f.severity = Error
		f.message = fmt.Sprintf("%s is not valid before %s: TLS handshakes with the webhook fail until then%s", what, day(cert.NotBefore), suffix)
		f.hint = "check the clock of the machine that issued it, or issue it with an earlier notBefore"
	case a.now.Add(a.expiryWarning).After(cert.NotAfter):
		days := int(cert.NotAfter.Sub(a.now).Hours() / 24)
		f.severity = Warning
		f.message = fmt.Sprintf("%s expires on %s, in %s%s", what, day(cert.NotAfter), plural(days, "day"), suffix)
		f.hint = "renew it now, or automate renewal (cert-manager, or admit certs create with --ca-cert and --ca-key)"
	default:
		return finding{}, false
	}
	return f, true
}

func parsedBundle(w *webhook) []*x509.Certificate {
	if len(w.spec.ClientConfig.CABundle) == 0 {
		return nil
	}
	bundle, err := certs.ParseCertificatesPEM(w.spec.ClientConfig.CABundle)
	if err != nil {
		return nil
	}
	return bundle
}

// serverName is the name the apiserver verifies the serving certificate against, and whether
// the webhook has one.
func serverName(w *webhook) (string, bool) {
	if w.backend != nil {
		return w.backend.host(), true
	}
	if w.spec.ClientConfig.URL == nil {
		return "", false
	}
	u, err := url.Parse(*w.spec.ClientConfig.URL)
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	return u.Hostname(), true
}

// checkNames (E03): serving certificates and cert-manager Certificates that do not name the
// host the apiserver connects to.
func checkNames(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		reported := map[string]bool{}
		for _, w := range c.webhooks {
			host, ok := serverName(w)
			if !ok {
				continue
			}
			field := w.path().Child("clientConfig").String()
			for _, sc := range a.servingCerts(w, parsedBundle(w)) {
				key := fmt.Sprintf("%x/%s", sha256.Sum256(sc.cert.Raw), host)
				if reported[key] || sc.cert.VerifyHostname(host) == nil {
					continue
				}
				reported[key] = true
				out = append(out, finding{
					config: c, webhook: w, field: field,
					message: fmt.Sprintf("the serving certificate %s in %s is valid for %s, not for %q, the name the apiserver connects to: every TLS handshake fails",
						describeCert(sc.cert), sc.from, describeNames(sc.cert.DNSNames, ipStrings(sc.cert.IPAddresses)), host),
					hint: fmt.Sprintf("reissue the certificate with %q among its subject alternative names (the common name is not consulted)", host),
				})
			}
			specs := a.certificateSpecs(w)
			if slices.ContainsFunc(specs, func(spec *certificateSpec) bool { return certificateCovers(spec, host) }) {
				continue // the server can serve the one that covers the name
			}
			for _, spec := range specs {
				key := "certificate/" + spec.name.String() + "/" + host
				if reported[key] {
					continue
				}
				reported[key] = true
				out = append(out, finding{
					config: c, webhook: w, field: field,
					message: fmt.Sprintf("the cert-manager Certificate %q issues certificates for %s, not for %q, the name the apiserver connects to: every TLS handshake fails",
						spec.name.String(), describeNames(spec.dnsNames, spec.ipAddresses), host),
					hint: fmt.Sprintf("add %q to the Certificate's spec.dnsNames", host),
				})
			}
		}
	}
	return out
}

// certificateSpecs finds the cert-manager Certificates that can serve a webhook. The one its
// configuration's inject-ca-from annotation names is the one it trusts, so the serving one:
// others the server mounts (a metrics certificate, as kubebuilder's scaffold adds) serve
// something else. Without the annotation, every Certificate writing a Secret the server's pods
// mount may be the one: lint cannot tell which file the server loads.
func (a *analysis) certificateSpecs(w *webhook) []*certificateSpec {
	if ref, ok := w.config.annotations["cert-manager.io/inject-ca-from"]; ok {
		if ns, name, ok := strings.Cut(ref, "/"); ok {
			if spec, found := lookup(a.inv.certificates, ns, name); found && spec != nil {
				return []*certificateSpec{spec}
			}
		}
	}
	var out []*certificateSpec
	seen := map[namespacedName]bool{}
	if b := w.backend; b != nil {
		for _, secret := range a.mountedSecrets(b) {
			for _, key := range sortedKeys(a.inv.certificates) {
				spec := a.inv.certificates[key]
				if inNamespace(spec.name.namespace, b.namespace) && spec.secretName == secret && !seen[spec.name] {
					seen[spec.name] = true
					out = append(out, spec)
				}
			}
		}
	}
	return out
}

func certificateCovers(spec *certificateSpec, host string) bool {
	cert := &x509.Certificate{DNSNames: spec.dnsNames}
	for _, ip := range spec.ipAddresses {
		if parsed := net.ParseIP(ip); parsed != nil {
			cert.IPAddresses = append(cert.IPAddresses, parsed)
		}
	}
	return cert.VerifyHostname(host) == nil
}

func ipStrings(ips []net.IP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out
}

func describeNames(dnsNames, ips []string) string {
	names := append(quoteAll(dnsNames), ips...)
	if len(names) == 0 {
		return "no DNS name or IP address"
	}
	return strings.Join(names, ", ")
}

// checkSHA1 (E04): certificates whose SHA-1 signature the apiserver would have to verify.
// A self-signed root's own signature is never verified, so it does not count.
func checkSHA1(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		reported := map[[sha256.Size]byte]bool{}
		report := func(w *webhook, field string, cert *x509.Certificate, what string) {
			sum := sha256.Sum256(cert.Raw)
			if reported[sum] || selfSigned(cert) || !isSHA1(cert.SignatureAlgorithm) {
				return
			}
			reported[sum] = true
			out = append(out, finding{
				config: c, webhook: w, field: field,
				message: fmt.Sprintf("%s is signed with %s: Go clients, kube-apiserver among them, refuse SHA-1 signatures", what, cert.SignatureAlgorithm),
				hint:    "reissue the certificate signed with SHA-256 or better",
			})
		}
		for _, g := range bundleGroups(c) {
			for _, cert := range g.certs {
				report(g.first, caBundleField(g.first), cert, "the certificate "+describeCert(cert)+" in caBundle")
			}
		}
		for _, w := range c.webhooks {
			for _, sc := range a.servingCerts(w, parsedBundle(w)) {
				if sc.from != "caBundle" {
					report(w, w.path().Child("clientConfig", "service").String(), sc.cert, "the serving certificate "+describeCert(sc.cert)+" in "+sc.from)
				}
			}
		}
	}
	return out
}

func isSHA1(alg x509.SignatureAlgorithm) bool {
	switch alg {
	case x509.SHA1WithRSA, x509.DSAWithSHA1, x509.ECDSAWithSHA1:
		return true
	}
	return false
}

// checkEmptyCABundle (E05): service webhooks that will be verified against the system roots.
func checkEmptyCABundle(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		if injected(c) {
			continue
		}
		var empty []*webhook
		for _, w := range c.webhooks {
			if w.backend != nil && emptyBundle(w.spec.ClientConfig.CABundle) {
				empty = append(empty, w)
			}
		}
		if len(empty) == 0 || len(a.caBundleFillers(c)) > 0 {
			continue
		}
		first := empty[0]
		f := finding{config: c, webhook: first, field: caBundleField(first),
			hint: "set caBundle (admit certs inject --ca-file ca.crt), annotate the configuration for an injector (cert-manager.io/inject-ca-from: <namespace>/<certificate>), or ship what fills it in (its RBAC: update or patch on this configuration)",
		}
		around := slices.ContainsFunc(empty, func(w *webhook) bool { return w.backend.svc != nil || a.inv.workloadsIn(w.backend.namespace) })
		failClosed := slices.ContainsFunc(empty, (*webhook).failClosed)
		switch {
		case !around:
			f.severity = Info
			f.message = "is empty, and the input holds nothing around the configuration that says who fills it in (no Service, workload or RBAC rule): unless something outside the input does, the apiserver verifies the server against its system roots and every call fails"
		case failClosed:
			f.severity = Error
			f.message = "is empty, and nothing in the input fills it in (no injection annotation, no ServiceAccount that may update the configuration): the apiserver verifies the server against its system roots, every call fails, and under failurePolicy Fail so does every write the webhook intercepts"
		default:
			f.severity = Warning
			f.message = "is empty, and nothing in the input fills it in (no injection annotation, no ServiceAccount that may update the configuration): the apiserver verifies the server against its system roots, every call fails, and under failurePolicy Ignore the webhook silently does nothing"
		}
		if len(empty) > 1 {
			f.message += fmt.Sprintf(" (%d webhooks of this configuration have no caBundle)", len(empty))
		}
		if roles := a.boundBuiltinRolesWithout(c, first.backend.namespace); len(roles) > 0 {
			f.message += fmt.Sprintf("; the input binds ServiceAccounts to the built-in ClusterRole %s, which may not update webhook configurations", strings.Join(quoteAll(roles), ", "))
		}
		out = append(out, f)
	}
	return out
}

func injected(c *configuration) bool {
	for _, key := range injectionAnnotations() {
		if _, ok := c.annotations[key]; ok {
			return true
		}
	}
	return false
}
