//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/webhook"
)

// TestResourcesMatchDiscovery compares the built-in resource data with what the running
// kube-apiserver serves, so that a Kubernetes version bump that changes resources is caught.
func TestResourcesMatchDiscovery(t *testing.T) {
	builtin, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	client, err := discovery.NewDiscoveryClientForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	live, err := resources.FromDiscovery(client)
	if err != nil {
		t.Fatal(err)
	}
	if minor(live.ServerVersion()) != minor(builtin.ServerVersion()) {
		t.Fatalf("kube-apiserver is %s but the built-in data is of %s: generate data for this version with `go run ./hack/gen-resources`",
			live.ServerVersion(), builtin.ServerVersion())
	}

	// Other tests may be creating CRDs in this apiserver right now; the data is about built-ins.
	customResources := map[schema.GroupResource]bool{}
	crds, err := apiextensionsclient.NewForConfigOrDie(env.RESTConfig).ApiextensionsV1().CustomResourceDefinitions().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range crds.Items {
		customResources[schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}] = true
	}
	var served []resources.Resource
	for _, r := range live.Resources() {
		if !customResources[r.GVR.GroupResource()] {
			served = append(served, r)
		}
	}

	if report := compareResources(builtin, builtin.Resources(), live, served); report != "" {
		t.Errorf("resources/kube-1.36.json differs from kube-apiserver %s; regenerate it with `go run ./hack/gen-resources` and review the change:\n%s",
			live.ServerVersion(), report)
	}
}

func minor(version string) string {
	parts := strings.SplitN(version, ".", 3)
	return strings.Join(parts[:min(2, len(parts))], ".")
}

// compareResources describes, one line per difference, what the live apiserver serves that the
// data lacks (+), what the data has that the apiserver no longer serves (-), and what differs.
func compareResources(data *resources.Mapper, want []resources.Resource, live *resources.Mapper, got []resources.Resource) string {
	wantByGVR := map[schema.GroupVersionResource]resources.Resource{}
	for _, r := range want {
		wantByGVR[r.GVR] = r
	}
	gotByGVR := map[schema.GroupVersionResource]resources.Resource{}
	for _, r := range got {
		gotByGVR[r.GVR] = r
	}
	var lines []string
	for _, r := range got {
		if _, ok := wantByGVR[r.GVR]; !ok {
			lines = append(lines, fmt.Sprintf("+ %s (kind %s, %d subresources)", describe(r.GVR), r.Kind.Kind, len(r.Subresources)))
		}
	}
	for _, r := range want {
		if _, ok := gotByGVR[r.GVR]; !ok {
			lines = append(lines, fmt.Sprintf("- %s (kind %s)", describe(r.GVR), r.Kind.Kind))
		}
	}
	for _, r := range want {
		g, ok := gotByGVR[r.GVR]
		if !ok {
			continue
		}
		if diff := cmp.Diff(r, g); diff != "" {
			lines = append(lines, fmt.Sprintf("~ %s (-data +apiserver):\n%s", describe(r.GVR), diff))
		}
		if wantEq, gotEq := data.Equivalents(r.GVR, ""), live.Equivalents(r.GVR, ""); !slices.Equal(wantEq, gotEq) {
			lines = append(lines, fmt.Sprintf("~ %s equivalents: data %v, apiserver %v", describe(r.GVR), wantEq, gotEq))
		}
	}
	return strings.Join(lines, "\n")
}

func describe(gvr schema.GroupVersionResource) string {
	return strings.TrimPrefix(gvr.Group+"/"+gvr.Version+"/"+gvr.Resource, "/")
}

// TestResourcesEquivalenceOnAPIServer checks the equivalence classes against the apiserver's own
// matching: a webhook whose only rule names one member of a class, with matchPolicy Equivalent,
// must be called for requests to every other member, with the kind the data gives. For a CRD,
// that includes a version listed but not served.
func TestResourcesEquivalenceOnAPIServer(t *testing.T) {
	builtin, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	crd := equivalenceCRD()
	createCRD(t, crd)
	mapper, err := builtin.WithCRDs(crd)
	if err != nil {
		t.Fatal(err)
	}

	hpaV1 := schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	hpaV2 := schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	coreEvents := schema.GroupVersionResource{Version: "v1", Resource: "events"}
	events := schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
	gadgetsV1 := schema.GroupVersionResource{Group: "e2e.admit.dev", Version: "v1", Resource: "gadgets"}
	gadgetsV2 := schema.GroupVersionResource{Group: "e2e.admit.dev", Version: "v2", Resource: "gadgets"}
	gadgetsV3 := schema.GroupVersionResource{Group: "e2e.admit.dev", Version: "v3", Resource: "gadgets"}

	tests := []struct {
		name string
		// target is the one resource the webhook's rule names; requests go to every other member
		// of its class.
		target schema.GroupVersionResource
		class  []schema.GroupVersionResource
	}{
		{name: "hpa v1 rule, v2 request", target: hpaV1, class: []schema.GroupVersionResource{hpaV2, hpaV1}},
		{name: "hpa v2 rule, v1 request", target: hpaV2, class: []schema.GroupVersionResource{hpaV2, hpaV1}},
		{name: "events.k8s.io rule, core request", target: events, class: []schema.GroupVersionResource{coreEvents, events}},
		{name: "core events rule, events.k8s.io request", target: coreEvents, class: []schema.GroupVersionResource{coreEvents, events}},
		{name: "unserved CRD version rule, served version requests", target: gadgetsV3, class: []schema.GroupVersionResource{gadgetsV1, gadgetsV2, gadgetsV3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.class, mapper.Equivalents(tt.target, "")); diff != "" {
				t.Fatalf("the Mapper's equivalents (-want +got):\n%s", diff)
			}
			targetKind, err := mapper.KindFor(tt.target, "")
			if err != nil {
				t.Fatal(err)
			}
			ns := denyEquivalentRequests(t, tt.target, targetKind)
			for _, requested := range tt.class {
				if requested == tt.target {
					continue
				}
				requestedKind, err := mapper.KindFor(requested, "")
				if err != nil {
					t.Fatal(err)
				}
				want := fmt.Sprintf("kind=%s resource=%s requestKind=%s requestResource=%s",
					describeKind(targetKind), describe(tt.target), describeKind(requestedKind), describe(requested))
				// The first request may precede the configuration taking effect.
				eventually(t, "a request for "+describe(requested)+" to reach the webhook for "+describe(tt.target), func() error {
					err := dryRunCreate(ns, requested, requestedKind)
					if err == nil || !strings.Contains(err.Error(), "denied the request") {
						return fmt.Errorf("request not denied by the webhook yet: %v", err)
					}
					if !strings.Contains(err.Error(), want) {
						t.Fatalf("the apiserver sent something else than the Mapper predicts:\n got: %v\nwant: %s", err, want)
					}
					return nil
				})
			}
		})
	}
}

// denyEquivalentRequests serves a mutating webhook whose only rule names target, with
// matchPolicy Equivalent, in a new namespace. It denies every request with a message that says
// what it received. Mutating webhooks run before validation, so any decodable object will do.
func denyEquivalentRequests(t *testing.T, target schema.GroupVersionResource, kind schema.GroupVersionKind) (namespace string) {
	t.Helper()
	ns, selector := newNamespace(t, "equivalent")
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	report := webhook.HandlerFunc(func(_ context.Context, req *webhook.Request) webhook.Response {
		requestKind, requestResource := "none", "none"
		if req.RequestKind != nil {
			requestKind = describeKind(schema.GroupVersionKind(*req.RequestKind))
		}
		if req.RequestResource != nil {
			requestResource = describe(schema.GroupVersionResource(*req.RequestResource))
		}
		return webhook.Denied(fmt.Sprintf("kind=%s resource=%s requestKind=%s requestResource=%s",
			describeKind(schema.GroupVersionKind(req.Kind)), describe(schema.GroupVersionResource(req.Resource)), requestKind, requestResource))
	})
	err := registry.Register(webhook.Webhook{
		Name: "equivalent.e2e.admit.dev", Type: webhook.TypeMutating, Kind: kind, Resource: target.Resource,
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Handler: report,
	})
	if err != nil {
		t.Fatal(err)
	}
	served := serveWebhooks(t, registry)
	mutating, _, err := registry.Configurations(webhook.ConfigOptions{Name: "admit-" + ns, ClientConfig: webhook.ClientConfig{URL: served.URL, CABundle: served.CABundle}})
	if err != nil {
		t.Fatal(err)
	}
	equivalent := admissionregistrationv1.Equivalent
	for i := range mutating.Webhooks {
		mutating.Webhooks[i].MatchPolicy = &equivalent
		mutating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
		rules := mutating.Webhooks[i].Rules
		if len(rules) != 1 || !slices.Equal(rules[0].APIGroups, []string{target.Group}) || !slices.Equal(rules[0].APIVersions, []string{target.Version}) || !slices.Equal(rules[0].Resources, []string{target.Resource}) {
			t.Fatalf("the webhook's rules %+v name more than %s", rules, describe(target))
		}
	}
	configurations := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := configurations.Create(context.Background(), mutating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = configurations.Delete(context.Background(), mutating.Name, metav1.DeleteOptions{})
	})
	return ns
}

// dryRunCreate creates a minimal valid object of kind through resource gvr without storing it.
func dryRunCreate(namespace string, gvr schema.GroupVersionResource, kind schema.GroupVersionKind) error {
	client, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		return err
	}
	object := &unstructured.Unstructured{Object: sampleObject(gvr, namespace)}
	object.SetGroupVersionKind(kind)
	object.SetGenerateName("equivalent-")
	object.SetNamespace(namespace)
	_, err = client.Resource(gvr).Namespace(namespace).Create(context.Background(), object, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// sampleObject returns the fields a valid object of gvr needs beyond its metadata.
func sampleObject(gvr schema.GroupVersionResource, namespace string) map[string]any {
	pod := map[string]any{"kind": "Pod", "name": "app", "namespace": namespace}
	switch gvr.GroupResource() {
	case schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:
		return map[string]any{"spec": map[string]any{
			"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "app"},
			"maxReplicas":    int64(3),
		}}
	case schema.GroupResource{Resource: "events"}:
		return map[string]any{"involvedObject": pod, "reason": "Testing", "message": "equivalence", "type": "Normal"}
	case schema.GroupResource{Group: "events.k8s.io", Resource: "events"}:
		return map[string]any{
			"regarding": pod, "reason": "Testing", "note": "equivalence", "type": "Normal", "action": "Test",
			"eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "e2e.admit.dev/test", "reportingInstance": "e2e",
		}
	default:
		return map[string]any{"spec": map[string]any{"size": int64(1)}}
	}
}

func describeKind(gvk schema.GroupVersionKind) string {
	return strings.TrimPrefix(gvk.Group+"/"+gvk.Version+"/"+gvk.Kind, "/")
}

// equivalenceCRD serves v1 and v2 and lists v3 without serving it. Conversion None only rewrites
// apiVersion, so any version converts to any other.
func equivalenceCRD() *apiextensionsv1.CustomResourceDefinition {
	schemaAny := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", XPreserveUnknownFields: ptrTo(true),
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.e2e.admit.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "e2e.admit.dev",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schemaAny},
				{Name: "v2", Served: true, Schema: schemaAny},
				{Name: "v3", Served: false, Schema: schemaAny},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }

// createCRD creates crd, waits until it is established, and deletes it when the test ends.
func createCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	ctx := context.Background()
	crds := apiextensionsclient.NewForConfigOrDie(env.RESTConfig).ApiextensionsV1().CustomResourceDefinitions()
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = crds.Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) })
	eventually(t, "CustomResourceDefinition "+crd.Name+" to be established", func() error {
		got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("conditions %+v", got.Status.Conditions)
	})
}
