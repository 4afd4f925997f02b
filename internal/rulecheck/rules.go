package rulecheck

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Operations and Scopes are the values kube-apiserver accepts, in the order its messages list them.
func Operations() []string {
	return []string{string(admissionregistrationv1.OperationAll), string(admissionregistrationv1.Connect), string(admissionregistrationv1.Create), string(admissionregistrationv1.Delete), string(admissionregistrationv1.Update)}
}

func Scopes() []string {
	return []string{string(admissionregistrationv1.AllScopes), string(admissionregistrationv1.ClusterScope), string(admissionregistrationv1.NamespacedScope)}
}

// Rule checks one rule: operations, groups, versions and resources present, "*" alone where it
// must be, no empty version or resource, no resource already covered by a wildcard entry, a
// known operation and scope.
func Rule(rule *admissionregistrationv1.RuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Operations) == 0 {
		errs = append(errs, field.Required(path.Child("operations"), ""))
	}
	if len(rule.Operations) > 1 && slices.Contains(rule.Operations, "*") {
		errs = append(errs, field.Invalid(path.Child("operations"), rule.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, operation := range rule.Operations {
		if !slices.Contains(Operations(), string(operation)) {
			errs = append(errs, field.NotSupported(path.Child("operations").Index(i), operation, Operations()))
		}
	}
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(path.Child("apiGroups"), ""))
	}
	if len(rule.APIGroups) > 1 && slices.Contains(rule.APIGroups, "*") {
		errs = append(errs, field.Invalid(path.Child("apiGroups"), rule.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	// An empty group is the legacy core group, so it is allowed; an empty version is not.
	if len(rule.APIVersions) == 0 {
		errs = append(errs, field.Required(path.Child("apiVersions"), ""))
	}
	if len(rule.APIVersions) > 1 && slices.Contains(rule.APIVersions, "*") {
		errs = append(errs, field.Invalid(path.Child("apiVersions"), rule.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, version := range rule.APIVersions {
		if version == "" {
			errs = append(errs, field.Required(path.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, resources(rule.Resources, path.Child("resources"))...)
	if rule.Scope != nil && !slices.Contains(Scopes(), string(*rule.Scope)) {
		errs = append(errs, field.NotSupported(path.Child("scope"), *rule.Scope, Scopes()))
	}
	return errs
}

// resources checks resource entries ("pods", "pods/status", "pods/*", "*/status", "*",
// "*/*"): none empty, and no entry already covered by a wildcard entry.
func resources(resources []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(path, ""))
	}
	// Entries "x/*" and "*/y" seen so far, by x and by y: later "x/z" and "z/y" are redundant.
	withAnySubresource := sets.New[string]()
	anyResourceWith := sets.New[string]()
	hasAll, hasAnyResource, hasPlainResource := false, false, false
	for i, entry := range resources {
		if entry == "" {
			errs = append(errs, field.Required(path.Index(i), ""))
			continue
		}
		hasAll = hasAll || entry == "*/*"
		hasAnyResource = hasAnyResource || entry == "*"
		resource, subresource, found := strings.Cut(entry, "/")
		if !found {
			// As in the apiserver, this records whether the last entry without a subresource
			// is a named resource.
			hasPlainResource = entry != "*"
			continue
		}
		if withAnySubresource.Has(resource) {
			errs = append(errs, field.Invalid(path.Index(i), entry, fmt.Sprintf("if '%s/*' is present, must not specify %s", resource, entry)))
		}
		if anyResourceWith.Has(subresource) {
			errs = append(errs, field.Invalid(path.Index(i), entry, fmt.Sprintf("if '*/%s' is present, must not specify %s", subresource, entry)))
		}
		if subresource == "*" {
			withAnySubresource.Insert(resource)
		}
		if resource == "*" {
			anyResourceWith.Insert(subresource)
		}
	}
	if len(resources) > 1 && hasAll {
		errs = append(errs, field.Invalid(path, resources, "if '*/*' is present, must not specify other resources"))
	}
	if hasAnyResource && hasPlainResource {
		errs = append(errs, field.Invalid(path, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}
