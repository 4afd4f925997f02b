package lint

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels that aggregate ClusterRoles into the user-facing built-in roles: a ClusterRole
// carrying one adds its rules to admin, edit or view.
const (
	aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// builtinClusterRoles are the user-facing ClusterRoles kube-apiserver creates in every cluster
// (its RBAC bootstrap policy, Kubernetes 1.36): the roles projects bind their controllers to
// without shipping them. The input never holds them, so lint would otherwise take a
// ServiceAccount bound to cluster-admin for one with no rights.
//
// cluster-admin may do everything. admin, edit and view have no rules of their own: the
// aggregation controller fills them with the rules of the ClusterRoles labelled for them,
// starting with system:aggregate-to-admin, -edit and -view below (edit is labelled for admin,
// view for edit, so admin holds edit's rules and edit view's). Those rules cover namespaced
// resources only, nothing of admissionregistration.k8s.io: a ServiceAccount bound to admin or
// edit cannot fill a caBundle unless another ClusterRole aggregated into them lets it. The
// rules are written down to the resource, as the bootstrap policy grants them, so that any rule
// of lint can ask them what a subject may do.
func builtinClusterRoles() map[string]*rbacv1.ClusterRole {
	read := []string{"get", "list", "watch"}
	write := []string{"create", "update", "patch", "delete", "deletecollection"}
	readWrite := append(append([]string{}, read...), write...)
	rule := func(verbs []string, group string, resources ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources}
	}
	aggregated := func(name string, label map[string]string, selector string) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: label},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchLabels: map[string]string{selector: "true"}},
			}},
		}
	}
	roles := []*rbacv1.ClusterRole{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin"},
			Rules: []rbacv1.PolicyRule{
				{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
				{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
			},
		},
		aggregated("admin", nil, aggregateToAdmin),
		aggregated("edit", map[string]string{aggregateToAdmin: "true"}, aggregateToEdit),
		aggregated("view", map[string]string{aggregateToEdit: "true"}, aggregateToView),
		{
			ObjectMeta: metav1.ObjectMeta{Name: "system:aggregate-to-admin", Labels: map[string]string{aggregateToAdmin: "true"}},
			Rules: []rbacv1.PolicyRule{
				rule([]string{"create"}, "authorization.k8s.io", "localsubjectaccessreviews"),
				rule(readWrite, "rbac.authorization.k8s.io", "roles", "rolebindings"),
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "system:aggregate-to-edit", Labels: map[string]string{aggregateToEdit: "true"}},
			Rules: []rbacv1.PolicyRule{
				rule(read, "", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
				rule([]string{"impersonate"}, "", "serviceaccounts"),
				rule(write, "", "pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
				rule(write, "", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
					"services", "services/proxy", "endpoints", "persistentvolumeclaims", "configmaps", "secrets"),
				rule(write, "apps", "statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale",
					"deployments/rollback", "replicasets", "replicasets/scale"),
				rule(write, "autoscaling", "horizontalpodautoscalers"),
				rule(write, "batch", "jobs", "cronjobs"),
				rule(write, "extensions", "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "ingresses",
					"replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"),
				rule(write, "policy", "poddisruptionbudgets"),
				rule(write, "networking.k8s.io", "networkpolicies", "ingresses"),
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "system:aggregate-to-view", Labels: map[string]string{aggregateToView: "true"}},
			Rules: []rbacv1.PolicyRule{
				rule(read, "", "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
					"services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
				rule(read, "", "limitranges", "resourcequotas", "bindings", "events", "pods/status", "resourcequotas/status",
					"namespaces/status", "replicationcontrollers/status", "pods/log"),
				rule(read, "", "namespaces"),
				rule(read, "discovery.k8s.io", "endpointslices"),
				rule(read, "apps", "controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale", "daemonsets",
					"daemonsets/status", "deployments", "deployments/status", "deployments/scale", "replicasets", "replicasets/status",
					"replicasets/scale"),
				rule(read, "autoscaling", "horizontalpodautoscalers", "horizontalpodautoscalers/status"),
				rule(read, "batch", "jobs", "cronjobs", "cronjobs/status", "jobs/status"),
				rule(read, "extensions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
					"ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status",
					"replicationcontrollers/scale", "networkpolicies"),
				rule(read, "policy", "poddisruptionbudgets", "poddisruptionbudgets/status"),
				rule(read, "networking.k8s.io", "networkpolicies", "ingresses", "ingresses/status"),
			},
		},
	}
	out := make(map[string]*rbacv1.ClusterRole, len(roles))
	for _, r := range roles {
		out[r.Name] = r
	}
	return out
}
