package webhooktest

import (
	"encoding/json"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/admitkit/admit/webhook"
)

// T is what the helpers need of a test to fail it: *testing.T and *testing.B satisfy it, and so
// does Ginkgo's GinkgoT().
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Option changes a request being built.
type Option func(*settings)

type settings struct {
	user        authenticationv1.UserInfo
	namespace   *string
	subResource string
	dryRun      bool
	resource    *schema.GroupVersionResource
	types       *runtime.Scheme
	uid         types.UID
}

// User sets the requesting user and groups (default "webhooktest", system:authenticated).
func User(name string, groups ...string) Option {
	return func(s *settings) { s.user = authenticationv1.UserInfo{Username: name, Groups: groups} }
}

// Namespace sets the request's namespace (default the object's).
func Namespace(ns string) Option { return func(s *settings) { s.namespace = &ns } }

// SubResource sets the subresource, e.g. "status".
func SubResource(name string) Option { return func(s *settings) { s.subResource = name } }

// DryRun marks the request as a dry run.
func DryRun() Option { return func(s *settings) { s.dryRun = true } }

// Resource sets the resource when the lower-case plural of the kind is not it.
func Resource(gvr schema.GroupVersionResource) Option { return func(s *settings) { s.resource = &gvr } }

// Scheme adds the Go types of custom kinds, so that typed objects without apiVersion and kind
// set are recognised (built-in kinds are known).
func Scheme(types *runtime.Scheme) Option { return func(s *settings) { s.types = types } }

// UID sets the request's uid (default "webhooktest-uid").
func UID(uid types.UID) Option { return func(s *settings) { s.uid = uid } }

// Create builds a CREATE of obj, a typed or unstructured object.
func Create(t T, obj runtime.Object, opts ...Option) *webhook.Request {
	t.Helper()
	return build(t, admissionv1.Create, obj, nil, opts)
}

// Update builds an UPDATE of old to obj.
func Update(t T, obj, old runtime.Object, opts ...Option) *webhook.Request {
	t.Helper()
	return build(t, admissionv1.Update, obj, old, opts)
}

// Delete builds a DELETE of old (kube-apiserver sends the deleted object as the old object).
func Delete(t T, old runtime.Object, opts ...Option) *webhook.Request {
	t.Helper()
	return build(t, admissionv1.Delete, nil, old, opts)
}

func build(t T, op admissionv1.Operation, obj, old runtime.Object, opts []Option) *webhook.Request {
	t.Helper()
	s := settings{user: authenticationv1.UserInfo{Username: "webhooktest", Groups: []string{"system:authenticated"}}, uid: "webhooktest-uid"}
	for _, o := range opts {
		o(&s)
	}
	subject := obj
	if subject == nil {
		subject = old
	}
	if subject == nil {
		t.Fatalf("webhooktest: a %s needs an object", op)
	}
	gvk := kindOf(t, subject, s.types)
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	if s.resource != nil {
		gvr = *s.resource
	}
	accessor, err := meta.Accessor(subject)
	if err != nil {
		t.Fatalf("webhooktest: %T has no metadata: %v", subject, err)
	}
	namespace := accessor.GetNamespace()
	if gvk.Group == "" && gvk.Kind == "Namespace" {
		namespace = accessor.GetName() // a Namespace's request names itself
	}
	if s.namespace != nil {
		namespace = *s.namespace
	}
	req := &webhook.Request{ReviewVersion: webhook.ReviewV1, AdmissionRequest: admissionv1.AdmissionRequest{
		UID:  s.uid,
		Kind: metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, Resource: metav1.GroupVersionResource{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource},
		RequestKind:     &metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		RequestResource: &metav1.GroupVersionResource{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource},
		SubResource:     s.subResource, RequestSubResource: s.subResource,
		Name: accessor.GetName(), Namespace: namespace, Operation: op, UserInfo: s.user, DryRun: &s.dryRun,
	}}
	if obj != nil {
		req.Object = runtime.RawExtension{Raw: encode(t, obj, gvk)}
	}
	if old != nil {
		req.OldObject = runtime.RawExtension{Raw: encode(t, old, gvk)}
	}
	return req
}

// kindOf is the object's kind: its apiVersion and kind if set, else its Go type's.
func kindOf(t T, obj runtime.Object, custom ...*runtime.Scheme) schema.GroupVersionKind {
	t.Helper()
	if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		return gvk
	}
	for _, types := range slices.Concat(custom, []*runtime.Scheme{scheme.Scheme}) {
		if types == nil {
			continue
		}
		if gvks, _, err := types.ObjectKinds(obj); err == nil && len(gvks) > 0 {
			return gvks[0]
		}
	}
	t.Fatalf("webhooktest: the kind of %T is unknown: set its apiVersion and kind, or give its scheme with webhooktest.Scheme", obj)
	return schema.GroupVersionKind{}
}

// encode writes obj as JSON with its apiVersion and kind, as kube-apiserver sends objects.
func encode(t T, obj runtime.Object, gvk schema.GroupVersionKind) []byte {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("webhooktest: encoding %T: %v", obj, err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatalf("webhooktest: %T is not a JSON object: %v", obj, err)
	}
	fields["apiVersion"], fields["kind"] = gvk.GroupVersion().String(), gvk.Kind
	if data, err = json.Marshal(fields); err != nil {
		t.Fatalf("webhooktest: encoding %T: %v", obj, err)
	}
	return data
}
