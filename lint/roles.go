package lint

import (
	"maps"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// clusterRoles returns the ClusterRoles a cluster holds once the input is applied: the built-in
// ones and the input's. A role the input gives under a built-in name keeps the built-in rules
// too, as kube-apiserver reconciles its bootstrap roles by adding what they miss.
func clusterRoles(input map[string]*rbacv1.ClusterRole) map[string]*rbacv1.ClusterRole {
	out := builtinClusterRoles()
	for name, role := range input {
		builtin, ok := out[name]
		if !ok {
			out[name] = role
			continue
		}
		merged := role.DeepCopy()
		merged.Rules = append(merged.Rules, builtin.Rules...)
		if merged.AggregationRule == nil {
			merged.AggregationRule = builtin.AggregationRule
		}
		merged.Labels = labels.Merge(builtin.Labels, role.Labels)
		out[name] = merged
	}
	return out
}

// roleRules returns the rules a ClusterRole grants: its own, and those of every ClusterRole its
// aggregationRule selects, transitively, as the aggregation controller fills them in. A role
// the cluster does not hold grants nothing.
func (a *analysis) roleRules(name string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		role, ok := a.roles[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, role.Rules...)
		if role.AggregationRule == nil {
			return
		}
		for _, s := range role.AggregationRule.ClusterRoleSelectors {
			selector, err := metav1.LabelSelectorAsSelector(&s)
			if err != nil || selector.Empty() {
				continue // the apiserver refuses an invalid selector; an empty one aggregates nothing here
			}
			for _, other := range slices.Sorted(maps.Keys(a.roles)) {
				if selector.Matches(labels.Set(a.roles[other].Labels)) {
					visit(other)
				}
			}
		}
	}
	visit(name)
	return out
}

// isBuiltinRole says whether the cluster holds the ClusterRole whatever the input says.
func isBuiltinRole(name string) bool {
	_, ok := builtinClusterRoles()[name]
	return ok
}
