package kinds

import "strings"

// Resource is a resource Kubernetes serves in one of its own API groups, in any version.
type Resource struct {
	// Kind of the resource's objects (the same in every version Kubernetes serves it in).
	Kind string
	// Namespaced is false for cluster-scoped resources.
	Namespaced bool
	// Versions it is served in, the preferred first.
	Versions []string
	// Subresources by name, sorted.
	Subresources []string
}

// Lookup returns the resource named resource (a plural, without subresource) in group, when
// group is one of Kubernetes' own.
func Lookup(group, resource string) (Resource, bool) {
	r, ok := table()[group][resource]
	return r, ok
}

// BuiltinGroup reports whether Kubernetes 1.36 serves group itself ("" is the core group).
// Groups it does not serve are custom resources' (or aggregated APIs'), whose resources only
// the cluster knows.
func BuiltinGroup(group string) bool {
	_, ok := table()[group]
	return ok
}

// ResourceOf returns the resource whose objects are of kind in group, e.g. "deployments" for
// Deployment in apps. Kinds that only subresources take (Scale, Eviction) have none.
func ResourceOf(group, kind string) (string, bool) {
	for name, r := range table()[group] {
		if r.Kind == kind {
			return name, true
		}
	}
	return "", false
}

// GroupOfPackage returns the API group whose types the Go package pkg holds, pkg being the
// package's path without its version element: "k8s.io/api/apps" for k8s.io/api/apps/v1.
func GroupOfPackage(pkg string) (string, bool) {
	group, ok := packages()[pkg]
	return group, ok
}

// Suggest returns the resource of group that name probably meant: its plural ("deployment"
// for "deployments"), or the resource of a kind spelled name in lower case.
func Suggest(group, name string) (string, bool) {
	resources := table()[group]
	for _, plural := range []string{name + "s", name + "es"} {
		if _, ok := resources[plural]; ok {
			return plural, true
		}
	}
	for resource, r := range resources {
		if strings.EqualFold(r.Kind, name) {
			return resource, true
		}
	}
	return "", false
}
