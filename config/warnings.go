package config

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// staticSuffix ends the names kube-apiserver reserves for configurations loaded from static
// manifest files.
const staticSuffix = ".static.k8s.io"

// WarningsMutating returns the warnings kube-apiserver 1.36 sends when c is created: a name with
// the suffix reserved for static manifests. (Rules on the authentication and authorization
// reviews draw no warning: 1.36 sends those reviews to webhooks.)
func WarningsMutating(c *admissionregistrationv1.MutatingWebhookConfiguration) []string {
	return staticSuffixWarnings(c.Name)
}

// WarningsValidating returns the warnings kube-apiserver sends when c is created (see
// WarningsMutating).
func WarningsValidating(c *admissionregistrationv1.ValidatingWebhookConfiguration) []string {
	return staticSuffixWarnings(c.Name)
}

func staticSuffixWarnings(name string) []string {
	if !strings.HasSuffix(name, staticSuffix) {
		return nil
	}
	return []string{fmt.Sprintf("metadata.name: names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticSuffix)}
}
