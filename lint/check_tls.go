package lint

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"

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
	first    *webhook
	webhooks []*webhook
	count    int
	data     []byte
	// certs are the certificates the apiserver loads from the bundle; err says why the bundle
	// is not certificates only, nil when it is.
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
			g.webhooks = append(g.webhooks, w)
			continue
		}
		g := &bundleGroup{first: w, webhooks: []*webhook{w}, count: 1, data: data}
		if len(data) > 0 {
			g.certs = loadedCertificates(data)
			_, g.err = certs.ParseCertificatesPEM(data)
		}
		index[string(data)] = g
		groups = append(groups, g)
	}
	return groups
}

func caBundleField(w *webhook) string {
	return w.path().Child("clientConfig", "caBundle").String()
}

// loadedCertificates returns the certificates the apiserver trusts from a caBundle. client-go
// hands the bundle to Go's CertPool.AppendCertsFromPEM, which keeps the CERTIFICATE blocks
// without headers that parse and skips anything else: text around the blocks, other blocks,
// certificates it cannot parse.
func loadedCertificates(data []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for rest := data; len(rest) > 0; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if block.Type != "CERTIFICATE" || len(block.Headers) != 0 {
			continue
		}
		if cert, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, cert)
		}
	}
	return out
}

// checkCABundlePEM (E01): caBundle must hold certificates and nothing else. What the apiserver
// cannot use is an error: a private key (published to whoever reads the configuration) or a
// bundle it loads no certificate from; what it skips beside good certificates is info.
func checkCABundlePEM(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, g := range bundleGroups(c) {
			if g.err == nil || emptyBundle(g.data) {
				continue // an empty or blank bundle is rule E05's
			}
			f := finding{
				config: c, webhook: g.first, field: caBundleField(g.first),
				message: fmt.Sprintf("is not a bundle of certificates only: %v%s", g.err, g.shared()),
				hint:    "set caBundle to the PEM of the CA certificate(s) that signed the serving certificate",
			}
			switch {
			case bytes.Contains(g.data, []byte("PRIVATE KEY")):
				f.hint = "remove the private key and replace the key pair: everyone who can read webhook configurations has seen it"
			case len(g.certs) == 0:
				f.message += ": the apiserver loads no certificate from it, so no call can be verified"
			default:
				f.severity = Info
				f.message += fmt.Sprintf("; the apiserver loads the %s it holds and skips the rest, as Go's CertPool.AppendCertsFromPEM does", plural(len(g.certs), "certificate"))
				f.hint = "keep only the CERTIFICATE blocks (openssl x509 -in ca.crt -outform PEM prints nothing else)"
			}
			out = append(out, f)
		}
	}
	return out
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
		if len(empty) == 0 {
			continue
		}
		var namespaces []string
		for _, w := range empty {
			namespaces = append(namespaces, w.backend.namespace)
		}
		fillers := a.caBundleFillers(c, namespaces)
		if slices.ContainsFunc(fillers, func(f filler) bool { return f.sure }) {
			continue
		}
		first := empty[0]
		f := finding{config: c, webhook: first, field: caBundleField(first),
			hint: "set caBundle (admit certs inject --ca-file ca.crt), annotate the configuration for an injector (cert-manager.io/inject-ca-from: <namespace>/<certificate>), or ship what fills it in (its RBAC: update or patch on this configuration)",
		}
		around := slices.ContainsFunc(empty, func(w *webhook) bool { return w.backend.svc != nil || a.inv.workloadsIn(w.backend.namespace) })
		failClosed := slices.ContainsFunc(empty, (*webhook).failClosed)
		switch {
		case len(fillers) > 0:
			// Something may update the configuration, though nothing the input shows surely
			// fills in this one: lint assumes it does, and names it.
			f.severity = Info
			f.message = fmt.Sprintf("is empty, and lint assumes it is filled in at runtime by what may update the configuration: %s. The input shows nothing that surely does (a workload in the server's namespace, or one whose role names this configuration); if nothing does, the apiserver verifies the server against its system roots and every call fails", describeFillers(fillers))
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

// describeFillers names the first filler and counts the others.
func describeFillers(fillers []filler) string {
	if len(fillers) == 1 {
		return fillers[0].what
	}
	return fmt.Sprintf("%s (or one of %d others)", fillers[0].what, len(fillers)-1)
}

func injected(c *configuration) bool {
	for _, key := range injectionAnnotations() {
		if _, ok := c.annotations[key]; ok {
			return true
		}
	}
	return false
}
