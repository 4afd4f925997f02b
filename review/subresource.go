package review

import (
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
)

// A subresource with a REST handler of its own takes a body of its own kind — scale an
// autoscaling/v1 Scale, pods/eviction a policy/v1 Eviction, pods/binding a v1 Binding — and
// webhooks receive that kind on the parent's resource. A review takes either that body, on the
// parent given as an old object (scale), or the changed parent itself, whose replicas stand for
// the Scale a client sends.

// subresourceBody resolves an object written to a subresource whose kind is the subresource's
// own rather than a resource's: its parent resource is that of the old object of the same
// namespace and name that has the subresource, else the first resource with the subresource. ok
// is false for an object of a resource's own kind.
func (s *Session) subresourceBody(in Input, w Write, olds map[objectKey]*resolved) (body, parent *resolved, ok bool) {
	if w.SubResource == "" {
		return nil, nil, false
	}
	gvk := in.Object.GroupVersionKind()
	if _, err := s.mapper.ResourceFor(gvk); err == nil && gvk.Kind != "Binding" {
		return nil, nil, false // a resource's own kind (a Binding is both: bindings and pods/binding)
	}
	var candidates []resources.Resource
	for _, r := range s.mapper.Resources() {
		if sub, has := r.Subresource(w.SubResource); has && sub.Kind == gvk {
			candidates = append(candidates, r)
		}
	}
	if len(candidates) == 0 {
		return nil, nil, false
	}
	namespace := in.Object.GetNamespace()
	if namespace == "" {
		namespace = w.Namespace
	}
	for _, old := range olds {
		if old.Object.GetName() != in.Object.GetName() || (old.resource.Namespaced && old.namespace != namespace) {
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
	} else if in.Object.GetNamespace() == "" {
		in.Object.SetNamespace(namespace)
	}
	data, err := json.Marshal(in.Object.Object)
	if err != nil {
		return nil, nil, false
	}
	return &resolved{Input: in, resource: resource, namespace: namespace, json: data}, parent, true
}

// subresourceRequest is the admission of a subresource's body on its parent.
func (s *Session) subresourceRequest(body, parent *resolved, op admissionv1.Operation, w Write) (*engine.Request, error) {
	source, res := body.Source, body.resource
	sub, _ := res.Subresource(w.SubResource)
	if op == "" {
		op = admissionv1.Create
		if parent != nil || w.SubResource == "scale" {
			op = admissionv1.Update
		}
	}
	req, err := s.newRequest(sub.Kind, res.GVR, body.Object.GetName(), body.namespace, op, w)
	if err != nil {
		return nil, err
	}
	switch op {
	case admissionv1.Update:
		if parent == nil {
			return nil, fmt.Errorf("%s: a %s is written to the %s subresource of the object it belongs to: give that object as stored in %s (same namespace and name)", source, sub.Kind.Kind, w.SubResource, s.cfg.Terms.OldObjects)
		}
		req.Object, req.Parent = body.json, parent.json
		if w.SubResource == "scale" {
			if req.OldObject, err = s.scales.Read(res.GVR.GroupResource(), parent.json); err != nil {
				return nil, fmt.Errorf("%s: %w", parent.Source, err)
			}
		} else {
			req.OldObject = parent.json
		}
	case admissionv1.Create:
		req.Object = body.json
	default:
		return nil, fmt.Errorf("%s: a %s is sent to %s/%s with CREATE or UPDATE, not %s", source, sub.Kind.Kind, res.GVR.GroupResource(), w.SubResource, op)
	}
	return req, nil
}

// scaleFromParent turns the UPDATE of a changed parent written to the scale subresource into
// the UPDATE of its Scale: the stored parent's Scale, with the changed parent's replicas.
func (s *Session) scaleFromParent(req *engine.Request, obj, old *resolved) (*engine.Request, error) {
	source, resource := obj.Source, obj.resource.GVR.GroupResource()
	if !s.scales.Has(resource) {
		return nil, fmt.Errorf("%s: %s has no scale subresource", source, resource)
	}
	if old == nil {
		return nil, fmt.Errorf("%s: an UPDATE of %s/scale needs the %s as stored, in %s", source, resource, obj.resource.Kind.Kind, s.cfg.Terms.OldObjects)
	}
	stored, err := s.scales.Read(resource, old.json)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", old.Source, err)
	}
	changed, err := s.scales.Read(resource, obj.json)
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
