package chain

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	"github.com/admitkit/admit/resources"
)

// objectInterfaces are what kube-apiserver hands its admission plugins to create, convert and
// default objects and to find a resource's other served versions: the scheme for built-in kinds,
// the CRD's conversion for custom resources, and the served versions of every resource, through
// which an admission policy with matchPolicy Equivalent matches a request made in another
// version (an autoscaling/v1 HPA under a policy on autoscaling/v2) and sees it converted.
type objectInterfaces struct {
	scheme      *runtime.Scheme
	custom      *customResources
	equivalents equivalentResources
}

var _ admission.ObjectInterfaces = objectInterfaces{}

func newObjectInterfaces(scheme *runtime.Scheme, custom *customResources, mapper *resources.Mapper) objectInterfaces {
	return objectInterfaces{scheme: scheme, custom: custom, equivalents: equivalentResources{mapper}}
}

func (o objectInterfaces) GetObjectCreater() runtime.ObjectCreater     { return o }
func (o objectInterfaces) GetObjectTyper() runtime.ObjectTyper         { return o.scheme }
func (o objectInterfaces) GetObjectDefaulter() runtime.ObjectDefaulter { return o.scheme }
func (o objectInterfaces) GetObjectConvertor() runtime.ObjectConvertor { return o }
func (o objectInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.equivalents
}

// New creates an empty object of kind: an unstructured one for a custom resource.
func (o objectInterfaces) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	if o.custom.knows(kind) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(kind)
		return u, nil
	}
	return o.scheme.New(kind)
}

// Convert converts in into out; a custom resource as its CRD converts it.
func (o objectInterfaces) Convert(in, out, context any) error {
	from, fromCustom := in.(*unstructured.Unstructured)
	to, toCustom := out.(*unstructured.Unstructured)
	if !fromCustom || !toCustom || !o.custom.knows(from.GroupVersionKind()) {
		return o.scheme.Convert(in, out, context)
	}
	converted, err := o.convertCustom(from, to.GroupVersionKind())
	if err != nil {
		return err
	}
	to.Object = converted.Object
	return nil
}

// ConvertToVersion converts in to the version target chooses; a custom resource as its CRD
// converts it.
func (o objectInterfaces) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok || !o.custom.knows(u.GroupVersionKind()) {
		return o.scheme.ConvertToVersion(in, target)
	}
	kind, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("%s cannot be converted to %v", u.GroupVersionKind(), target)
	}
	return o.convertCustom(u, kind)
}

func (o objectInterfaces) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return o.scheme.ConvertFieldLabel(gvk, label, value)
}

func (o objectInterfaces) convertCustom(in *unstructured.Unstructured, to schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(in.Object)
	if err != nil {
		return nil, err
	}
	converted, err := o.custom.convert(context.Background(), data, to)
	if err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(converted); err != nil {
		return nil, fmt.Errorf("the converted %s: %w", to, err)
	}
	return out, nil
}

// equivalentResources are the versions each resource is served in, from the resources table
// (built-in kinds and the CRDs').
type equivalentResources struct{ mapper *resources.Mapper }

func (e equivalentResources) EquivalentResourcesFor(gvr schema.GroupVersionResource, subresource string) []schema.GroupVersionResource {
	return e.mapper.Equivalents(gvr, subresource)
}

func (e equivalentResources) KindFor(gvr schema.GroupVersionResource, subresource string) schema.GroupVersionKind {
	kind, err := e.mapper.KindFor(gvr, subresource)
	if err != nil {
		return schema.GroupVersionKind{}
	}
	return kind
}
