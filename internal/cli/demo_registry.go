package cli

import (
	"github.com/admitkit/admit/builtin"
	"github.com/admitkit/admit/webhook"
)

// demoRegistry returns the webhooks `admit review` serves without --webhooks: the built-in ones
// with their demo settings (docker.io and quay.io mirrored, a team label required on ConfigMaps,
// namespace protection).
func demoRegistry() (*webhook.Registry, error) {
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := builtin.Register(r, builtin.DemoConfig()); err != nil {
		return nil, err
	}
	return r, nil
}
