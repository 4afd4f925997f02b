package rotator_test

import (
	"context"
	"log"
	"path/filepath"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/certs/rotator"
	"github.com/admitkit/admit/webhook"
)

// A webhook server in a cluster that manages its own certificate: the rotator keeps it in a
// Secret and publishes the CA in the caBundle of the configuration "widgets"; the server starts
// once the files are there and reloads them on every renewal.
func Example() {
	ctx := context.Background()
	config, err := rest.InClusterConfig()
	if err != nil {
		log.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(config)
	dir := "/var/run/widgets/tls"
	r, err := rotator.New(rotator.Options{
		Client: client, Namespace: "widgets-system", SecretName: "widgets-webhook-tls", CertDir: dir,
		DNSNames:                        []string{"widgets-webhook.widgets-system.svc"},
		ValidatingWebhookConfigurations: []string{"widgets"},
	})
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		if err := r.Run(ctx); err != nil {
			log.Print(err)
		}
	}()
	<-r.Ready()

	server, err := webhook.NewServer(webhook.ServerOptions{
		CertFile: filepath.Join(dir, certs.CertFileName), KeyFile: filepath.Join(dir, certs.KeyFileName),
		Handler: webhook.NewRegistry(webhook.HTTPOptions{}),
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := server.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
