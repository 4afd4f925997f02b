package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/contrib/controllerruntime"
	"github.com/admitkit/admit/webhook"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "labeller:", err)
		os.Exit(1)
	}
}

func run() error {
	certDir := flag.String("cert-dir", "", "directory with tls.crt, tls.key (and ca.crt for --print-config)")
	port := flag.Int("port", 9443, "port to serve on, on 127.0.0.1")
	printConfig := flag.Bool("print-config", false, "print the MutatingWebhookConfiguration and exit")
	url := flag.String("url", "", "with --print-config: the server's base URL")
	name := flag.String("config-name", "labeller", "with --print-config: the configuration's name")
	flag.Parse()

	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	err := registry.Register(webhook.Webhook{
		Name: "labels.labeller.example.com", Type: webhook.TypeMutating,
		Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Resource: "pods",
		Handler: webhook.DefaultingHandler[*corev1.Pod](webhook.DefaulterFunc[*corev1.Pod](label)),
	})
	if err != nil {
		return err
	}
	if *printConfig {
		caBundle, err := os.ReadFile(filepath.Join(*certDir, certs.CAFileName))
		if err != nil {
			return err
		}
		out, err := registry.ConfigurationsYAML(webhook.ConfigOptions{Name: *name, ClientConfig: webhook.ClientConfig{URL: *url, CABundle: caBundle}})
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(out)
		return err
	}

	server := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: *port, CertDir: *certDir})
	if err := controllerruntime.Mount(server, registry); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return server.Start(ctx)
}

// label marks the Pod as seen; a Pod without labels gets its first.
func label(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["seen-by"] = "admit"
	return nil, nil
}
