package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/webhook"
)

// demoWebhooks are the built-in webhooks served in-process on loopback for `admit review`
// without --webhooks, with the configurations that point at them.
type demoWebhooks struct {
	mutating   []*admissionregistrationv1.MutatingWebhookConfiguration
	validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	stop       func()
}

// startDemoWebhooks serves the demo registry over TLS on 127.0.0.1 with a throwaway CA.
func startDemoWebhooks(ctx context.Context) (*demoWebhooks, error) {
	registry, err := demoRegistry()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "admit-review-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	ca, err := certs.NewCA("admit review (throwaway)", time.Hour)
	if err != nil {
		cleanup()
		return nil, err
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		cleanup()
		return nil, err
	}
	if err := certs.WriteFiles(dir, ca, kp); err != nil {
		cleanup()
		return nil, err
	}
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: "127.0.0.1:0", CertFile: filepath.Join(dir, certs.CertFileName), KeyFile: filepath.Join(dir, certs.KeyFileName),
		Handler: registry, GracePeriod: 5 * time.Second,
	})
	if err != nil {
		cleanup()
		return nil, err
	}
	if err := server.Listen(); err != nil {
		cleanup()
		return nil, err
	}
	m, v, err := registry.Configurations(webhook.ConfigOptions{
		Name:         "admit-builtin",
		ClientConfig: webhook.ClientConfig{URL: "https://" + server.Addr().String(), CABundle: ca.CertPEM()},
	})
	if err != nil {
		cleanup()
		return nil, err
	}
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- server.Run(serveCtx) }()
	demo := &demoWebhooks{stop: func() { cancel(); <-done; cleanup() }}
	if m != nil {
		config.SetDefaultsMutating(m)
		demo.mutating = append(demo.mutating, m)
	}
	if v != nil {
		config.SetDefaultsValidating(v)
		demo.validating = append(demo.validating, v)
	}
	if demo.mutating == nil && demo.validating == nil {
		demo.stop()
		return nil, fmt.Errorf("the demo registry has no webhooks")
	}
	return demo, nil
}
