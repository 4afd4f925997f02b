package builtin

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/webhook"
)

// Demo is the built-in webhooks with DemoConfig, served in-process on loopback over TLS with a
// throwaway CA, and the configurations that call them: what `admit review` and `admit test`
// review with when no webhook configuration is given.
type Demo struct {
	Mutating   []*admissionregistrationv1.MutatingWebhookConfiguration
	Validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	stop       func()
}

// Close stops the server and removes its certificates.
func (d *Demo) Close() { d.stop() }

// ServeDemo starts the demo webhooks; Close stops them.
func ServeDemo(ctx context.Context) (*Demo, error) {
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := Register(registry, DemoConfig()); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "admit-review-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	server, caBundle, err := demoServer(dir, registry)
	if err != nil {
		cleanup()
		return nil, err
	}
	m, v, err := registry.Configurations(webhook.ConfigOptions{
		Name:         "admit-builtin",
		ClientConfig: webhook.ClientConfig{URL: "https://" + server.Addr().String(), CABundle: caBundle},
	})
	if err != nil {
		cleanup()
		return nil, err
	}
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- server.Run(serveCtx) }()
	demo := &Demo{stop: func() { cancel(); <-done; cleanup() }}
	if m != nil {
		config.SetDefaultsMutating(m)
		demo.Mutating = append(demo.Mutating, m)
	}
	if v != nil {
		config.SetDefaultsValidating(v)
		demo.Validating = append(demo.Validating, v)
	}
	if demo.Mutating == nil && demo.Validating == nil {
		demo.Close()
		return nil, errors.New("the demo registry has no webhooks")
	}
	return demo, nil
}

// demoServer is a server of registry on 127.0.0.1, listening, with a throwaway CA's serving
// certificate written in dir; caBundle is the CA.
func demoServer(dir string, registry *webhook.Registry) (server *webhook.Server, caBundle []byte, err error) {
	ca, err := certs.NewCA("admit review (throwaway)", time.Hour)
	if err != nil {
		return nil, nil, err
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		return nil, nil, err
	}
	if err := certs.WriteFiles(dir, ca, kp); err != nil {
		return nil, nil, err
	}
	server, err = webhook.NewServer(webhook.ServerOptions{
		Addr: "127.0.0.1:0", CertFile: filepath.Join(dir, certs.CertFileName), KeyFile: filepath.Join(dir, certs.KeyFileName),
		Handler: registry, GracePeriod: 5 * time.Second,
	})
	if err != nil {
		return nil, nil, err
	}
	if err := server.Listen(); err != nil {
		return nil, nil, err
	}
	return server, ca.CertPEM(), nil
}
