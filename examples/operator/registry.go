package operator

import (
	"github.com/admitkit/admit/webhook"
)

// Webhook names, as they appear in configurations and in kube-apiserver's messages.
const (
	DefaultingWebhookName = "defaults.caches.caching.example.com"
	ValidatingWebhookName = "limits.caches.caching.example.com"
)

// NewRegistry registers the defaulting and validating webhooks for Cache v2 and the conversion
// webhook for its CRD.
func NewRegistry(defaults Defaults, opts webhook.HTTPOptions) (*webhook.Registry, error) {
	converter, err := NewConverter()
	if err != nil {
		return nil, err
	}
	reg := webhook.NewRegistry(opts)
	for _, w := range []webhook.Webhook{
		{Name: DefaultingWebhookName, Type: webhook.TypeMutating, Kind: CacheV2, Resource: "caches", Handler: webhook.DefaultingHandler[*Cache](defaults)},
		{Name: ValidatingWebhookName, Type: webhook.TypeValidating, Kind: CacheV2, Resource: "caches", Handler: webhook.ValidatingHandler[*Cache](Limits{})},
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
