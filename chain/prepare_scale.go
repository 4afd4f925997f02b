package chain

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/apis/autoscaling"
	autoscalingvalidation "k8s.io/kubernetes/pkg/apis/autoscaling/validation"

	"github.com/admitkit/admit/engine"
)

// prepareScale is what kube-apiserver's scale handler does between mutating and validating
// admission of an UPDATE of a scale subresource: the Scale mutating admission ended with is
// validated, its replicas (and resource version, a precondition) are written into the parent,
// and the parent's own update runs — its strategy's preparation (a new generation) and
// validation. Validating admission then sees the parent's Scale, as a read returns it, without
// managed fields.
func (p *preparer) prepareScale(ctx context.Context, at *engine.Attributes) error {
	req := at.Request
	resource := req.Resource.GroupResource()
	if req.Operation != "UPDATE" {
		return apierrors.NewMethodNotSupported(schema.GroupResource{Group: resource.Group, Resource: resource.Resource + "/scale"}, string(req.Operation))
	}
	if len(req.Parent) == 0 {
		return apierrors.NewBadRequest(fmt.Sprintf("an UPDATE of %s/scale needs the %s it scales, as stored", resource, resource))
	}
	internal, err := p.codec.toInternal(at.Object(), req.Kind)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	scale, ok := internal.(*autoscaling.Scale)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("the body of %s/scale is a %s, not an autoscaling Scale", resource, req.Kind))
	}
	if errs := autoscalingvalidation.ValidateScale(scale); len(errs) > 0 {
		return apierrors.NewInvalid(autoscaling.Kind("Scale"), scale.Name, errs)
	}
	stored, err := p.codec.storedParent(ctx, req)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	parent, err := p.codec.scales.withReplicas(resource, stored, scale.Spec.Replicas)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if scale.ResourceVersion != "" {
		if parent, err = withResourceVersion(parent, scale.ResourceVersion); err != nil {
			return apierrors.NewInternalError(err)
		}
	}
	prepared, err := p.prepareParent(ctx, req, parent, stored)
	if err != nil {
		return err
	}
	view, err := p.codec.scales.scaleOf(resource, prepared)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	view.ManagedFields = nil
	old, err := p.codec.scales.scaleOf(resource, stored)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	old.ManagedFields = nil
	viewJSON, err := json.Marshal(view)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	oldJSON, err := json.Marshal(old)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	at.SetObject(viewJSON)
	at.SetOldObject(oldJSON)
	return nil
}

// prepareParent runs the generic store's update of the parent of a scale: the resource version
// check, then the parent's strategy; a custom resource gets a new generation when its replicas
// change, as the custom resource strategy gives one for every change of the spec.
func (p *preparer) prepareParent(ctx context.Context, req *engine.Request, parent, stored []byte) ([]byte, error) {
	var head unstructured.Unstructured
	if err := head.UnmarshalJSON(parent); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	kind := head.GroupVersionKind()
	if p.custom.knows(kind) {
		var old unstructured.Unstructured
		if err := old.UnmarshalJSON(stored); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if given := head.GetResourceVersion(); given != "" && given != old.GetResourceVersion() {
			return nil, apierrors.NewConflict(req.Resource.GroupResource(), head.GetName(), fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
		}
		spec, _, _ := unstructured.NestedFieldNoCopy(head.Object, "spec")
		oldSpec, _, _ := unstructured.NestedFieldNoCopy(old.Object, "spec")
		if !jsonEqual(mustMarshal(spec), mustMarshal(oldSpec)) {
			head.SetGeneration(old.GetGeneration() + 1)
		}
		return head.MarshalJSON()
	}
	key := resourceKey{req.Resource.Group, req.Resource.Resource, ""}
	s, ok := p.strategies[key]
	if !ok || s.update == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no update strategy for %s", describeResource(key)))
	}
	obj, err := p.codec.toInternal(parent, kind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	old, err := p.codec.toInternal(stored, kind)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	parentRequest := *req
	parentRequest.Kind, parentRequest.SubResource = kind, ""
	if err := checkResourceVersion(s.update, obj, old, &parentRequest); err != nil {
		return nil, err
	}
	recorder := &warnings{}
	if err := rest.BeforeUpdate(s.update, requestContext(ctx, req, recorder), obj, old); err != nil {
		return nil, err
	}
	return p.codec.fromInternal(ctx, obj, kind)
}

// withResourceVersion sets an object's metadata.resourceVersion.
func withResourceVersion(obj []byte, rv string) ([]byte, error) {
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(obj); err != nil {
		return nil, err
	}
	u.SetResourceVersion(rv)
	return u.MarshalJSON()
}

func mustMarshal(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// storedParent is a scale request's parent as the storage returns it: a built-in kind decoded
// with its defaults (a Deployment without replicas has 1).
func (c *codec) storedParent(ctx context.Context, req *engine.Request) ([]byte, error) {
	var head unstructured.Unstructured
	if err := head.UnmarshalJSON(req.Parent); err != nil {
		return nil, fmt.Errorf("the object the scale is of: %w", err)
	}
	kind := head.GroupVersionKind()
	if !c.builtin(kind) {
		// Every stored object has a resource version; one read from a file may lack it.
		if head.GetResourceVersion() == "" {
			head.SetResourceVersion("1")
		}
		return head.MarshalJSON()
	}
	obj, err := c.decodeStored(req.Parent, kind)
	if err != nil {
		return nil, fmt.Errorf("the %s the scale is of: %w", kind.Kind, err)
	}
	if objectMeta, err := meta.Accessor(obj); err == nil {
		storedVersion(objectMeta)
	}
	return c.fromInternal(ctx, obj, kind)
}
