package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// The built-in kinds, as describe renders them.
const (
	hpaV1       = "autoscaling/v1 HorizontalPodAutoscaler"
	hpaV2       = "autoscaling/v2 HorizontalPodAutoscaler"
	coreEvent   = "v1 Event"
	eventsEvent = "events.k8s.io/v1 Event"
)

// Converter converts objects between equivalent versions. Build it with New; it is safe for
// concurrent use.
type Converter struct {
	customResources map[schema.GroupKind]customResource
}

// customResource is what conversion needs to know of a CRD.
type customResource struct {
	crd      string // the CRD's name, for errors
	strategy apiextensionsv1.ConversionStrategyType
	versions map[string]bool
}

// New returns a Converter for the built-in pairs and the custom resources of crds.
func New(crds ...*apiextensionsv1.CustomResourceDefinition) (*Converter, error) {
	c := &Converter{customResources: map[schema.GroupKind]customResource{}}
	for i, crd := range crds {
		if crd == nil {
			return nil, fmt.Errorf("CustomResourceDefinition %d is nil", i)
		}
		gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
		if gk.Group == "" || gk.Kind == "" {
			return nil, fmt.Errorf("CustomResourceDefinition %q: spec.group and spec.names.kind are required", crd.Name)
		}
		if other, ok := c.customResources[gk]; ok {
			return nil, fmt.Errorf("CustomResourceDefinitions %q and %q both define %s", other.crd, crd.Name, gk)
		}
		strategy := apiextensionsv1.NoneConverter // the apiserver's default
		if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy != "" {
			strategy = crd.Spec.Conversion.Strategy
		}
		versions := map[string]bool{}
		for _, v := range crd.Spec.Versions {
			versions[v.Name] = true
		}
		c.customResources[gk] = customResource{crd: crd.Name, strategy: strategy, versions: versions}
	}
	return c, nil
}

// Convert returns object, which names its own apiVersion and kind, in the version of to.
// Converting to the object's own version returns it unchanged.
func (c *Converter) Convert(_ context.Context, object json.RawMessage, to schema.GroupVersionKind) (json.RawMessage, error) {
	from, err := kindOf(object)
	if err != nil {
		return nil, err
	}
	if from == to {
		return object, nil
	}
	switch [2]string{describe(from), describe(to)} {
	case [2]string{hpaV1, hpaV2}:
		return convertTyped(object, hpaV1ToV2)
	case [2]string{hpaV2, hpaV1}:
		return convertTyped(object, hpaV2ToV1)
	case [2]string{coreEvent, eventsEvent}:
		return convertTyped(object, coreEventToEvents)
	case [2]string{eventsEvent, coreEvent}:
		return convertTyped(object, eventsEventToCore)
	}
	if cr, ok := c.customResources[from.GroupKind()]; ok && from.GroupKind() == to.GroupKind() {
		return cr.convert(object, from, to)
	}
	return nil, fmt.Errorf("no conversion from %s to %s is known", describe(from), describe(to))
}

// convert rewrites the apiVersion: with strategy None, that is all the apiserver changes.
func (cr customResource) convert(object json.RawMessage, from, to schema.GroupVersionKind) (json.RawMessage, error) {
	if cr.strategy != apiextensionsv1.NoneConverter {
		return nil, fmt.Errorf("converting %s to %s: CustomResourceDefinition %q converts with strategy %s, which this converter does not call (chain.Converter does)",
			describe(from), describe(to), cr.crd, cr.strategy)
	}
	for _, v := range []string{from.Version, to.Version} {
		if !cr.versions[v] {
			return nil, fmt.Errorf("converting %s to %s: CustomResourceDefinition %q has no version %q", describe(from), describe(to), cr.crd, v)
		}
	}
	var fields map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(object, &fields); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", describe(from), err)
	}
	fields["apiVersion"] = to.GroupVersion().String()
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", describe(to), err)
	}
	return out, nil
}

// convertTyped decodes object as In, converts it and encodes the result, as the apiserver
// converts typed objects: fields neither type knows are dropped.
func convertTyped[In, Out any](object json.RawMessage, convert func(*In) (*Out, error)) (json.RawMessage, error) {
	in := new(In)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(object, in); err != nil {
		return nil, fmt.Errorf("decoding a %T: %w", *in, err)
	}
	out, err := convert(in)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encoding a %T: %w", *out, err)
	}
	return data, nil
}

// kindOf reads the apiVersion and kind an object names.
func kindOf(object json.RawMessage) (schema.GroupVersionKind, error) {
	var meta metav1.TypeMeta
	if err := json.Unmarshal(object, &meta); err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("reading the apiVersion and kind of the object to convert: %w", err)
	}
	if meta.APIVersion == "" || meta.Kind == "" {
		return schema.GroupVersionKind{}, errors.New("the object to convert has no apiVersion or no kind")
	}
	gv, err := schema.ParseGroupVersion(meta.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("the object to convert has apiVersion %q: %w", meta.APIVersion, err)
	}
	return gv.WithKind(meta.Kind), nil
}

// describe renders a kind as apiVersion and kind, "autoscaling/v1 HorizontalPodAutoscaler".
func describe(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + " " + gvk.Kind
}
