package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// caBundleFillers says who, as far as the input tells, fills in a configuration's caBundle at
// runtime: a certificate rotator in the webhook's own server, a certgen Job, a controller of
// another project. Such a program needs to update the configuration, so the input's RBAC
// tells: a ClusterRole that may update or patch it (by name or all of its kind), and the
// workloads that run as a ServiceAccount bound to that role.
func (a *analysis) caBundleFillers(c *configuration) []string {
	resource := configurationResource(c.kind)
	if resource == "" {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(a.inv.clusterRoles)) {
		role := a.inv.clusterRoles[name]
		if !slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return mayUpdate(r, resource, c.name) }) {
			continue
		}
		users := a.roleUsers(role.Name)
		if len(users) == 0 {
			out = append(out, fmt.Sprintf("ClusterRole %q (bound to no ServiceAccount of the input)", role.Name))
			continue
		}
		for _, u := range users {
			out = append(out, fmt.Sprintf("%s (ClusterRole %q)", u, role.Name))
		}
	}
	return out
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

// roleUsers names what runs with a ClusterRole: the workloads and Jobs whose ServiceAccount a
// ClusterRoleBinding binds to it, else the ServiceAccounts themselves.
func (a *analysis) roleUsers(role string) []string {
	var out []string
	for _, b := range a.inv.clusterRoleBindings {
		if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.Name != role {
			continue
		}
		for _, s := range b.Subjects {
			if s.Kind != rbacv1.ServiceAccountKind {
				continue
			}
			found := false
			for _, w := range slices.Concat(a.inv.workloads, a.inv.jobs) {
				if w.serviceAccount == s.Name && inNamespace(w.namespace, s.Namespace) {
					out = append(out, w.String())
					found = true
				}
			}
			if !found {
				out = append(out, "ServiceAccount "+namespacedName{s.Namespace, s.Name}.String())
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// emptyBundle is true for a caBundle that holds nothing: unset, or whitespace that a template
// put there to be replaced (base64 "Cg==" is a newline).
func emptyBundle(data []byte) bool {
	return len(strings.TrimSpace(string(data))) == 0
}
