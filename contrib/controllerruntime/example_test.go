package controllerruntime_test

import (
	"context"
	"log"

	corev1 "k8s.io/api/core/v1"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/admitkit/admit/contrib/controllerruntime"
	"github.com/admitkit/admit/webhook"
)

// An operator's manager serves admit's webhooks: register them in a Registry, then mount it on
// the manager's webhook server (mgr.GetWebhookServer() in a real program).
func ExampleMount() {
	server := ctrlwebhook.NewServer(ctrlwebhook.Options{Port: 9443, CertDir: "/tmp/k8s-webhook-server/serving-certs"})

	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	err := registry.Register(webhook.Webhook{
		Name: "no-privileged.example.com", Type: webhook.TypeValidating,
		Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Resource: "pods",
		Handler: webhook.HandlerFunc(func(_ context.Context, _ *webhook.Request) webhook.Response { return webhook.Allowed() }),
	})
	if err == nil {
		err = controllerruntime.Mount(server, registry)
	}
	if err != nil {
		log.Fatal(err)
	}
	// mgr.Start(ctx) then serves /validate-core-v1-pod with admit's handler.
}
