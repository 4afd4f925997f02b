package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// filler is a program that may fill in a configuration's caBundle at runtime, as the input's
// RBAC tells.
type filler struct {
	what string
	// sure is true for a workload of the input that can be this configuration's filler: it runs
	// in the namespace of the configuration's server (its own rotator or certgen Job), or its
	// role names the configuration by resourceNames. A role that may update every
	// configuration of the kind belongs, elsewhere, to another project's controller (a policy
	// engine, an operator), which fills in its own; an unbound role or a ServiceAccount no
	// workload of the input runs as fills in nothing the input shows.
	sure bool
}

// caBundleFillers says who, as far as the input tells, fills in a configuration's caBundle at
// runtime: a certificate rotator in the webhook's own server, a certgen Job, a controller of
// another project. Such a program needs to update the configuration, so the input's RBAC
// tells: a ClusterRole that may update or patch it (by name or all of its kind), and the
// workloads that run as a ServiceAccount bound to that role. The built-in roles count when the
// input binds them (a controller bound to cluster-admin needs no role of its own); an input's
// role counts even unbound, as its binding may be applied apart, but not surely. namespaces are
// those of the configuration's servers.
func (a *analysis) caBundleFillers(c *configuration, namespaces []string) []filler {
	resource := configurationResource(c.kind)
	if resource == "" {
		return nil
	}
	var out []filler
	for _, name := range slices.Sorted(maps.Keys(a.roles)) {
		rules := slices.DeleteFunc(slices.Clone(a.roleRules(name)), func(r rbacv1.PolicyRule) bool { return !mayUpdate(r, resource, c.name) })
		if len(rules) == 0 {
			continue
		}
		named := slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.ResourceNames, c.name) })
		workloads, accounts := a.roleUsers(name)
		if len(workloads) == 0 && len(accounts) == 0 {
			if _, inInput := a.inv.clusterRoles[name]; inInput {
				out = append(out, filler{what: fmt.Sprintf("ClusterRole %q (bound to no ServiceAccount of the input)", name)})
			}
			continue
		}
		for _, w := range workloads {
			local := slices.ContainsFunc(namespaces, func(ns string) bool { return inNamespace(w.namespace, ns) })
			out = append(out, filler{what: fmt.Sprintf("%s (ClusterRole %q)", w, name), sure: named || local})
		}
		for _, sa := range accounts {
			out = append(out, filler{what: fmt.Sprintf("%s (ClusterRole %q), which no workload of the input runs as", sa, name)})
		}
	}
	return out
}

// boundBuiltinRolesWithout names the built-in ClusterRoles that the input binds ServiceAccounts
// of namespace to and that may not update the configuration (admin, edit, view): a caBundle
// writer there bound to them gets a permission error, which E05's message says rather than
// leave the binding unexplained.
func (a *analysis) boundBuiltinRolesWithout(c *configuration, namespace string) []string {
	resource := configurationResource(c.kind)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(a.roles)) {
		if !isBuiltinRole(name) || !a.bindsServiceAccountsOf(name, namespace) ||
			slices.ContainsFunc(a.roleRules(name), func(r rbacv1.PolicyRule) bool { return mayUpdate(r, resource, c.name) }) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// bindsServiceAccountsOf says whether a ClusterRoleBinding of the input binds the role to a
// ServiceAccount of namespace.
func (a *analysis) bindsServiceAccountsOf(role, namespace string) bool {
	for _, b := range a.inv.clusterRoleBindings {
		if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.Name != role {
			continue
		}
		for _, s := range b.Subjects {
			if runsAs, ok := serviceAccountSubject(s); ok && runsAs(&workload{namespace: namespace, serviceAccount: s.Name}) {
				return true
			}
		}
	}
	return false
}

// configurationResource is the resource of a webhook configuration kind, empty for others.
func configurationResource(kind string) string {
	switch kind {
	case "MutatingWebhookConfiguration":
		return "mutatingwebhookconfigurations"
	case "ValidatingWebhookConfiguration":
		return "validatingwebhookconfigurations"
	}
	return ""
}

// mayUpdate says whether an RBAC rule lets its subject update or patch the configuration.
func mayUpdate(r rbacv1.PolicyRule, resource, name string) bool {
	anyOf := func(values []string, wanted ...string) bool {
		return slices.ContainsFunc(values, func(v string) bool { return v == "*" || slices.Contains(wanted, v) })
	}
	return anyOf(r.APIGroups, admissionregistrationv1.GroupName) && anyOf(r.Resources, resource) &&
		anyOf(r.Verbs, "update", "patch") && (len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name))
}

// roleUsers says what runs with a ClusterRole: the workloads and Jobs whose ServiceAccount a
// ClusterRoleBinding binds to it (by name, or through the groups of all ServiceAccounts or of a
// namespace's), and the ServiceAccounts it binds that none of them runs as.
func (a *analysis) roleUsers(role string) (workloads []*workload, accounts []string) {
	for _, b := range a.inv.clusterRoleBindings {
		if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.Name != role {
			continue
		}
		for _, s := range b.Subjects {
			runsAs, ok := serviceAccountSubject(s)
			if !ok {
				continue
			}
			found := false
			for _, w := range slices.Concat(a.inv.workloads, a.inv.jobs) {
				if runsAs(w) {
					found = true
					if !slices.Contains(workloads, w) {
						workloads = append(workloads, w)
					}
				}
			}
			if !found && s.Kind == rbacv1.ServiceAccountKind {
				accounts = append(accounts, "ServiceAccount "+namespacedName{s.Namespace, s.Name}.String())
			}
		}
	}
	slices.SortFunc(workloads, func(x, y *workload) int { return strings.Compare(x.String(), y.String()) })
	slices.Sort(accounts)
	return workloads, slices.Compact(accounts)
}

// serviceAccountSubject reads a binding's subject as a test of the workloads it covers: a
// ServiceAccount, or the group of every ServiceAccount (system:serviceaccounts) or of those of
// a namespace (system:serviceaccounts:<namespace>). ok is false for users and other groups.
func serviceAccountSubject(s rbacv1.Subject) (runsAs func(*workload) bool, ok bool) {
	switch {
	case s.Kind == rbacv1.ServiceAccountKind:
		return func(w *workload) bool { return w.serviceAccount == s.Name && inNamespace(w.namespace, s.Namespace) }, true
	case s.Kind == rbacv1.GroupKind && s.Name == serviceAccountsGroup:
		return func(*workload) bool { return true }, true
	case s.Kind == rbacv1.GroupKind && strings.HasPrefix(s.Name, serviceAccountsGroup+":"):
		namespace := strings.TrimPrefix(s.Name, serviceAccountsGroup+":")
		return func(w *workload) bool { return inNamespace(w.namespace, namespace) }, true
	}
	return nil, false
}

// serviceAccountsGroup is the group every ServiceAccount is in; system:serviceaccounts:<ns>
// those of a namespace.
const serviceAccountsGroup = "system:serviceaccounts"

// emptyBundle is true for a caBundle that holds nothing: unset, or whitespace that a template
// put there to be replaced (base64 "Cg==" is a newline).
func emptyBundle(data []byte) bool {
	return len(strings.TrimSpace(string(data))) == 0
}
