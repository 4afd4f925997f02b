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
)

// checkExpiry (E02): expired, not yet valid and soon expiring certificates: those of caBundle,
// and the serving certificates the input holds.
func checkExpiry(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		reported := map[[sha256.Size]byte]bool{}
		first := func(cert *x509.Certificate) bool {
			sum := sha256.Sum256(cert.Raw)
			seen := reported[sum]
			reported[sum] = true
			return !seen
		}
		for _, g := range bundleGroups(c) {
			for _, cert := range g.certs {
				what := "the CA certificate " + describeCert(cert) + " in caBundle"
				if !cert.IsCA {
					what = "the certificate " + describeCert(cert) + " in caBundle"
				}
				f, state, ok := a.expiryFinding(c, g.first, caBundleField(g.first), cert, what, g.shared())
				if !ok || !first(cert) {
					continue
				}
				if through, dead := a.deadWeight(g, cert, f.severity); dead {
					f.severity = Info
					f.message = fmt.Sprintf("%s %s%s, but %s", what, state, g.shared(), through)
					f.hint = "remove it from caBundle"
				}
				out = append(out, f)
			}
		}
		for _, w := range c.webhooks {
			certs, trusted := a.servingCerts(w, parsedBundle(w))
			certs = slices.DeleteFunc(certs, func(sc servingCert) bool { return sc.from == fromBundle }) // judged with the bundle
			field := w.path().Child("clientConfig", "service").String()
			what := func(sc servingCert) string {
				return "the serving certificate " + describeCert(sc.cert) + " in " + sc.from
			}
			for _, sc := range judgeServing(certs, trusted, func(sc servingCert) bool {
				_, _, ok := a.expiryFinding(c, w, field, sc.cert, what(sc), "")
				return ok
			}) {
				if f, _, ok := a.expiryFinding(c, w, field, sc.cert, what(sc), ""); ok && first(sc.cert) {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// expiryFinding reports a certificate out of its validity period or leaving it within the
// warning window; state is what the message says of its dates, for callers that grade it
// otherwise.
func (a *analysis) expiryFinding(c *configuration, w *webhook, field string, cert *x509.Certificate, what, suffix string) (f finding, state string, ok bool) {
	f = finding{config: c, webhook: w, field: field}
	switch {
	case a.now.After(cert.NotAfter):
		state = "expired on " + day(cert.NotAfter)
		f.severity = Error
		f.message = fmt.Sprintf("%s %s: TLS handshakes with the webhook fail%s", what, state, suffix)
		f.hint = "renew the certificate; for a CA, publish the new one in caBundle before the server uses a certificate it signed"
	case a.now.Before(cert.NotBefore):
		state = "is not valid before " + day(cert.NotBefore)
		f.severity = Error
		f.message = fmt.Sprintf("%s %s: TLS handshakes with the webhook fail until then%s", what, state, suffix)
		f.hint = "check the clock of the machine that issued it, or issue it with an earlier notBefore"
	case a.now.Add(a.expiryWarning).After(cert.NotAfter):
		days := int(cert.NotAfter.Sub(a.now).Hours() / 24)
		state = fmt.Sprintf("expires on %s, in %s", day(cert.NotAfter), plural(days, "day"))
		f.severity = Warning
		f.message = fmt.Sprintf("%s %s%s", what, state, suffix)
		f.hint = "renew it now, or automate renewal (cert-manager, or admit certs create with --ca-cert and --ca-key)"
	default:
		return finding{}, "", false
	}
	return f, state, true
}

// deadWeight says whether a certificate of the bundle that is out of its validity (an error) or
// leaves it within the warning window (a warning) breaks nothing, and why: Go verifies the
// server's chain through any anchor of the pool, so another certificate of the bundle, valid
// over that time, that anchors every serving chain this one anchors (those the input holds and
// the configuration trusts) carries the handshakes. When the input holds no serving
// certificate, lint assumes another valid certificate of the bundle signs it, and says so.
func (a *analysis) deadWeight(g *bundleGroup, cert *x509.Certificate, severity Severity) (string, bool) {
	until := a.now
	if severity == Warning {
		until = a.now.Add(a.expiryWarning)
	}
	var valid []*x509.Certificate
	for _, other := range g.certs {
		if !bytes.Equal(other.Raw, cert.Raw) && !a.now.Before(other.NotBefore) && other.NotAfter.After(until) {
			valid = append(valid, other)
		}
	}
	if len(valid) == 0 {
		return "", false
	}
	var chains [][]*x509.Certificate
	for _, w := range g.webhooks {
		if certs, trusted := a.servingCerts(w, g.certs); trusted {
			for _, sc := range certs {
				if sc.from != fromBundle {
					chains = append(chains, sc.chain)
				}
			}
		}
	}
	if len(chains) == 0 {
		return fmt.Sprintf("the input does not hold the serving certificate: if %s, valid until %s, signs it, as lint assumes, handshakes verify through that one and this one is dead weight",
			describeCert(valid[0]), day(valid[0].NotAfter)), true
	}
	var through *x509.Certificate
	for _, chain := range chains {
		i := slices.IndexFunc(valid, func(v *x509.Certificate) bool { return signsChain(v, chain) })
		if signsChain(cert, chain) && i < 0 {
			return "", false // a serving chain needs this one
		}
		if i >= 0 && through == nil {
			through = valid[i]
		}
	}
	if through == nil {
		return "it anchors none of the serving certificates the input holds: it is dead weight", true
	}
	return fmt.Sprintf("the serving certificates the input holds verify through %s, valid until %s: this one is dead weight", describeCert(through), day(through.NotAfter)), true
}

// parsedBundle returns the certificates the apiserver loads from the webhook's caBundle.
func parsedBundle(w *webhook) []*x509.Certificate {
	return loadedCertificates(w.spec.ClientConfig.CABundle)
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
			certs, trusted := a.servingCerts(w, parsedBundle(w))
			for _, sc := range judgeServing(certs, trusted, func(sc servingCert) bool { return sc.cert.VerifyHostname(host) != nil }) {
				key := fmt.Sprintf("%x/%s", sha256.Sum256(sc.cert.Raw), host)
				if reported[key] {
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

// checkSHA1 (E04): SHA-1 signatures the apiserver verifies: those of the links of a serving
// chain below its trust anchor. The anchors, the certificates of caBundle, are trusted as they
// are: their own signatures are never checked, nor is a self-signed root's.
func checkSHA1(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		reported := map[[sha256.Size]byte]bool{}
		for _, w := range c.webhooks {
			bundle := parsedBundle(w)
			certs, trusted := a.servingCerts(w, bundle)
			for _, sc := range judgeServing(certs, trusted, func(sc servingCert) bool { return len(sha1Links(sc.chain, bundle)) > 0 }) {
				for _, i := range sha1Links(sc.chain, bundle) {
					cert := sc.chain[i]
					sum := sha256.Sum256(cert.Raw)
					if reported[sum] {
						continue
					}
					reported[sum] = true
					what := "the serving certificate " + describeCert(cert) + " in " + sc.from
					if i > 0 {
						what = "the intermediate certificate " + describeCert(cert) + " that the server sends after its own, in " + sc.from + ","
					}
					out = append(out, finding{
						config: c, webhook: w, field: w.path().Child("clientConfig", "service").String(),
						message: fmt.Sprintf("%s is signed with %s: Go clients, kube-apiserver among them, refuse SHA-1 signatures", what, cert.SignatureAlgorithm),
						hint:    "reissue the certificate signed with SHA-256 or better",
					})
				}
			}
		}
	}
	return out
}

// sha1Links returns the positions in a chain the server sends of the certificates whose SHA-1
// signature verification checks: those before the first anchor (a certificate of the bundle) or
// self-signed root.
func sha1Links(chain, bundle []*x509.Certificate) []int {
	var out []int
	for i, cert := range chain {
		if inBundle(cert, bundle) || selfSigned(cert) {
			break
		}
		if isSHA1(cert.SignatureAlgorithm) {
			out = append(out, i)
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
