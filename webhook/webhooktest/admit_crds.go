package webhooktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	resourceconvert "github.com/admitkit/admit/resources/convert"
	"github.com/admitkit/admit/webhook"
)

// describedConverter is what a *conversion.Hub says of itself: enough to know the versions of
// the CRD it converts.
type describedConverter interface {
	Kind() string
	HubVersion() string
	Versions() []string
}

// customResources are the CRDs Admit knows: the ones given, else one for each conversion webhook
// of reg whose converter says its kind and versions (a *conversion.Hub). Such a CRD serves the
// Hub's versions, stores the hub's, converts through the webhook, and is namespaced unless a
// webhook of reg for its kind says Cluster.
func customResources(reg *webhook.Registry, given []*apiextensionsv1.CustomResourceDefinition) []*apiextensionsv1.CustomResourceDefinition {
	if len(given) > 0 {
		return given
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, c := range reg.Conversions() {
		hub, ok := c.Converter.(describedConverter)
		plural, group, _ := strings.Cut(c.CRD, ".")
		if !ok {
			continue
		}
		kind := c.Kind
		if kind == "" {
			kind = hub.Kind()
		}
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: c.CRD},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: group,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind, ListKind: kind + "List"},
				Scope: apiextensionsv1.NamespaceScoped,
				Conversion: &apiextensionsv1.CustomResourceConversion{
					Strategy: apiextensionsv1.WebhookConverter,
					Webhook:  &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"}},
				},
			},
		}
		for _, w := range reg.Webhooks() {
			if w.Kind.Group == group && w.Kind.Kind == kind && w.Scope == admissionregistrationv1.ClusterScope {
				crd.Spec.Scope = apiextensionsv1.ClusterScoped
			}
		}
		for _, apiVersion := range hub.Versions() {
			_, version, _ := strings.Cut(apiVersion, "/")
			crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
				Name: version, Served: true, Storage: apiVersion == hub.HubVersion(),
			})
		}
		out = append(out, crd)
	}
	return out
}

// registryConverter converts as kube-apiserver does for the webhooks Admit calls through an
// equivalent version: a custom resource through reg's conversion webhook for its CRD, when reg
// serves one; otherwise as package resources/convert does (the built-in pairs, and CRDs converting with
// strategy None).
type registryConverter struct {
	reg *webhook.Registry
	// paths are the paths of reg's conversion webhooks, by the kind of their CRD.
	paths  map[schema.GroupKind]string
	others *resourceconvert.Converter
}

func newRegistryConverter(reg *webhook.Registry, crds []*apiextensionsv1.CustomResourceDefinition) (*registryConverter, error) {
	others, err := resourceconvert.New(crds...)
	if err != nil {
		return nil, err
	}
	c := &registryConverter{reg: reg, paths: map[schema.GroupKind]string{}, others: others}
	for _, crd := range crds {
		if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter {
			continue
		}
		for _, conv := range reg.Conversions() {
			if conv.CRD == crd.Name {
				c.paths[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = conv.Path
			}
		}
	}
	return c, nil
}

func (c *registryConverter) Convert(ctx context.Context, object json.RawMessage, to schema.GroupVersionKind) (json.RawMessage, error) {
	path, ok := c.paths[to.GroupKind()]
	if !ok {
		return c.others.Convert(ctx, object, to)
	}
	var from metav1.TypeMeta
	if err := json.Unmarshal(object, &from); err != nil {
		return nil, fmt.Errorf("converting to %s: %w", to.GroupVersion(), err)
	}
	resp, err := conversionReview(ctx, c.reg, path, to.GroupVersion().String(), to.Kind, []runtime.RawExtension{{Raw: object}})
	if err == nil && resp.Result.Status != metav1.StatusSuccess {
		err = errors.New(resp.Result.Message)
	}
	if err != nil {
		// kube-apiserver's words for a conversion webhook that fails.
		return nil, fmt.Errorf("conversion webhook for %v failed: %w", from.GroupVersionKind(), err)
	}
	return resp.ConvertedObjects[0].Raw, nil
}
