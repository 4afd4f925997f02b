package webhook

import (
	"slices"
	"strings"

	"github.com/admitkit/admit/internal/rulecheck"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rules are the webhook's rules as its configuration states them: Rules as given, or the one
// rule of Kind, Resource, Scope and Operations; a rule without a scope gets "*", the
// apiserver's default.
func (w Webhook) rules() []admissionregistrationv1.RuleWithOperations {
	all := admissionregistrationv1.AllScopes
	if len(w.Rules) > 0 {
		out := make([]admissionregistrationv1.RuleWithOperations, len(w.Rules))
		for i, r := range w.Rules {
			r.DeepCopyInto(&out[i])
			if out[i].Scope == nil {
				out[i].Scope = &all
			}
		}
		return out
	}
	scope := w.Scope
	if scope == "" {
		scope = all
	}
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: slices.Clone(w.Operations),
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{w.Kind.Group}, APIVersions: []string{w.Kind.Version},
			Resources: []string{w.Resource}, Scope: &scope,
		},
	}}
}

// validateRules checks rules as kube-apiserver validates a configuration's rules
// (internal/rulecheck, which config checks configurations with).
func validateRules(rules []admissionregistrationv1.RuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range rules {
		errs = append(errs, rulecheck.Rule(&rules[i], path.Index(i))...)
	}
	return errs
}

// rulesMatch reports whether one of rules names the group, version, resource and subresource
// of a request, as kube-apiserver matches them: "*" for any group or version, "r/*" for r and
// any of its subresources, "*" for any resource without a subresource, "*/s" for subresource s
// of any resource. Operations and scope are left to the apiserver.
func rulesMatch(rules []admissionregistrationv1.RuleWithOperations, group, version, resource, sub string) bool {
	for _, r := range rules {
		if !matchesOrStar(r.APIGroups, group) || !matchesOrStar(r.APIVersions, version) {
			continue
		}
		for _, entry := range r.Resources {
			res, s, _ := strings.Cut(entry, "/")
			if (res == "*" || res == resource) && (s == "*" || s == sub) {
				return true
			}
		}
	}
	return false
}

func matchesOrStar(values []string, v string) bool {
	return slices.Contains(values, "*") || slices.Contains(values, v)
}
