package webhook

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook/internal/kinds"
)

// checkKind checks the webhook's kind against what its handler's Go type says: the kind a
// Scheme registers the type as, the kind of a Kubernetes API type, or the kind a type of your
// own is named after in a versioned package.
func checkKind(w Webhook, hk handlerKind) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("kind")
	switch {
	case w.Kind.Empty() && len(hk.exact) > 1:
		errs = append(errs, field.Required(path, fmt.Sprintf("%s registers %s as %s: say which", hk.source, hk.goType, kindStrings(hk.exact))))
	case w.Kind.Empty() && hk.named != nil:
		errs = append(errs, field.Required(path, fmt.Sprintf("the group of %s is not known: set kind, or give the webhook the Scheme its type is registered in", hk.goType)))
	case w.Kind.Empty() && len(w.Rules) == 0:
		errs = append(errs, field.Required(path, "the kind the handler decodes (or rules, for a handler that takes any kind)"))
	case w.Kind.Empty():
		// A handler of any kind, on the resources of its rules.
	case w.Kind.Kind == "" || w.Kind.Version == "":
		errs = append(errs, field.Invalid(path, kindString(w.Kind), "needs a version and a kind"))
	case len(hk.exact) > 0 && !slices.Contains(hk.exact, w.Kind):
		errs = append(errs, field.Invalid(path, kindString(w.Kind), fmt.Sprintf("the handler decodes %s, which is %s in %s", hk.goType, kindStrings(hk.exact), hk.source)))
	case hk.named != nil && (hk.named.Kind != w.Kind.Kind || hk.named.Version != w.Kind.Version):
		errs = append(errs, field.Invalid(path, kindString(w.Kind), fmt.Sprintf(
			"the handler decodes %s, of kind %s by its name and of version %s by its package; give the webhook the Scheme its type is registered in to have the group checked too",
			hk.goType, hk.named.Kind, hk.named.Version)))
	}
	if hk.unregistered {
		errs = append(errs, field.Invalid(field.NewPath("scheme"), hk.goType,
			"the handler's type is not registered in the Scheme: add it (AddToScheme), or leave the Scheme out for a partial view of objects"))
	}
	return errs
}

// checkResource checks Resource (and Scope) against Kind, with the resources Kubernetes
// serves for its own kinds, and refuses Resource, Scope and Operations beside Rules.
func checkResource(w Webhook) field.ErrorList {
	path := field.NewPath("resource")
	if len(w.Rules) > 0 {
		var errs field.ErrorList
		for _, f := range []struct {
			name string
			set  bool
		}{{"resource", w.Resource != ""}, {"scope", w.Scope != ""}, {"operations", len(w.Operations) > 0}} {
			if f.set {
				errs = append(errs, field.Forbidden(field.NewPath(f.name), "the rules say it: set either rules, or resource, scope and operations"))
			}
		}
		return errs
	}
	if w.Kind.Kind == "" {
		if w.Resource == "" {
			return field.ErrorList{field.Required(path, "")}
		}
		return nil // the kind is reported missing
	}
	if w.Resource == "" {
		plural, _ := meta.UnsafeGuessKindToResource(w.Kind)
		return field.ErrorList{field.Required(path, fmt.Sprintf("the plural resource of kind %s, probably %q", w.Kind.Kind, plural.Resource))}
	}
	if strings.Contains(w.Resource, "*") {
		return field.ErrorList{field.Invalid(path, w.Resource, fmt.Sprintf(
			"a wildcard matches other resources than %s's, which the handler cannot decode: use rules, with an empty kind for a handler that takes any kind", w.Kind.Kind))}
	}
	return checkKindResource(path, field.NewPath("scope"), w.Kind, w.Resource, w.Scope)
}

// checkRules checks rules as kube-apiserver would, then against Kind: a webhook that decodes
// one kind must not be sent another (its rules name Kind's group, version and resource only),
// and the resources of Kubernetes' own groups must exist.
func checkRules(w Webhook) field.ErrorList {
	path := field.NewPath("rules")
	errs := validateRules(w.Rules, path)
	var first string // the one resource of a webhook of one kind
	for i, rule := range w.Rules {
		at := path.Index(i)
		if w.Kind.Kind == "" {
			errs = append(errs, checkRuleResources(at, rule)...)
			continue
		}
		for _, list := range []struct {
			name   string
			values []string
			want   string
		}{{"apiGroups", rule.APIGroups, w.Kind.Group}, {"apiVersions", rule.APIVersions, w.Kind.Version}} {
			if len(list.values) > 0 && !slices.Equal(list.values, []string{list.want}) {
				errs = append(errs, field.Invalid(at.Child(list.name), list.values, fmt.Sprintf(
					"the handler decodes %s only, requests for others would be answered 400: name %q alone, or leave kind empty for a handler that takes any kind", kindString(w.Kind), list.want)))
			}
		}
		for j, entry := range rule.Resources {
			parent, _, _ := strings.Cut(entry, "/")
			switch {
			case entry == "":
				// Reported by validateRules.
			case parent == "*":
				errs = append(errs, field.Invalid(at.Child("resources").Index(j), entry, fmt.Sprintf(
					"matches other resources than %s's, which the handler cannot decode: leave kind empty for a handler that takes any kind", w.Kind.Kind)))
			case first != "" && parent != first:
				errs = append(errs, field.Invalid(at.Child("resources").Index(j), entry, fmt.Sprintf("a webhook that decodes one kind matches one resource, not %s and %s", first, parent)))
			default:
				first = parent
				scope := admissionregistrationv1.ScopeType("")
				if rule.Scope != nil {
					scope = *rule.Scope
				}
				errs = append(errs, checkKindResource(at.Child("resources").Index(j), at.Child("scope"), w.Kind, entry, scope)...)
			}
		}
	}
	return errs
}

// checkRuleResources checks that the resources a rule names in Kubernetes' own groups exist in
// one of them, with the subresources named, for a webhook of any kind. Versions are not
// checked: a cluster may serve a beta version Kubernetes 1.36 does not serve by default.
func checkRuleResources(at *field.Path, rule admissionregistrationv1.RuleWithOperations) field.ErrorList {
	if len(rule.APIGroups) == 0 || !all(rule.APIGroups, kinds.BuiltinGroup) {
		return nil // a custom group, or "*": only the cluster knows its resources
	}
	var errs field.ErrorList
	for j, entry := range rule.Resources {
		parent, sub, _ := strings.Cut(entry, "/")
		if parent == "*" || parent == "" {
			continue
		}
		var found []kinds.Resource
		for _, group := range rule.APIGroups {
			if res, ok := kinds.Lookup(group, parent); ok {
				found = append(found, res)
			}
		}
		switch {
		case len(found) == 0:
			group := rule.APIGroups[0]
			errs = append(errs, field.Invalid(at.Child("resources").Index(j), entry, fmt.Sprintf("group %s has no resource %q%s", groupNames(rule.APIGroups), parent, suggestion(group, parent))))
		case sub != "" && sub != "*" && !slices.ContainsFunc(found, func(r kinds.Resource) bool { return slices.Contains(r.Subresources, sub) }):
			errs = append(errs, field.Invalid(at.Child("resources").Index(j), entry, noSubresource(parent, sub, found[0])))
		}
	}
	return errs
}

func all(values []string, f func(string) bool) bool {
	for _, v := range values {
		if !f(v) {
			return false
		}
	}
	return true
}

// groupNames names groups in messages: "apps", "core or apps".
func groupNames(groups []string) string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = groupName(g)
	}
	return strings.Join(names, " or ")
}

// checkKindResource checks that resource ("pods", "pods/status") holds kind's objects and,
// for Kubernetes' own kinds, that it exists with that subresource and scope.
func checkKindResource(path, scopePath *field.Path, kind schema.GroupVersionKind, resource string, scope admissionregistrationv1.ScopeType) field.ErrorList {
	parent, sub, hasSub := strings.Cut(resource, "/")
	if resource != strings.ToLower(resource) {
		return field.ErrorList{field.Invalid(path, resource, fmt.Sprintf("resources are lower case (%q)", strings.ToLower(resource)))}
	}
	if !kinds.BuiltinGroup(kind.Group) {
		return checkCustomResource(path, kind, parent, sub, hasSub)
	}
	res, known := kinds.Lookup(kind.Group, parent)
	kindResource, kindKnown := kinds.ResourceOf(kind.Group, kind.Kind)
	switch {
	case known && res.Kind != kind.Kind:
		detail := fmt.Sprintf("%s of group %s hold %s objects, not %s", parent, groupName(kind.Group), res.Kind, kind.Kind)
		if kindKnown {
			detail += fmt.Sprintf(": the resource of %s is %q", kind.Kind, kindResource)
		}
		return field.ErrorList{field.Invalid(path, resource, detail)}
	case !known && kindKnown:
		return field.ErrorList{field.Invalid(path, resource, fmt.Sprintf("group %s has no resource %q: the resource of %s is %q", groupName(kind.Group), parent, kind.Kind, kindResource))}
	case !known:
		// Neither is served by Kubernetes 1.36 with its defaults (an alpha or beta API, or
		// one removed): nothing to compare with.
		return checkCustomResource(path, kind, parent, sub, hasSub)
	}
	var errs field.ErrorList
	if hasSub && sub != "*" && !slices.Contains(res.Subresources, sub) {
		errs = append(errs, field.Invalid(path, resource, noSubresource(parent, sub, res)))
	}
	if (scope == admissionregistrationv1.NamespacedScope && !res.Namespaced) || (scope == admissionregistrationv1.ClusterScope && res.Namespaced) {
		actual := "cluster-scoped"
		if res.Namespaced {
			actual = "namespaced"
		}
		errs = append(errs, field.Invalid(scopePath, scope, fmt.Sprintf("%s are %s: the webhook would never be called", parent, actual)))
	}
	return errs
}

// checkCustomResource checks what can be checked of a resource nobody knows yet: a DNS label,
// and not the kind's singular (rules match plurals, so the webhook would never be called).
func checkCustomResource(path *field.Path, kind schema.GroupVersionKind, parent, sub string, hasSub bool) field.ErrorList {
	var errs field.ErrorList
	parts := []string{parent}
	if hasSub {
		parts = append(parts, sub)
	}
	for _, part := range parts {
		if part == "*" {
			continue
		}
		for _, msg := range validation.IsDNS1123Label(part) {
			errs = append(errs, field.Invalid(path, part, msg))
		}
	}
	if plural, _ := meta.UnsafeGuessKindToResource(kind); parent == strings.ToLower(kind.Kind) && plural.Resource != parent {
		errs = append(errs, field.Invalid(path, parent, fmt.Sprintf("is the kind's singular: rules match the plural, %q", plural.Resource)))
	}
	return errs
}

func noSubresource(parent, sub string, res kinds.Resource) string {
	if len(res.Subresources) == 0 {
		return fmt.Sprintf("%s have no subresources", parent)
	}
	return fmt.Sprintf("%s have no subresource %q (they have %s)", parent, sub, strings.Join(res.Subresources, ", "))
}

func suggestion(group, resource string) string {
	if s, ok := kinds.Suggest(group, resource); ok {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// groupName names a group in messages; the core group is "core", as in kubectl.
func groupName(group string) string {
	if group == "" {
		return "core"
	}
	return group
}
