package quickstart

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook"
)

// InjectedLabel marks Pods the sidecar webhook has seen.
const InjectedLabel = "quickstart.admit.dev/injected"

// Sidecar adds InjectedLabel and a sidecar container to every Pod that lacks them.
type Sidecar struct {
	// Name and Image of the sidecar container.
	Name, Image string
}

// Default implements webhook.Defaulter.
func (s Sidecar) Default(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[InjectedLabel] = "true"
	for _, c := range pod.Spec.Containers {
		if c.Name == s.Name {
			return nil, nil
		}
	}
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: s.Name, Image: s.Image})
	return []string{fmt.Sprintf("added sidecar container %q (%s)", s.Name, s.Image)}, nil
}

// ConfigMapKeys requires ConfigMap data keys to be lower-case DNS subdomains, so they are portable
// file names when the ConfigMap is mounted.
type ConfigMapKeys struct{}

func (ConfigMapKeys) validate(cm *corev1.ConfigMap) error {
	var errs field.ErrorList
	for key := range cm.Data {
		errs = append(errs, checkKey(field.NewPath("data").Key(key), key)...)
	}
	for key := range cm.BinaryData {
		errs = append(errs, checkKey(field.NewPath("binaryData").Key(key), key)...)
	}
	return webhook.Invalid(errs)
}

func checkKey(path *field.Path, key string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(key) {
		errs = append(errs, field.Invalid(path, key, msg))
	}
	return errs
}

// ValidateCreate implements webhook.Validator.
func (v ConfigMapKeys) ValidateCreate(_ context.Context, _ *webhook.Request, cm *corev1.ConfigMap) ([]string, error) {
	return nil, v.validate(cm)
}

// ValidateUpdate implements webhook.Validator.
func (v ConfigMapKeys) ValidateUpdate(_ context.Context, _ *webhook.Request, _, cm *corev1.ConfigMap) ([]string, error) {
	return nil, v.validate(cm)
}

// ValidateDelete implements webhook.Validator; deleting is always allowed.
func (ConfigMapKeys) ValidateDelete(context.Context, *webhook.Request, *corev1.ConfigMap) ([]string, error) {
	return nil, nil
}

// Webhook names, as they appear in configurations and in the apiserver's messages.
const (
	SidecarWebhookName       = "sidecar.quickstart.admit.dev"
	ConfigMapKeysWebhookName = "configmap-keys.quickstart.admit.dev"
)

// NewRegistry registers both webhooks: the sidecar on /mutate-core-v1-pod and the key check on
// /validate-core-v1-configmap.
func NewRegistry(opts webhook.HTTPOptions) (*webhook.Registry, error) {
	r := webhook.NewRegistry(opts)
	err := r.Register(webhook.Webhook{
		Name: SidecarWebhookName, Type: webhook.TypeMutating,
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: "pods",
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		// A mirror pod only shows what the kubelet runs from a file: a sidecar added to it
		// would never run.
		MatchConditions: []admissionregistrationv1.MatchCondition{webhook.NotMirrorPod()},
		Handler:         webhook.DefaultingHandler[*corev1.Pod](Sidecar{Name: "proxy", Image: "registry.k8s.io/pause:3.10"}),
	})
	if err != nil {
		return nil, err
	}
	err = r.Register(webhook.Webhook{
		Name: ConfigMapKeysWebhookName, Type: webhook.TypeValidating,
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps",
		Handler: webhook.ValidatingHandler[*corev1.ConfigMap](ConfigMapKeys{}),
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}
