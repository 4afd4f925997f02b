package config

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/dispatch"
)

// staticSuffix ends the names kube-apiserver reserves for configurations loaded from static
// manifest files.
const staticSuffix = ".static.k8s.io"

// WarningsMutating returns the warnings kube-apiserver sends when c is created: a name with the
// suffix reserved for static manifests, and rules that name a resource webhooks never see.
func WarningsMutating(c *admissionregistrationv1.MutatingWebhookConfiguration) []string {
	warnings := staticSuffixWarnings(c.Name)
	for i := range c.Webhooks {
		warnings = append(warnings, excludedResourceWarnings(c.Webhooks[i].Rules, field.NewPath("webhooks").Index(i).Child("rules"))...)
	}
	return warnings
}

// WarningsValidating returns the warnings kube-apiserver sends when c is created (see
// WarningsMutating).
func WarningsValidating(c *admissionregistrationv1.ValidatingWebhookConfiguration) []string {
	warnings := staticSuffixWarnings(c.Name)
	for i := range c.Webhooks {
		warnings = append(warnings, excludedResourceWarnings(c.Webhooks[i].Rules, field.NewPath("webhooks").Index(i).Child("rules"))...)
	}
	return warnings
}

func staticSuffixWarnings(name string) []string {
	if !strings.HasSuffix(name, staticSuffix) {
		return nil
	}
	return []string{fmt.Sprintf("metadata.name: names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticSuffix)}
}

// excludedResourceWarnings warns about rules that name an excluded resource explicitly. A
// wildcard group or resource is not flagged: such a rule means "everything", not the excluded
// resource in particular. Versions do not matter: every version of the resource is excluded.
func excludedResourceWarnings(rules []admissionregistrationv1.RuleWithOperations, path *field.Path) []string {
	excluded := dispatch.ExcludedVirtualResources()
	var warnings []string
	for i, rule := range rules {
		if slices.Contains(rule.APIGroups, "*") || slices.Contains(rule.Resources, "*") {
			continue
		}
		var named []schema.GroupResource
		for _, group := range rule.APIGroups {
			for _, resource := range rule.Resources {
				gr := schema.GroupResource{Group: group, Resource: resource}
				if slices.Contains(excluded, gr) && !slices.Contains(named, gr) {
					named = append(named, gr)
				}
			}
		}
		for _, gr := range named {
			warnings = append(warnings, fmt.Sprintf("%s: %s is excluded from admission webhooks; this rule will have no effect", path.Index(i), gr))
		}
	}
	return warnings
}
