package predicates

import (
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NamespaceJudged says whether a namespaceSelector judges a request at all: a request for an
// object in a namespace, or for a Namespace. Other cluster-scoped objects are never exempted by
// one.
func NamespaceJudged(namespace string, gvr schema.GroupVersionResource) bool {
	return namespace != "" || gvr.Resource == "namespaces"
}

// OwnNamespaceLabels says whether a Namespace request is judged on the labels of the object it
// writes — a Namespace being created or updated — rather than on the stored Namespace's.
func OwnNamespaceLabels(gvr schema.GroupVersionResource, subresource string, op admissionv1.Operation) bool {
	return gvr.Resource == "namespaces" && subresource == "" && (op == admissionv1.Create || op == admissionv1.Update)
}

// Object is the objectSelector predicate: it matches when the object or the old object (each
// when present, with its labels) matches. The options of a CONNECT have no metadata, and never
// match a selector that is not empty.
func Object(selector labels.Selector, op admissionv1.Operation, objects ...ObjectLabels) bool {
	if selector.Empty() {
		return true
	}
	if op == admissionv1.Connect {
		return false
	}
	for _, o := range objects {
		if o.Present && selector.Matches(labels.Set(o.Labels)) {
			return true
		}
	}
	return false
}

// ObjectLabels are an object's labels, and whether there is an object (a CREATE has no old one,
// a DELETE no new one).
type ObjectLabels struct {
	Labels  map[string]string
	Present bool
}
