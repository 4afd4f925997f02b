package engine

import (
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/patch"
)

// Request is one admission: what kube-apiserver knows about a write when it runs admission.
type Request struct {
	// Kind and Resource of the object as the client sent it.
	Kind     schema.GroupVersionKind
	Resource schema.GroupVersionResource
	// SubResource, e.g. "status" or "eviction"; empty for the main resource.
	SubResource string
	// Name of the object; empty on CREATE with generateName (the validating phase then sees the
	// generated name in GeneratedName).
	Name string
	// GeneratedName is the name the apiserver's registry generates for a generateName CREATE
	// whose object mutating admission left without a name; validating webhooks and the admitted
	// object carry it. A name a mutating webhook or plugin set is kept instead, as the registry
	// keeps it. Leave empty to keep Name.
	GeneratedName string
	// Namespace of the object; empty for cluster-scoped objects; for a Namespace, its own name.
	Namespace string
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation admissionv1.Operation
	// Object is the new object as JSON (nil on DELETE; the options object on CONNECT); OldObject
	// the existing object (UPDATE and DELETE). A built-in kind's object must decode into its Go
	// type, as kube-apiserver ensures before admission (admit review checks it): a patched
	// object is checked only where the patch wrote.
	Object, OldObject json.RawMessage
	// Parent is the stored object a subresource's request acts on, where the subresource's
	// handler reads it: for scale, the Deployment (or other workload) whose Scale is Object.
	Parent json.RawMessage
	// Options is the CreateOptions/UpdateOptions/DeleteOptions as JSON (nil on CONNECT); when nil
	// on another operation, an empty options object of the right kind is sent.
	Options json.RawMessage
	// DryRun marks requests that will not be persisted.
	DryRun bool
	// UserInfo is the requesting user.
	UserInfo authenticationv1.UserInfo
}

// validate refuses a malformed request and returns its object parsed (nil when there is none,
// or when only encoding/json reads it).
func (r *Request) validate() (*patch.Document, error) {
	switch r.Operation {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
	default:
		return nil, fmt.Errorf("operation %q is not one of CREATE, UPDATE, DELETE, CONNECT", r.Operation)
	}
	if r.Kind.Kind == "" || r.Kind.Version == "" {
		return nil, fmt.Errorf("the request needs the object's kind and version, got %q", r.Kind.String())
	}
	if r.Resource.Resource == "" || r.Resource.Version == "" {
		return nil, fmt.Errorf("the request needs the resource and version, got %q", r.Resource.String())
	}
	switch r.Operation {
	case admissionv1.Create, admissionv1.Update:
		if len(r.Object) == 0 {
			return nil, fmt.Errorf("a %s request needs an object", r.Operation)
		}
	case admissionv1.Delete:
		if len(r.Object) != 0 {
			return nil, fmt.Errorf("a DELETE request has no new object: pass the object being deleted as the old object")
		}
	}
	if r.Operation == admissionv1.Update && len(r.OldObject) == 0 {
		return nil, fmt.Errorf("an UPDATE request needs the old object")
	}
	// Checked once here: every webhook call embeds these bytes as they are. The object is kept
	// parsed: the patches of mutating steps apply to it and the result's patch starts from it.
	var object *patch.Document
	if len(r.Object) > 0 {
		var err error
		if object, err = patch.Parse(r.Object); err != nil && !json.Valid(r.Object) {
			// patch.Parse refuses invalid UTF-8, which encoding/json accepts.
			return nil, fmt.Errorf("the object is not valid JSON")
		}
	}
	for _, doc := range []struct {
		name string
		raw  json.RawMessage
	}{{"old object", r.OldObject}, {"options", r.Options}} {
		if len(doc.raw) > 0 && !patch.Valid(doc.raw) && !json.Valid(doc.raw) {
			return nil, fmt.Errorf("the %s is not valid JSON", doc.name)
		}
	}
	return object, nil
}

// ExcludedVirtualResources returns the resources kube-apiserver never sends to its admission
// policies: reviews that are not stored, so intercepting them could only break authentication
// and authorization. kube-apiserver 1.36 still sends them to admission webhooks (1.37 stops).
func ExcludedVirtualResources() []schema.GroupResource {
	return []schema.GroupResource{
		{Group: "authentication.k8s.io", Resource: "tokenreviews"},
		{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
		{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
		{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	}
}
