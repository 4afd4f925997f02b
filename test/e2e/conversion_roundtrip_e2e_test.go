//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"

	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/conversion"
)

// crateV1 lacks v2's capacity; crateHub's conversions keep it in an annotation of v1 objects.
type crateV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Color string `json:"color"`
	} `json:"spec"`
}

type crateV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Color    string `json:"color"`
		Capacity int64  `json:"capacity,omitempty"`
	} `json:"spec"`
}

const crateCapacityAnnotation = "roundtrip.e2e.admit.dev/v2-capacity"

// crateHub converts crates through v2, stashing v2's capacity in an annotation of v1 objects
// and taking it back out; neither function copies metadata.
func crateHub(t *testing.T) *conversion.Hub[crateV2] {
	t.Helper()
	hub := conversion.NewHub[crateV2]("Crate")
	err := conversion.AddVersion(hub, "roundtrip.e2e.admit.dev/v1",
		func(v *crateV1, h *crateV2) error {
			h.Spec.Color = v.Spec.Color
			if s, ok := h.Annotations[crateCapacityAnnotation]; ok {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return fmt.Errorf("annotation %s: %w", crateCapacityAnnotation, err)
				}
				h.Spec.Capacity = n
				delete(h.Annotations, crateCapacityAnnotation)
			}
			return nil
		},
		func(h *crateV2, v *crateV1) error {
			v.Spec.Color = h.Spec.Color
			if h.Spec.Capacity != 0 {
				if v.Annotations == nil {
					v.Annotations = map[string]string{}
				}
				v.Annotations[crateCapacityAnnotation] = strconv.FormatInt(h.Spec.Capacity, 10)
			}
			return nil
		})
	if err == nil {
		err = conversion.AddHubVersion(hub, "roundtrip.e2e.admit.dev/v2")
	}
	if err != nil {
		t.Fatal(err)
	}
	return hub
}

// serveCrateCRD serves crateHub over TLS and installs crates.roundtrip.e2e.admit.dev, v2 stored,
// converting through it.
func serveCrateCRD(t *testing.T) {
	t.Helper()
	const name = "crates.roundtrip.e2e.admit.dev"
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := reg.RegisterConversion(webhook.Conversion{CRD: name, Converter: crateHub(t)}); err != nil {
		t.Fatal(err)
	}
	served := serveWebhooks(t, reg)
	conv, err := reg.CRDConversion(name, webhook.ClientConfig{URL: served.URL, CABundle: served.CABundle})
	if err != nil {
		t.Fatal(err)
	}
	schemaAny := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", XPreserveUnknownFields: ptrTo(true),
	}}
	createCRD(t, &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "roundtrip.e2e.admit.dev",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crates", Singular: "crate", Kind: "Crate", ListKind: "CrateList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Schema: schemaAny},
				{Name: "v2", Served: true, Storage: true, Schema: schemaAny},
			},
			Conversion: conv,
		},
	})
}

// A field v1 lacks survives a round trip through v1 on a real kube-apiserver: the Hub's answer
// keeps the annotation its conversion stashes the field in, and the apiserver keeps it too.
func TestConversionRoundTripKeepsStashedField(t *testing.T) {
	t.Parallel()
	serveCrateCRD(t)
	client, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	ns := "conv-roundtrip-" + rand.String(6)
	createNamespace(t, ns, nil)
	crates := func(version string) dynamic.ResourceInterface {
		return client.Resource(schema.GroupVersionResource{Group: "roundtrip.e2e.admit.dev", Version: version, Resource: "crates"}).Namespace(ns)
	}
	ctx := context.Background()
	created := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "roundtrip.e2e.admit.dev/v2", "kind": "Crate",
		"metadata": map[string]any{"name": "c", "labels": map[string]any{"app": "shop"}},
		"spec":     map[string]any{"color": "red", "capacity": int64(7)},
	}}
	if _, err := crates("v2").Create(ctx, created, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	asV1, err := crates("v1").Get(ctx, "c", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkCrate(t, "read as v1", asV1, map[string]any{"color": "red"},
		map[string]string{"app": "shop"}, map[string]string{crateCapacityAnnotation: "7"})

	labels := asV1.GetLabels()
	labels["tier"] = "gold"
	asV1.SetLabels(labels)
	if err := unstructured.SetNestedField(asV1.Object, "blue", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	if _, err := crates("v1").Update(ctx, asV1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	asV2, err := crates("v2").Get(ctx, "c", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkCrate(t, "updated as v1, read as v2", asV2, map[string]any{"color": "blue", "capacity": int64(7)},
		map[string]string{"app": "shop", "tier": "gold"}, nil)
}

// checkCrate compares a crate's spec, labels and annotations with the wanted ones.
func checkCrate(t *testing.T, what string, got *unstructured.Unstructured, spec map[string]any, labels, annotations map[string]string) {
	t.Helper()
	gotSpec, _, _ := unstructured.NestedMap(got.Object, "spec")
	if diff := cmp.Diff(spec, gotSpec); diff != "" {
		t.Errorf("%s: spec (-want +got):\n%s", what, diff)
	}
	if diff := cmp.Diff(labels, got.GetLabels()); diff != "" {
		t.Errorf("%s: labels (-want +got):\n%s", what, diff)
	}
	if diff := cmp.Diff(annotations, got.GetAnnotations()); diff != "" {
		t.Errorf("%s: annotations (-want +got):\n%s", what, diff)
	}
}
