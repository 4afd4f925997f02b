//go:build e2e

package e2e

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

func testDenyCustomResource(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	s.installCRD(widgetCRD(deniedWidgetKind))
	s.installValidating(s.validatingConfiguration(s.configurationName("deny-widgets"), s.validating(customResourcePolicyWebhook)))
	widgets := widgetClient(t, deniedWidgetKind).Namespace(s.namespace)

	_, err := widgets.Create(ctx, newWidget(deniedWidgetKind, "disallowed", map[string]string{policyKey: disallowed}), metav1.CreateOptions{})
	mustFailWith(t, "creating a non-compliant custom resource", err, "the custom resource contains unwanted data")

	widget, err := widgets.Create(ctx, newWidget(deniedWidgetKind, "nondeletable", map[string]string{policyKey: nondeletable}), metav1.CreateOptions{})
	mustSucceed(t, "creating a custom resource whose deletion the webhook refuses", err)

	update := func(value string) error {
		changed := widget.DeepCopy()
		if err := unstructured.SetNestedField(changed.Object, value, "data", policyKey); err != nil {
			return err
		}
		_, err := widgets.Update(ctx, changed, metav1.UpdateOptions{})
		return err
	}
	mustFailWith(t, "updating the custom resource with disallowed data", update(disallowed), "the custom resource contains unwanted data")
	// The webhook decides a deletion from the stored object, the request's oldObject.
	mustFailWith(t, "deleting the custom resource", widgets.Delete(ctx, widget.GetName(), metav1.DeleteOptions{}),
		"the custom resource cannot be deleted because it contains unwanted key and value")

	mustSucceed(t, "removing the offending value", update(permitted))
	mustSucceed(t, "deleting the updated custom resource", widgets.Delete(ctx, widget.GetName(), metav1.DeleteOptions{}))
	_, err = widgets.Get(ctx, widget.GetName(), metav1.GetOptions{})
	mustBeGone(t, "the deleted custom resource", err)
}

func testMutateCustomResource(t *testing.T, server *conformanceServer) {
	s := newScenario(t, server)
	s.installCRD(widgetCRD(mutatedWidgetKind))
	s.installMutating(s.mutatingConfiguration(s.configurationName("mutate-widgets"),
		s.mutating(widgetStageWebhook(mutatedWidgetKind, 1)), s.mutating(widgetStageWebhook(mutatedWidgetKind, 2))))

	widget, err := widgetClient(t, mutatedWidgetKind).Namespace(s.namespace).Create(context.Background(),
		newWidget(mutatedWidgetKind, "to-be-mutated", map[string]string{mutationStart: "yes"}), metav1.CreateOptions{})
	mustSucceed(t, "creating the custom resource", err)
	mustHaveData(t, widget, map[string]string{mutationStart: "yes", "mutation-stage-1": "yes", "mutation-stage-2": "yes"})
}

func testMutateCustomResourceWithPruning(t *testing.T, server *conformanceServer) {
	s := newScenario(t, server)
	// The schema knows the keys of stage 1 but not stage 2's, which the apiserver must prune
	// after the webhooks added it.
	crd := widgetCRD(prunedWidgetKind)
	crd.Spec.Versions[0].Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"data": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				mutationStart: {Type: "string"}, "mutation-stage-1": {Type: "string"},
			}},
		},
	}}
	s.installCRD(crd)
	s.installMutating(s.mutatingConfiguration(s.configurationName("prune-widgets"),
		s.mutating(widgetStageWebhook(prunedWidgetKind, 1)), s.mutating(widgetStageWebhook(prunedWidgetKind, 2))))

	widget, err := widgetClient(t, prunedWidgetKind).Namespace(s.namespace).Create(context.Background(),
		newWidget(prunedWidgetKind, "to-be-mutated", map[string]string{mutationStart: "yes"}), metav1.CreateOptions{})
	mustSucceed(t, "creating the custom resource", err)
	mustHaveData(t, widget, map[string]string{mutationStart: "yes", "mutation-stage-1": "yes"})
}

func testMutateCustomResourceWithDifferentStoredVersion(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	crd := widgetCRD(versionedWidgetKind)
	v2 := *crd.Spec.Versions[0].DeepCopy()
	v2.Name, v2.Storage = "v2", false
	crd.Spec.Versions = append(crd.Spec.Versions, v2)
	s.installCRD(crd)
	// The webhook's rule names v1 only. With matchPolicy Equivalent the apiserver sends it the
	// requests made through v2, converted to v1: the framework answers any other kind with an
	// error, which failurePolicy Fail would turn into a rejection.
	stage1 := s.mutating(widgetStageWebhook(versionedWidgetKind, 1))
	stage1.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	if got := ptr.Deref(stage1.MatchPolicy, ""); got != admissionregistrationv1.Equivalent {
		t.Fatalf("the registry generated matchPolicy %q, want Equivalent", got)
	}
	s.installMutating(s.mutatingConfiguration(s.configurationName("versioned-widgets"), stage1))

	// Created through v1 with nothing for the webhook to act on.
	_, err := widgetClient(t, versionedWidgetKind).Namespace(s.namespace).Create(ctx,
		newWidget(versionedWidgetKind, "versioned", map[string]string{"unrelated": "yes"}), metav1.CreateOptions{})
	mustSucceed(t, "creating the custom resource while v1 is the storage version", err)

	crds := apiextensionsclient.NewForConfigOrDie(env.RESTConfig).ApiextensionsV1().CustomResourceDefinitions()
	stored, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
	mustSucceed(t, "reading the CustomResourceDefinition", err)
	stored.Spec.Versions[0].Storage, stored.Spec.Versions[1].Storage = false, true
	_, err = crds.Update(ctx, stored, metav1.UpdateOptions{})
	mustSucceed(t, "making v2 the storage version", err)

	v2Kind := schema.GroupVersionKind{Group: versionedWidgetKind.Group, Version: "v2", Kind: versionedWidgetKind.Kind}
	patch := []byte(`[{"op":"add","path":"/data/` + mutationStart + `","value":"yes"},{"op":"add","path":"/dummy","value":"test"}]`)
	widget, err := widgetClient(t, v2Kind).Namespace(s.namespace).Patch(ctx, "versioned", types.JSONPatchType, patch, metav1.PatchOptions{})
	mustSucceed(t, "patching the custom resource through v2", err)
	mustHaveData(t, widget, map[string]string{"unrelated": "yes", mutationStart: "yes", "mutation-stage-1": "yes"})
	if got := widget.Object["dummy"]; got != "test" {
		t.Fatalf("dummy = %v, want the patched value test", got)
	}
	if got := widget.GetAPIVersion(); got != v2Kind.GroupVersion().String() {
		t.Fatalf("apiVersion = %s, want %s", got, v2Kind.GroupVersion())
	}
}

// mustHaveData fails t unless the custom resource's .data is want.
func mustHaveData(t *testing.T, widget *unstructured.Unstructured, want map[string]string) {
	t.Helper()
	data, _, err := unstructured.NestedStringMap(widget.Object, "data")
	mustSucceed(t, "reading the custom resource's data", err)
	if diff := cmp.Diff(want, data); diff != "" {
		t.Fatalf("data (-want +got):\n%s", diff)
	}
}

func testDenyCRDCreation(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	// CustomResourceDefinitions are cluster-scoped, so every namespaceSelector matches them: the
	// objectSelector is what keeps other scenarios' definitions away from this webhook.
	policy := s.validating(crdPolicyWebhook)
	policy.ObjectSelector = s.scope()
	s.installValidating(s.validatingConfiguration(s.configurationName("deny-crds"), policy))
	crds := apiextensionsclient.NewForConfigOrDie(env.RESTConfig).ApiextensionsV1().CustomResourceDefinitions()

	crd := widgetCRD(schema.GroupVersionKind{Group: "c" + rand.String(6) + ".conformance.admit.dev", Version: "v1", Kind: "Widget"})
	crd.Labels = map[string]string{s.key: "true", policyKey: disallowed}
	_, err := crds.Create(ctx, crd, metav1.CreateOptions{})
	mustFailWith(t, "creating a labelled CustomResourceDefinition", err, `admission webhook "`+crdPolicyWebhook+`" denied the request: the crd contains unwanted label`)
	_, err = crds.Get(ctx, crd.Name, metav1.GetOptions{})
	mustBeGone(t, "the denied CustomResourceDefinition", err)

	// The same definition without the selected label never reaches the webhook.
	crd.Labels = map[string]string{policyKey: disallowed}
	_, err = crds.Create(ctx, crd, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	mustSucceed(t, "creating (dry run) a CustomResourceDefinition the objectSelector leaves out", err)
}

// widgetCRD defines the namespaced kind "widgets" of kind's group, served and stored in kind's
// version, whose objects may hold any fields.
func widgetCRD(kind schema.GroupVersionKind) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + kind.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: kind.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: kind.Kind, ListKind: kind.Kind + "List"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: kind.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
}

// widgetClient returns a client for the widgets of kind's group and version.
func widgetClient(t *testing.T, kind schema.GroupVersionKind) dynamic.NamespaceableResourceInterface {
	t.Helper()
	client, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	return client.Resource(kind.GroupVersion().WithResource("widgets"))
}

// newWidget returns a custom resource of kind whose .data is data.
func newWidget(kind schema.GroupVersionKind, name string, data map[string]string) *unstructured.Unstructured {
	fields := map[string]any{}
	for k, v := range data {
		fields[k] = v
	}
	widget := &unstructured.Unstructured{Object: map[string]any{"data": fields}}
	widget.SetGroupVersionKind(kind)
	widget.SetName(name)
	return widget
}
