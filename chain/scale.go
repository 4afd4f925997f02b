package chain

import (
	"encoding/json"
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Scales reads the scale subresource of the resources that have one, as kube-apiserver's scale
// handlers do: an autoscaling/v1 Scale holding the parent's metadata (name, namespace, uid,
// resource version, creation time), its desired and current replicas and its selector as a
// string. A Scale has no labels of its own: a webhook's objectSelector sees none.
type Scales struct {
	paths map[schema.GroupResource]scalePaths
}

// scalePaths are where a resource keeps what its Scale shows.
type scalePaths struct {
	version        string // the parent's version the paths are read in
	specReplicas   []string
	statusReplicas []string
	// selector holds a LabelSelector (apps), a map of labels (replication controllers) or, for
	// custom resources, the selector already as a string; nil when the resource has none.
	selector     []string
	selectorKind selectorKind
}

type selectorKind int

const (
	labelSelector selectorKind = iota
	labelMap
	selectorString
)

// NewScales knows the built-in resources with a scale subresource and the custom resources of
// crds whose versions declare one.
func NewScales(crds []*apiextensionsv1.CustomResourceDefinition) *Scales {
	apps := func(resource string) (schema.GroupResource, scalePaths) {
		return schema.GroupResource{Group: "apps", Resource: resource},
			scalePaths{version: "v1", specReplicas: []string{"spec", "replicas"}, statusReplicas: []string{"status", "replicas"}, selector: []string{"spec", "selector"}}
	}
	s := &Scales{paths: map[schema.GroupResource]scalePaths{}}
	for _, r := range []string{"deployments", "replicasets", "statefulsets"} {
		gr, p := apps(r)
		s.paths[gr] = p
	}
	s.paths[schema.GroupResource{Resource: "replicationcontrollers"}] = scalePaths{version: "v1",
		specReplicas: []string{"spec", "replicas"}, statusReplicas: []string{"status", "replicas"}, selector: []string{"spec", "selector"}, selectorKind: labelMap}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Subresources == nil || v.Subresources.Scale == nil {
				continue
			}
			scale := v.Subresources.Scale
			p := scalePaths{version: v.Name, specReplicas: jsonPath(scale.SpecReplicasPath), statusReplicas: jsonPath(scale.StatusReplicasPath), selectorKind: selectorString}
			if scale.LabelSelectorPath != nil {
				p.selector = jsonPath(*scale.LabelSelectorPath)
			}
			s.paths[schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}] = p
			break // every version of a CRD declares the same subresources
		}
	}
	return s
}

// jsonPath splits a CRD's ".spec.replicas" into its fields.
func jsonPath(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// Has reports whether resource has a scale subresource.
func (s *Scales) Has(resource schema.GroupResource) bool {
	_, ok := s.paths[resource]
	return ok
}

// Read returns parent's Scale, as a read of resource's scale subresource returns it: with the
// managed fields of the parent's replicas, as the scale handler shows them.
func (s *Scales) Read(resource schema.GroupResource, parent []byte) ([]byte, error) {
	scale, err := s.scaleOf(resource, parent)
	if err != nil {
		return nil, err
	}
	return json.Marshal(scale)
}

func (s *Scales) scaleOf(resource schema.GroupResource, parent []byte) (*autoscalingv1.Scale, error) {
	p, ok := s.paths[resource]
	if !ok {
		return nil, fmt.Errorf("%s has no scale subresource", resource)
	}
	var obj unstructured.Unstructured
	if err := obj.UnmarshalJSON(parent); err != nil {
		return nil, fmt.Errorf("the %s the scale is of: %w", resource, err)
	}
	scale := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(), CreationTimestamp: obj.GetCreationTimestamp()},
	}
	if n, ok, _ := unstructured.NestedInt64(obj.Object, p.specReplicas...); ok {
		scale.Spec.Replicas = int32(n)
	}
	if n, ok, _ := unstructured.NestedInt64(obj.Object, p.statusReplicas...); ok {
		scale.Status.Replicas = int32(n)
	}
	selector, err := p.readSelector(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("the selector of %s %q: %w", resource, obj.GetName(), err)
	}
	scale.Status.Selector = selector
	entries, err := managedfields.NewScaleHandler(obj.GetManagedFields(), schema.GroupVersion{Group: resource.Group, Version: p.version},
		managedfields.ResourcePathMappings{schema.GroupVersion{Group: resource.Group, Version: p.version}.String(): fieldpath.MakePathOrDie(toAnySlice(p.specReplicas)...)}).ToSubresource()
	if err != nil {
		return nil, fmt.Errorf("the managed fields of %s %q: %w", resource, obj.GetName(), err)
	}
	scale.ManagedFields = entries
	return scale, nil
}

func (p scalePaths) readSelector(obj map[string]any) (string, error) {
	if p.selector == nil {
		return "", nil
	}
	value, ok, err := unstructured.NestedFieldNoCopy(obj, p.selector...)
	if err != nil || !ok || value == nil {
		return "", err
	}
	switch p.selectorKind {
	case labelMap:
		set := labels.Set{}
		m, _ := value.(map[string]any)
		for k, v := range m {
			set[k], _ = v.(string)
		}
		return labels.SelectorFromSet(set).String(), nil
	case selectorString:
		text, _ := value.(string)
		return text, nil
	}
	data, err := json.Marshal(value)
	if err != nil {
		return "", err
	}
	var ls metav1.LabelSelector
	if err := json.Unmarshal(data, &ls); err != nil {
		return "", err
	}
	selector, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		return "", err
	}
	return selector.String(), nil
}

// withReplicas returns a copy of parent whose desired replicas are replicas, as the scale
// handler writes a Scale's spec into its parent.
func (s *Scales) withReplicas(resource schema.GroupResource, parent []byte, replicas int32) ([]byte, error) {
	p, ok := s.paths[resource]
	if !ok {
		return nil, fmt.Errorf("%s has no scale subresource", resource)
	}
	var obj unstructured.Unstructured
	if err := obj.UnmarshalJSON(parent); err != nil {
		return nil, err
	}
	if err := unstructured.SetNestedField(obj.Object, int64(replicas), p.specReplicas...); err != nil {
		return nil, err
	}
	return obj.MarshalJSON()
}

func toAnySlice(path []string) []any {
	out := make([]any, len(path))
	for i, p := range path {
		out[i] = p
	}
	return out
}
