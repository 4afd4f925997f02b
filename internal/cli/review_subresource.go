package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/resources"
)

// A subresource with a REST handler of its own takes a body of its own kind — scale an
// autoscaling/v1 Scale, pods/eviction a policy/v1 Eviction, pods/binding a v1 Binding — and
// webhooks receive that kind on the parent's resource. admit review takes either that body, on
// the parent given with --old (scale), or the changed parent itself, whose replicas stand for
// the Scale a client sends.

// subresourceBody resolves an object given with --subresource whose kind is the subresource's
// own rather than a resource's: its parent resource is that of the --old object of the same
// namespace and name that has the subresource, else the only resource with the subresource. ok
// is false for an object of a resource's kind.
func (o *reviewOptions) subresourceBody(in inputObject, mapper *resources.Mapper, olds map[objectKey]*resolvedObject) (body, parent *resolvedObject, ok bool) {
	if o.subresource == "" {
		return nil, nil, false
	}
	gvk := in.object.GroupVersionKind()
	if _, err := mapper.ResourceFor(gvk); err == nil && gvk.Kind != "Binding" {
		return nil, nil, false // a resource's own kind (a Binding is both: bindings and pods/binding)
	}
	var candidates []resources.Resource
	for _, r := range mapper.Resources() {
		if sub, has := r.Subresource(o.subresource); has && sub.Kind == gvk {
			candidates = append(candidates, r)
		}
	}
	if len(candidates) == 0 {
		return nil, nil, false
	}
	namespace := in.object.GetNamespace()
	if namespace == "" {
		namespace = o.namespace
	}
	for _, old := range olds {
		if old.object.GetName() != in.object.GetName() || (old.resource.Namespaced && old.namespace != namespace) {
			continue
		}
		for _, c := range candidates {
			if c.GVR == old.resource.GVR {
				parent = old
			}
		}
	}
	resource := candidates[0]
	if parent != nil {
		resource = parent.resource
	}
	if !resource.Namespaced {
		namespace = ""
	} else if in.object.GetNamespace() == "" {
		in.object.SetNamespace(namespace)
	}
	return &resolvedObject{inputObject: in, resource: resource, namespace: namespace, json: mustJSON(in.object.Object)}, parent, true
}

// subresourceRequest is the admission of a subresource's body on its parent.
func (o *reviewOptions) subresourceRequest(body, parent *resolvedObject, op admissionv1.Operation, scales *chain.Scales) (*dispatch.Request, error) {
	source, res := body.source.String(), body.resource
	sub, _ := res.Subresource(o.subresource)
	if op == "" {
		op = admissionv1.Create
		if parent != nil || o.subresource == "scale" {
			op = admissionv1.Update
		}
	}
	dryRun, _ := parseDryRun(o.dryRun)
	req := &dispatch.Request{
		Kind: sub.Kind, Resource: res.GVR, SubResource: o.subresource, Name: body.object.GetName(), Namespace: body.namespace,
		Operation: op, DryRun: dryRun, UserInfo: authenticationv1.UserInfo{Username: o.user, Groups: o.groups},
	}
	options, err := o.requestOptions(op, dryRun)
	if err != nil {
		return nil, err
	}
	req.Options = options
	switch op {
	case admissionv1.Update:
		if parent == nil {
			return nil, fmt.Errorf("%s: a %s is written to the %s subresource of the object it belongs to: give that object as stored with --old (same namespace and name)", source, sub.Kind.Kind, o.subresource)
		}
		req.Object, req.Parent = body.json, parent.json
		if o.subresource == "scale" {
			if req.OldObject, err = scales.Read(res.GVR.GroupResource(), parent.json); err != nil {
				return nil, fmt.Errorf("%s: %w", parent.source, err)
			}
		} else {
			req.OldObject = parent.json
		}
	case admissionv1.Create:
		req.Object = body.json
	default:
		return nil, fmt.Errorf("%s: a %s is sent to %s/%s with CREATE or UPDATE, not %s", source, sub.Kind.Kind, res.GVR.GroupResource(), o.subresource, op)
	}
	return req, nil
}

// scaleFromParent turns the UPDATE of a changed parent under --subresource scale into the
// UPDATE of its Scale: the stored parent's Scale, with the changed parent's replicas.
func scaleFromParent(req *dispatch.Request, obj, old *resolvedObject, scales *chain.Scales) (*dispatch.Request, error) {
	source, resource := obj.source.String(), obj.resource.GVR.GroupResource()
	if !scales.Has(resource) {
		return nil, fmt.Errorf("%s: %s has no scale subresource", source, resource)
	}
	if old == nil {
		return nil, fmt.Errorf("%s: an UPDATE of %s/scale needs the %s as stored: give it with --old", source, resource, obj.resource.Kind.Kind)
	}
	stored, err := scales.Read(resource, old.json)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", old.source, err)
	}
	changed, err := scales.Read(resource, obj.json)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	var scale, replicas unstructured.Unstructured
	if err := scale.UnmarshalJSON(stored); err != nil {
		return nil, err
	}
	if err := replicas.UnmarshalJSON(changed); err != nil {
		return nil, err
	}
	n, _, _ := unstructured.NestedInt64(replicas.Object, "spec", "replicas")
	if err := unstructured.SetNestedField(scale.Object, n, "spec", "replicas"); err != nil {
		return nil, err
	}
	unstructured.RemoveNestedField(scale.Object, "metadata", "managedFields")
	body, err := scale.MarshalJSON()
	if err != nil {
		return nil, err
	}
	sub, _ := obj.resource.Subresource("scale")
	scaled := *req
	scaled.Kind, scaled.Object, scaled.OldObject, scaled.Parent = sub.Kind, body, stored, old.json
	return &scaled, nil
}

func mustJSON(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// describeSubresourceInput is the help text for the subresources' inputs.
func describeSubresourceInput() string {
	return strings.Join([]string{
		"--subresource scale: an autoscaling/v1 Scale, or the changed Deployment (ReplicaSet, StatefulSet,",
		"ReplicationController, custom resource) whose replicas stand for it, with the stored object as --old;",
		"--subresource eviction: a policy/v1 Eviction named after the pod; --subresource binding: a v1 Binding;",
		"--subresource status (and ephemeralcontainers, resize): the whole changed object, with --old",
	}, "\n")
}
