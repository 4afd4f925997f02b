package operator

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cachev2 "github.com/admitkit/admit/examples/operator/api/v2"
	"github.com/admitkit/admit/webhook"
)

// Webhook names, as they appear in configurations and in kube-apiserver's messages.
const (
	DefaultingWebhookName = "defaults.caches.caching.example.com"
	ValidatingWebhookName = "limits.caches.caching.example.com"
	ClientsWebhookName    = "clients.caches.caching.example.com"
)

// NewRegistry registers the defaulting and validating webhooks for Cache v2, the Pod webhook
// that gives cache clients their address, and the conversion webhook of the CRD.
func NewRegistry(defaults Defaults, opts webhook.HTTPOptions) (*webhook.Registry, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	converter, err := NewConverter()
	if err != nil {
		return nil, err
	}
	reg := webhook.NewRegistry(opts)
	for _, w := range []webhook.Webhook{
		// The kind, caching.example.com/v2 Cache, comes from the scheme.
		{Name: DefaultingWebhookName, Type: webhook.TypeMutating, Scheme: scheme, Resource: "caches",
			Handler: webhook.DefaultingHandler[*cachev2.Cache](defaults)},
		{Name: ValidatingWebhookName, Type: webhook.TypeValidating, Scheme: scheme, Resource: "caches",
			Handler: webhook.ValidatingHandler[*cachev2.Cache](Limits{})},
		{
			// Only the Pods that ask for a cache, never mirror pods: every other Pod of the cluster
			// is created without calling this server, so failing closed stops only the Pods that
			// would start without their cache's address. Kind and resource come from *corev1.Pod.
			Name: ClientsWebhookName, Type: webhook.TypeMutating,
			Operations:      []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			ObjectSelector:  &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: ClientLabel, Operator: metav1.LabelSelectorOpExists}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{webhook.NotMirrorPod()},
			Handler:         webhook.DefaultingHandler[*corev1.Pod](Clients{}),
		},
	} {
		if err := reg.Register(w); err != nil {
			return nil, err
		}
	}
	if err := reg.RegisterConversion(webhook.Conversion{CRD: CRDName, Converter: converter}); err != nil {
		return nil, err
	}
	return reg, nil
}
