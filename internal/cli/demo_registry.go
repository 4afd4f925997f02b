package cli

import (
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/webhook"
)

// demoRegistry returns the webhooks `admit review` serves without --webhooks.
func demoRegistry() (*webhook.Registry, error) {
	return quickstart.NewRegistry(webhook.HTTPOptions{})
}
