package predicates

import (
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Rule is the apiserver's rule predicate: whether rule matches operation op on gvr's
// subresource (empty for the resource itself). namespaced says whether the request is for an
// object in a namespace; Namespace objects count as cluster-scoped, and subresources inherit the
// scope of their resource.
func Rule(rule admissionregistrationv1.RuleWithOperations, gvr schema.GroupVersionResource, subresource string, op admissionregistrationv1.OperationType, namespaced bool) bool {
	return Scope(rule.Scope, gvr, namespaced) &&
		Operation(rule.Operations, op) &&
		AnyOrExact(rule.APIGroups, gvr.Group) &&
		AnyOrExact(rule.APIVersions, gvr.Version) &&
		Resources(rule.Resources, gvr.Resource, subresource)
}

// Scope says whether a rule's scope takes a request: "*" (or none) any; "Namespaced" objects in
// a namespace; "Cluster" cluster-scoped objects. A Namespace request carries a namespace (its own
// name) but is cluster-scoped.
func Scope(scope *admissionregistrationv1.ScopeType, gvr schema.GroupVersionResource, namespaced bool) bool {
	if scope == nil || *scope == admissionregistrationv1.AllScopes {
		return true
	}
	isNamespace := gvr.Group == "" && gvr.Version == "v1" && gvr.Resource == "namespaces"
	switch *scope {
	case admissionregistrationv1.NamespacedScope:
		return !isNamespace && namespaced
	case admissionregistrationv1.ClusterScope:
		return isNamespace || !namespaced
	}
	return false
}

// Operation says whether a rule's operations take op: "*" takes every one.
func Operation(ops []admissionregistrationv1.OperationType, op admissionregistrationv1.OperationType) bool {
	for _, o := range ops {
		if o == admissionregistrationv1.OperationAll || o == op {
			return true
		}
	}
	return false
}

// AnyOrExact says whether a rule's groups (or versions) take want: "*" takes every one.
func AnyOrExact(values []string, want string) bool {
	for _, v := range values {
		if v == "*" || v == want {
			return true
		}
	}
	return false
}

// Resources says whether a rule's resources take a resource's subresource (empty for the
// resource itself). Each entry splits at its first "/" into resource and subresource: "pods"
// does not match pods/status; "pods/*" matches pods and all its subresources ("*" matches the
// empty subresource too); "*" matches every resource but no subresource; "*/*" matches
// everything.
func Resources(names []string, resource, subresource string) bool {
	for _, n := range names {
		res, sub, _ := strings.Cut(n, "/")
		if (res == "*" || res == resource) && (sub == "*" || sub == subresource) {
			return true
		}
	}
	return false
}

// AnySubresource says whether a rule's resources take any request to a resource: the resource
// itself or any of its subresources.
func AnySubresource(names []string, resource string) bool {
	for _, n := range names {
		if res, _, _ := strings.Cut(n, "/"); res == "*" || res == resource {
			return true
		}
	}
	return false
}
