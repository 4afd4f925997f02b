//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/webhook"
)

// This file ports the webhooks of Kubernetes' admission-webhook conformance suite (served there by
// the agnhost image) to admit's framework. The label and data values that trigger them, and the
// messages they answer with, are the ones the upstream scenarios assert, so a scenario here can be
// read side by side with its upstream counterpart.

// Values of the policyKey label or data entry, which tell the policy webhooks what to do.
const (
	policyKey    = "webhook-e2e-test"
	disallowed   = "webhook-disallow"     // deny the object (also matched in container names)
	hangForever  = "wait-forever"         // the pod webhook never answers
	nondeletable = "webhook-nondeletable" // the custom resource webhook refuses its deletion
	permitted    = "webhook-allow"        // any value but the above is permitted
)

// Keys of the staged mutations: stage n adds "mutation-stage-<n>" only once the previous stage's
// key ("mutation-start" for stage 1) is there, so the result shows the order the stages ran in.
const (
	mutationStart = "mutation-start"
	mutationStage = "mutation-stage-%d"
)

// addedLabel is the label the webhook-configuration mutator would add, were it ever called.
const addedLabel = "added-label"

// slowWebhookDelay is how long the slow webhook waits before allowing: longer than the 1 s
// timeout it is tested with, shorter than the 10 s default.
const slowWebhookDelay = 2 * time.Second

// Names of the served webhooks. A scenario puts copies of them in its own configurations.
const (
	isReadyWebhook              = "is-ready.conformance.admit.dev"
	podPolicyWebhook            = "deny-unwanted-pods.conformance.admit.dev"
	attachPolicyWebhook         = "deny-attaching-pods.conformance.admit.dev"
	initContainerWebhook        = "add-init-container.conformance.admit.dev"
	configMapPolicyWebhook      = "deny-unwanted-configmaps.conformance.admit.dev"
	configMapStage1Webhook      = "configmap-stage-1.conformance.admit.dev"
	configMapStage2Webhook      = "configmap-stage-2.conformance.admit.dev"
	slowWebhook                 = "allow-after-delay.conformance.admit.dev"
	denyConfigurationsWebhook   = "deny-webhook-configurations.conformance.admit.dev"
	labelConfigurationsWebhook  = "label-webhook-configurations.conformance.admit.dev"
	customResourcePolicyWebhook = "deny-unwanted-widgets.conformance.admit.dev"
	crdPolicyWebhook            = "deny-unwanted-crds.conformance.admit.dev"
)

// The custom resources the CRD scenarios install: a group per scenario, so that the scenarios can
// run at the same time without sharing a definition.
var (
	deniedWidgetKind    = schema.GroupVersionKind{Group: "denied.conformance.admit.dev", Version: "v1", Kind: "Widget"}
	mutatedWidgetKind   = schema.GroupVersionKind{Group: "mutated.conformance.admit.dev", Version: "v1", Kind: "Widget"}
	prunedWidgetKind    = schema.GroupVersionKind{Group: "pruned.conformance.admit.dev", Version: "v1", Kind: "Widget"}
	versionedWidgetKind = schema.GroupVersionKind{Group: "versioned.conformance.admit.dev", Version: "v1", Kind: "Widget"}
)

// widgetStageWebhook names the mutating webhook that runs stage of the widgets of kind.
func widgetStageWebhook(kind schema.GroupVersionKind, stage int) string {
	return fmt.Sprintf("stage-%d.%s", stage, kind.Group)
}

// conformanceServer serves every conformance webhook from one admit webhook server, as the
// upstream suite serves them all from one agnhost pod. Scenarios do not use the configurations
// the registry describes as they are: they take single webhooks from them as templates and scope
// them with their own selectors.
type conformanceServer struct {
	validating map[string]admissionregistrationv1.ValidatingWebhook
	mutating   map[string]admissionregistrationv1.MutatingWebhook
}

// startConformanceServer serves the conformance webhooks until t ends.
func startConformanceServer(t *testing.T) *conformanceServer {
	t.Helper()
	// Closing release ends the hanging pod webhook's wait, should the apiserver's cancellation not
	// reach it, so the server can drain when the test ends.
	release := make(chan struct{})
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	for _, w := range conformanceWebhooks(release) {
		if err := registry.Register(w); err != nil {
			t.Fatal(err)
		}
	}
	served := serveWebhooks(t, registry)
	t.Cleanup(func() { close(release) }) // runs before the server's cleanup, registered earlier
	mutating, validating, err := registry.Configurations(webhook.ConfigOptions{
		Name: "conformance-templates", ClientConfig: webhook.ClientConfig{URL: served.URL, CABundle: served.CABundle},
	})
	if err != nil {
		t.Fatal(err)
	}
	server := &conformanceServer{
		validating: map[string]admissionregistrationv1.ValidatingWebhook{},
		mutating:   map[string]admissionregistrationv1.MutatingWebhook{},
	}
	for _, w := range validating.Webhooks {
		server.validating[w.Name] = w
	}
	for _, w := range mutating.Webhooks {
		server.mutating[w.Name] = w
	}
	return server
}

// validatingWebhook returns a copy of the configuration the registry generated for the
// validating webhook name.
func (s *conformanceServer) validatingWebhook(t *testing.T, name string) admissionregistrationv1.ValidatingWebhook {
	t.Helper()
	w, ok := s.validating[name]
	if !ok {
		t.Fatalf("no validating webhook %q is served", name)
	}
	return *w.DeepCopy()
}

// mutatingWebhook returns a copy of the configuration the registry generated for the mutating
// webhook name.
func (s *conformanceServer) mutatingWebhook(t *testing.T, name string) admissionregistrationv1.MutatingWebhook {
	t.Helper()
	w, ok := s.mutating[name]
	if !ok {
		t.Fatalf("no mutating webhook %q is served", name)
	}
	return *w.DeepCopy()
}

// conformanceWebhooks declares the served webhooks. Their declared rules and policies are the
// defaults scenarios start from.
func conformanceWebhooks(release <-chan struct{}) []webhook.Webhook {
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	podKind := corev1.SchemeGroupVersion.WithKind("Pod")
	configMapKind := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	served := []webhook.Webhook{
		{
			// Denies every marker, which proves its configuration is in effect; Ignore so that a
			// webhook the apiserver cannot call yet reads as "not ready" rather than failing.
			Name: isReadyWebhook, Type: webhook.TypeValidating, Kind: configMapKind, Resource: "configmaps", Path: "/always-deny",
			Operations: create, FailurePolicy: admissionregistrationv1.Ignore,
			Handler: webhook.HandlerFunc(func(context.Context, *webhook.Request) webhook.Response {
				return webhook.Denied("this webhook denies all requests")
			}),
		},
		{
			Name: podPolicyWebhook, Type: webhook.TypeValidating, Kind: podKind, Resource: "pods", Path: "/pods",
			Operations: create, Handler: webhook.ValidatingHandler[*corev1.Pod](podPolicy{release: release}),
		},
		{
			Name: attachPolicyWebhook, Type: webhook.TypeValidating, Kind: podKind, Resource: "pods/attach", Path: "/pods/attach",
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Connect},
			Handler:    webhook.HandlerFunc(denyInteractiveAttach),
		},
		{
			Name: initContainerWebhook, Type: webhook.TypeMutating, Kind: podKind, Resource: "pods", Path: "/mutating-pods",
			Operations: create, Handler: webhook.DefaultingHandler[*corev1.Pod](webhook.DefaulterFunc[*corev1.Pod](addInitContainer)),
		},
		{
			Name: configMapPolicyWebhook, Type: webhook.TypeValidating, Kind: configMapKind, Resource: "configmaps", Path: "/configmaps",
			Handler: webhook.ValidatingHandler[*corev1.ConfigMap](configMapPolicy{}),
		},
		{
			Name: configMapStage1Webhook, Type: webhook.TypeMutating, Kind: configMapKind, Resource: "configmaps", Path: "/mutating-configmaps/stage-1",
			Operations: create, Handler: webhook.DefaultingHandler[*corev1.ConfigMap](configMapStage(1)),
		},
		{
			Name: configMapStage2Webhook, Type: webhook.TypeMutating, Kind: configMapKind, Resource: "configmaps", Path: "/mutating-configmaps/stage-2",
			Operations: create, Handler: webhook.DefaultingHandler[*corev1.ConfigMap](configMapStage(2)),
		},
		{
			Name: slowWebhook, Type: webhook.TypeValidating, Kind: configMapKind, Resource: "configmaps",
			Path:       fmt.Sprintf("/always-allow-delay-%s", slowWebhookDelay),
			Operations: create, Handler: webhook.HandlerFunc(allowAfterDelay),
		},
		{
			// Its rules are widened to both configuration kinds by the scenario; it would deny them all.
			Name: denyConfigurationsWebhook, Type: webhook.TypeValidating,
			Kind: admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"), Resource: "validatingwebhookconfigurations",
			Path: "/deny-webhook-configurations",
			Handler: webhook.HandlerFunc(func(context.Context, *webhook.Request) webhook.Response {
				return webhook.Denied("webhook configurations must not be changed")
			}),
		},
		{
			Name: labelConfigurationsWebhook, Type: webhook.TypeMutating,
			Kind: admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"), Resource: "validatingwebhookconfigurations",
			Path: "/label-webhook-configurations", Handler: webhook.DefaultingHandler[*metav1.PartialObjectMetadata](webhook.DefaulterFunc[*metav1.PartialObjectMetadata](addLabel)),
		},
		{
			Name: customResourcePolicyWebhook, Type: webhook.TypeValidating, Kind: deniedWidgetKind, Resource: "widgets", Path: "/custom-resource",
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
			Handler:    webhook.ValidatingHandler[*unstructured.Unstructured](customResourcePolicy{}),
		},
		{
			Name: crdPolicyWebhook, Type: webhook.TypeValidating,
			Kind: apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), Resource: "customresourcedefinitions", Path: "/crd",
			Operations: create, Scope: admissionregistrationv1.ClusterScope,
			Handler: webhook.ValidatingHandler[*metav1.PartialObjectMetadata](crdPolicy{}),
		},
	}
	// The framework checks that a request is for the kind its webhook was registered for, so
	// each widget group has stages of its own.
	for _, kind := range []schema.GroupVersionKind{mutatedWidgetKind, prunedWidgetKind, versionedWidgetKind} {
		for stage := 1; stage <= 2; stage++ {
			served = append(served, webhook.Webhook{
				Name: widgetStageWebhook(kind, stage), Type: webhook.TypeMutating, Kind: kind, Resource: "widgets",
				Path:       fmt.Sprintf("/mutating-custom-resource/%s/stage-%d", kind.Group, stage),
				Operations: create, Handler: webhook.DefaultingHandler[*unstructured.Unstructured](customResourceStage(stage)),
			})
		}
	}
	return served
}

// podPolicy denies pods labelled or with a container named "webhook-disallow", naming every
// reason, and never answers for pods labelled "wait-forever".
type podPolicy struct{ release <-chan struct{} }

func (p podPolicy) ValidateCreate(ctx context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
	var reasons []string
	switch pod.Labels[policyKey] {
	case disallowed:
		reasons = append(reasons, "the pod contains unwanted label")
	case hangForever:
		// Hold the call until the apiserver gives up on it: its timeout is what is under test.
		select {
		case <-ctx.Done():
		case <-p.release:
		}
		return nil, webhook.Fail(errors.New("the pod response should not be sent"))
	}
	for _, c := range pod.Spec.Containers {
		if strings.Contains(c.Name, disallowed) {
			reasons = append(reasons, "the pod contains unwanted container name")
			break
		}
	}
	if len(reasons) > 0 {
		return nil, errors.New(strings.Join(reasons, "; "))
	}
	return nil, nil
}

func (podPolicy) ValidateUpdate(context.Context, *webhook.Request, *corev1.Pod, *corev1.Pod) ([]string, error) {
	return nil, nil
}

func (podPolicy) ValidateDelete(context.Context, *webhook.Request, *corev1.Pod) ([]string, error) {
	return nil, nil
}

// denyInteractiveAttach refuses interactive attaches (stdin) to a pod's "container1", the way
// the upstream attach webhook does, and lets other attaches through.
func denyInteractiveAttach(_ context.Context, req *webhook.Request) webhook.Response {
	var options corev1.PodAttachOptions
	if err := json.Unmarshal(req.Object.Raw, &options); err != nil {
		return webhook.Errored(fmt.Errorf("decoding the attach options: %w", err))
	}
	if req.SubResource != "attach" || !options.Stdin || options.Container != "container1" {
		return webhook.Allowed()
	}
	return webhook.Denied(fmt.Sprintf("attaching to pod '%s' is not allowed", req.Name))
}

// addInitContainer adds an init container with only a name and an image, leaving its other
// fields for the apiserver to default after the mutation.
func addInitContainer(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
	for _, c := range pod.Spec.InitContainers {
		if c.Name == "webhook-added-init-container" {
			return nil, nil
		}
	}
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{Name: "webhook-added-init-container", Image: "webhook-added-image:1.0"})
	return nil, nil
}

// configMapPolicy denies ConfigMaps whose data maps policyKey to "webhook-disallow".
type configMapPolicy struct{}

func (configMapPolicy) ValidateCreate(_ context.Context, _ *webhook.Request, cm *corev1.ConfigMap) ([]string, error) {
	return nil, checkConfigMapData(cm)
}

func (configMapPolicy) ValidateUpdate(_ context.Context, _ *webhook.Request, _, cm *corev1.ConfigMap) ([]string, error) {
	return nil, checkConfigMapData(cm)
}

func (configMapPolicy) ValidateDelete(context.Context, *webhook.Request, *corev1.ConfigMap) ([]string, error) {
	return nil, nil
}

func checkConfigMapData(cm *corev1.ConfigMap) error {
	if cm.Data[policyKey] == disallowed {
		return errors.New("the configmap contains unwanted key and value")
	}
	return nil
}

// nextStage adds stage's key to data when the previous stage's key is there and reports whether
// it changed data.
func nextStage(data map[string]string, stage int) bool {
	previous := mutationStart
	if stage > 1 {
		previous = fmt.Sprintf(mutationStage, stage-1)
	}
	key := fmt.Sprintf(mutationStage, stage)
	if _, ok := data[previous]; !ok || data[key] == "yes" {
		return false
	}
	data[key] = "yes"
	return true
}

// configMapStage is the mutation stage of ConfigMaps.
func configMapStage(stage int) webhook.Defaulter[*corev1.ConfigMap] {
	return webhook.DefaulterFunc[*corev1.ConfigMap](func(_ context.Context, _ *webhook.Request, cm *corev1.ConfigMap) ([]string, error) {
		if cm.Data != nil {
			nextStage(cm.Data, stage)
		}
		return nil, nil
	})
}

// customResourceStage is the mutation stage of custom resources, whose string map is .data.
func customResourceStage(stage int) webhook.Defaulter[*unstructured.Unstructured] {
	return webhook.DefaulterFunc[*unstructured.Unstructured](func(_ context.Context, _ *webhook.Request, cr *unstructured.Unstructured) ([]string, error) {
		data, found, err := unstructured.NestedStringMap(cr.Object, "data")
		if err != nil || !found {
			return nil, err
		}
		if nextStage(data, stage) {
			return nil, unstructured.SetNestedStringMap(cr.Object, data, "data")
		}
		return nil, nil
	})
}

// allowAfterDelay allows after slowWebhookDelay, unless the apiserver gives up first.
func allowAfterDelay(ctx context.Context, _ *webhook.Request) webhook.Response {
	select {
	case <-time.After(slowWebhookDelay):
		return webhook.Allowed()
	case <-ctx.Done():
		return webhook.Errored(ctx.Err())
	}
}

// addLabel labels the object it is given with addedLabel.
func addLabel(_ context.Context, _ *webhook.Request, obj *metav1.PartialObjectMetadata) ([]string, error) {
	if obj.Labels == nil {
		obj.Labels = map[string]string{}
	}
	obj.Labels[addedLabel] = "yes"
	return nil, nil
}

// customResourcePolicy denies custom resources whose .data maps policyKey to "webhook-disallow",
// and the deletion of those whose stored .data maps it to "webhook-nondeletable".
type customResourcePolicy struct{}

func (customResourcePolicy) ValidateCreate(_ context.Context, _ *webhook.Request, cr *unstructured.Unstructured) ([]string, error) {
	return nil, checkCustomResourceData(cr)
}

func (customResourcePolicy) ValidateUpdate(_ context.Context, _ *webhook.Request, _, cr *unstructured.Unstructured) ([]string, error) {
	return nil, checkCustomResourceData(cr)
}

func (customResourcePolicy) ValidateDelete(_ context.Context, _ *webhook.Request, stored *unstructured.Unstructured) ([]string, error) {
	if value, _, _ := unstructured.NestedString(stored.Object, "data", policyKey); value == nondeletable {
		return nil, errors.New("the custom resource cannot be deleted because it contains unwanted key and value")
	}
	return nil, nil
}

func checkCustomResourceData(cr *unstructured.Unstructured) error {
	if value, _, _ := unstructured.NestedString(cr.Object, "data", policyKey); value == disallowed {
		return errors.New("the custom resource contains unwanted data")
	}
	return nil
}

// crdPolicy denies CustomResourceDefinitions labelled with policyKey "webhook-disallow". Only
// their metadata is decoded: that is all it looks at.
type crdPolicy struct{}

func (crdPolicy) ValidateCreate(_ context.Context, _ *webhook.Request, crd *metav1.PartialObjectMetadata) ([]string, error) {
	if crd.Labels[policyKey] == disallowed {
		return nil, errors.New("the crd contains unwanted label")
	}
	return nil, nil
}

func (crdPolicy) ValidateUpdate(context.Context, *webhook.Request, *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadata) ([]string, error) {
	return nil, nil
}

func (crdPolicy) ValidateDelete(context.Context, *webhook.Request, *metav1.PartialObjectMetadata) ([]string, error) {
	return nil, nil
}
