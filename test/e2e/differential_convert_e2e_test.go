//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"

	"github.com/admitkit/admit/resources/convert"
)

// TestDifferentialConvertMatchesAPIServer writes objects through one version of a resource and
// reads them back through every equivalent version: the apiserver's conversion. convert.Converter
// must turn each read into each other read exactly (server-side metadata included: conversion
// carries metadata over untouched). Both reads come from storage, so the apiserver's defaulting is
// already in both and the comparison needs no normalisation.
func TestDifferentialConvertMatchesAPIServer(t *testing.T) {
	t.Parallel()
	crd := conversionNoneCRD("widgets", "Widget")
	createCRD(t, crd)
	converter, err := convert.New(crd)
	if err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	ns := "diff-convert-" + rand.String(6)
	createNamespace(t, ns, nil)

	hpaV1 := schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	hpaV2 := schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	coreEvents := schema.GroupVersionResource{Version: "v1", Resource: "events"}
	events := schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
	widgets := func(version string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}
	}

	tests := []struct {
		name string
		// created is the resource the object is created through; it is then read through each
		// of versions, and every read is converted into every other.
		created  schema.GroupVersionResource
		versions []schema.GroupVersionResource
		object   string
		// status is written through the status subresource of created after the object.
		status string
		// oneWay converts only the read of the version written into the others, where the other
		// reads lose something the apiserver's own conversion could not restore either:
		// autoscaling/v1 keeps no order between the CPU target and the other metrics, and writes
		// zero for a current value v2 leaves out.
		oneWay bool
	}{
		{
			name:     "HorizontalPodAutoscaler written through autoscaling/v2 with every v2 field",
			created:  hpaV2,
			versions: []schema.GroupVersionResource{hpaV2, hpaV1},
			oneWay:   true,
			object: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"full","labels":{"app":"web"},"annotations":{"keep":"me"}},
				"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":2,"maxReplicas":9,"metrics":[
				{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}},
				{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
				{"type":"Pods","pods":{"metric":{"name":"qps","selector":{"matchLabels":{"a":"b"}}},"target":{"type":"AverageValue","averageValue":"10"}}},
				{"type":"Object","object":{"describedObject":{"apiVersion":"v1","kind":"Service","name":"s"},"metric":{"name":"hits"},"target":{"type":"AverageValue","averageValue":"4"}}},
				{"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"3"}}},
				{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","target":{"type":"Utilization","averageUtilization":70}}}],
				"behavior":{"scaleUp":{"stabilizationWindowSeconds":10,"selectPolicy":"Min","policies":[{"type":"Pods","value":2,"periodSeconds":30}],"tolerance":"0.02"},
				"scaleDown":{"selectPolicy":"Disabled"}}}}`,
			status: `{"currentReplicas":3,"desiredReplicas":4,"observedGeneration":1,"lastScaleTime":"2026-01-01T00:00:00Z","currentMetrics":[
				{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":55,"averageValue":"200m"}}},
				{"type":"Object","object":{"describedObject":{"apiVersion":"v1","kind":"Service","name":"s"},"metric":{"name":"hits"},"current":{"value":"4","averageValue":"1"}}},
				{"type":"External","external":{"metric":{"name":"queue"},"current":{"averageValue":"2"}}}],
				"conditions":[{"type":"ScalingActive","status":"False","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"FailedGetResourceMetric","message":"no metrics"}]}`,
		},
		{
			name:     "HorizontalPodAutoscaler written through autoscaling/v1 with round-trip annotations",
			created:  hpaV1,
			versions: []schema.GroupVersionResource{hpaV1, hpaV2},
			object: `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"annotated","annotations":{"keep":"me",
				"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"qps\",\"targetAverageValue\":\"10\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue\",\"targetValue\":\"3\"}}]",
				"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleDown\":{\"StabilizationWindowSeconds\":30,\"Policies\":[{\"Type\":\"Pods\",\"Value\":1,\"PeriodSeconds\":60}]}}",
				"autoscaling.alpha.kubernetes.io/conditions":"not JSON"}},
				"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":4,"targetCPUUtilizationPercentage":50}}`,
		},
		{
			name:     "HorizontalPodAutoscaler written through autoscaling/v1 without a target",
			created:  hpaV1,
			versions: []schema.GroupVersionResource{hpaV1, hpaV2},
			object: `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"bare"},
				"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":4}}`,
		},
		{
			name:     "Event written through v1",
			created:  coreEvents,
			versions: []schema.GroupVersionResource{coreEvents, events},
			object: `{"apiVersion":"v1","kind":"Event","metadata":{"name":"pulled"},
				"involvedObject":{"kind":"Pod","namespace":"` + ns + `","name":"web","uid":"u-1","apiVersion":"v1","fieldPath":"spec.containers{app}"},
				"reason":"Pulled","message":"image pulled","source":{"component":"kubelet","host":"node-1"},
				"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:05:00Z","count":3,"type":"Warning",
				"related":{"kind":"Node","name":"node-1"},"reportingComponent":"kubelet","reportingInstance":"node-1"}`,
		},
		{
			name:     "Event written through events.k8s.io/v1",
			created:  events,
			versions: []schema.GroupVersionResource{events, coreEvents},
			object: `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"scaled"},
				"eventTime":"2026-01-01T00:00:00.123456Z","series":{"count":2,"lastObservedTime":"2026-01-01T00:01:00.654321Z"},
				"reportingController":"example.com/ctrl","reportingInstance":"ctrl-0","action":"Scale","reason":"Scaled",
				"regarding":{"kind":"Deployment","namespace":"` + ns + `","name":"web","apiVersion":"apps/v1"},"note":"scaled up","type":"Normal"}`,
		},
		{
			name:     "custom resource with conversion None",
			created:  widgets("v2"),
			versions: []schema.GroupVersionResource{widgets("v2"), widgets("v1")},
			object:   `{"apiVersion":"` + crd.Spec.Group + `/v2","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3,"nested":{"list":[1,"two"]}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			obj := &unstructured.Unstructured{}
			if err := json.Unmarshal([]byte(tt.object), &obj.Object); err != nil {
				t.Fatalf("the test's object: %v", err)
			}
			created, err := client.Resource(tt.created).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.status != "" {
				var status map[string]any
				if err := json.Unmarshal([]byte(tt.status), &status); err != nil {
					t.Fatalf("the test's status: %v", err)
				}
				created.Object["status"] = status
				if _, err := client.Resource(tt.created).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			reads := map[schema.GroupVersionResource]json.RawMessage{}
			for _, gvr := range tt.versions {
				read, err := client.Resource(gvr).Namespace(ns).Get(ctx, obj.GetName(), metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if reads[gvr], err = read.MarshalJSON(); err != nil {
					t.Fatal(err)
				}
			}
			for _, from := range tt.versions {
				for _, to := range tt.versions {
					if from == to || (tt.oneWay && from != tt.created) {
						continue
					}
					kind := schema.GroupVersionKind{Group: to.Group, Version: to.Version, Kind: obj.GetKind()}
					converted, err := converter.Convert(context.Background(), reads[from], kind)
					if err != nil {
						t.Fatalf("converting the %s read to %s: %v", describe(from), describe(to), err)
					}
					if diff := cmp.Diff(jsonValue(t, reads[to]), jsonValue(t, converted)); diff != "" {
						t.Errorf("the %s read converted to %s differs from the apiserver's %s read (-apiserver +admit):\n%s",
							describe(from), describe(to), describe(to), diff)
					}
				}
			}
		})
	}
}

func jsonValue(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// conversionNoneCRD serves v1 and v2 of <plural>.diff.e2e.admit.dev, which convert by rewriting
// apiVersion; each test names its own, since tests run in parallel.
func conversionNoneCRD(plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	schemaAny := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", XPreserveUnknownFields: ptrTo(true),
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".diff.e2e.admit.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "diff.e2e.admit.dev",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: strings.ToLower(kind), Kind: kind, ListKind: kind + "List"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schemaAny},
				{Name: "v2", Served: true, Schema: schemaAny},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
		},
	}
}
