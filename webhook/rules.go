package webhook

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/sets"
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

// operationValues and scopeValues are what kube-apiserver accepts, in the order its messages
// list them.
func operationValues() []string { return []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"} }
func scopeValues() []string     { return []string{"*", "Cluster", "Namespaced"} }

// validateRules checks rules as kube-apiserver validates a configuration's rules: operations,
// groups, versions and resources present, "*" alone where it must be, no empty version or
// resource, no resource already covered by a wildcard entry, a known scope.
func validateRules(rules []admissionregistrationv1.RuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, rule := range rules {
		at := path.Index(i)
		errs = append(errs, validateList(at.Child("operations"), toStrings(rule.Operations), "operations")...)
		for j, op := range rule.Operations {
			if !slices.Contains(operationValues(), string(op)) {
				errs = append(errs, field.NotSupported(at.Child("operations").Index(j), op, operationValues()))
			}
		}
		// An empty group is the core group; an empty version is nothing.
		errs = append(errs, validateList(at.Child("apiGroups"), rule.APIGroups, "API groups")...)
		errs = append(errs, validateList(at.Child("apiVersions"), rule.APIVersions, "API versions")...)
		for j, v := range rule.APIVersions {
			if v == "" {
				errs = append(errs, field.Required(at.Child("apiVersions").Index(j), ""))
			}
		}
		errs = append(errs, validateRuleResources(rule.Resources, at.Child("resources"))...)
		if rule.Scope != nil && !slices.Contains(scopeValues(), string(*rule.Scope)) {
			errs = append(errs, field.NotSupported(at.Child("scope"), *rule.Scope, scopeValues()))
		}
	}
	return errs
}

// validateList checks that a rule's list is not empty and holds "*" only alone.
func validateList(path *field.Path, values []string, what string) field.ErrorList {
	if len(values) == 0 {
		return field.ErrorList{field.Required(path, "")}
	}
	if len(values) > 1 && slices.Contains(values, "*") {
		return field.ErrorList{field.Invalid(path, values, "if '*' is present, must not specify other "+what)}
	}
	return nil
}

// validateRuleResources checks a rule's resources ("pods", "pods/status", "pods/*", "*/status",
// "*", "*/*"): present, none empty, none covered by a wildcard entry before it.
func validateRuleResources(resources []string, path *field.Path) field.ErrorList {
	if len(resources) == 0 {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	anySubresourceOf, anyResourceWith := sets.New[string](), sets.New[string]()
	hasAll, hasAny, lastPlainIsNamed := false, false, false
	for i, entry := range resources {
		if entry == "" {
			errs = append(errs, field.Required(path.Index(i), ""))
			continue
		}
		hasAll = hasAll || entry == "*/*"
		hasAny = hasAny || entry == "*"
		resource, sub, found := strings.Cut(entry, "/")
		if !found {
			// As in the apiserver: whether the last entry without a subresource names one.
			lastPlainIsNamed = entry != "*"
			continue
		}
		if anySubresourceOf.Has(resource) {
			errs = append(errs, field.Invalid(path.Index(i), entry, fmt.Sprintf("if '%s/*' is present, must not specify %s", resource, entry)))
		}
		if anyResourceWith.Has(sub) {
			errs = append(errs, field.Invalid(path.Index(i), entry, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, entry)))
		}
		if sub == "*" {
			anySubresourceOf.Insert(resource)
		}
		if resource == "*" {
			anyResourceWith.Insert(sub)
		}
	}
	if len(resources) > 1 && hasAll {
		errs = append(errs, field.Invalid(path, resources, "if '*/*' is present, must not specify other resources"))
	}
	if hasAny && lastPlainIsNamed {
		errs = append(errs, field.Invalid(path, resources, "if '*' is present, must not specify other resources without subresources"))
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

func toStrings[S ~string](values []S) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
