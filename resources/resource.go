package resources

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource is one resource served in one group and version.
type Resource struct {
	// GVR names the resource: group, version and plural resource name.
	GVR schema.GroupVersionResource
	// Kind is the kind of the resource's objects. For every built-in resource it is in the
	// resource's own group and version.
	Kind schema.GroupVersionKind
	// Namespaced is true for namespaced resources, false for cluster-scoped ones. Subresources
	// share their parent's scope.
	Namespaced bool
	// Verbs the resource supports, sorted, as discovery lists them ("create", "delete",
	// "deletecollection", "get", "list", "patch", "update", "watch").
	Verbs []string
	// Subresources in name order.
	Subresources []Subresource
}

// Anonymous reports a resource whose objects are never stored and need no name: the review
// kinds of authentication.k8s.io and authorization.k8s.io (SelfSubjectReview, TokenReview,
// SubjectAccessReview, ...), only ever created, whose handler answers the request itself. A
// Binding is create-only too, but names the pod it binds.
func (r Resource) Anonymous() bool {
	createOnly := len(r.Verbs) == 1 && r.Verbs[0] == "create"
	return createOnly && (r.GVR.Group == "authentication.k8s.io" || r.GVR.Group == "authorization.k8s.io")
}

// Subresource is a subresource of a Resource, e.g. "status" or "eviction" of pods.
type Subresource struct {
	// Name is the subresource's name, without the parent, e.g. "status".
	Name string
	// Kind is what the subresource takes and returns: the parent's kind for "status", policy/v1
	// Eviction for pods/eviction, autoscaling/v1 Scale for "scale", the options kind (e.g.
	// PodExecOptions) for CONNECT subresources. It is the kind the apiserver registers for the
	// subresource, which is the kind it sends to admission webhooks.
	Kind schema.GroupVersionKind
	// Verbs as discovery lists them. For a CONNECT subresource these are derived from the HTTP
	// methods it accepts (GET -> "get", POST -> "create", ...), yet every such request is
	// admitted with operation CONNECT.
	Verbs []string
	// Connect is true for subresources served by a connecter (pods/attach, pods/exec,
	// pods/portforward, pods/proxy, nodes/proxy, services/proxy): requests to them are admitted
	// with operation CONNECT and the options object as the request's object.
	Connect bool
}

// Subresource returns the named subresource of r.
func (r Resource) Subresource(name string) (Subresource, bool) {
	// A linear search: there are few subresources, and a Resource built by hand may not be sorted.
	for _, s := range r.Subresources {
		if s.Name == name {
			return s, true
		}
	}
	return Subresource{}, false
}

// clone returns a deep copy of r, so that callers can never change what a Mapper holds.
func (r Resource) clone() Resource {
	r.Verbs = slices.Clone(r.Verbs)
	r.Subresources = slices.Clone(r.Subresources)
	for i := range r.Subresources {
		r.Subresources[i].Verbs = slices.Clone(r.Subresources[i].Verbs)
	}
	return r
}

// NotFoundError reports a resource, subresource or kind that a Mapper does not know, or a version
// that it knows but that is not served.
type NotFoundError struct {
	// Resource and Subresource are what was looked up, when a resource was.
	Resource    schema.GroupVersionResource
	Subresource string
	// Kind is what was looked up, when a kind was.
	Kind schema.GroupVersionKind
	// NotServed is true when the version exists (a version a CustomResourceDefinition lists
	// with served: false) but clients cannot use it.
	NotServed bool
	// UnknownGroup is true when a kind was looked up in a group the Mapper serves nothing of:
	// a custom kind, most likely, whose CustomResourceDefinition it was not given.
	UnknownGroup bool

	// hint says what the Mapper does know nearby, e.g. the versions a resource is served in.
	hint string
}

// Hint says what the Mapper knows near what was looked up: the versions a resource is served in,
// the plural of a singular or capitalised name, a near kind; "" when nothing is near.
func (e *NotFoundError) Hint() string { return e.hint }

func (e *NotFoundError) Error() string {
	var msg string
	switch {
	case !e.Kind.Empty():
		msg = fmt.Sprintf("no resource for kind %q in group %q version %q", e.Kind.Kind, e.Kind.Group, e.Kind.Version)
	case e.NotServed:
		msg = fmt.Sprintf("version %q of resource %q in group %q is not served", e.Resource.Version, e.Resource.Resource, e.Resource.Group)
	case e.Subresource != "":
		msg = fmt.Sprintf("resource %q in group %q version %q has no subresource %q", e.Resource.Resource, e.Resource.Group, e.Resource.Version, e.Subresource)
	default:
		msg = fmt.Sprintf("no resource %q in group %q version %q", e.Resource.Resource, e.Resource.Group, e.Resource.Version)
	}
	if e.hint != "" {
		msg += " (" + e.hint + ")"
	}
	return msg
}
