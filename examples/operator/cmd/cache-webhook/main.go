// Command cache-webhook serves the Cache operator's webhooks: defaulting, validation and CRD
// conversion, over TLS with the certificate in --cert-dir (reloaded when it changes).
//
//	CACHE_DEFAULT_IMAGE=registry.example.com/cache:7.2 cache-webhook --cert-dir /etc/cache-webhook/tls
//
// --print-config prints the webhook configurations and the CRD's spec.conversion for a Service
// (--service, --namespace) or a URL (--url), with the CA of --ca-file as their caBundle.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/examples/operator"
	"github.com/admitkit/admit/webhook"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cache-webhook:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("cache-webhook", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", ":9443", "TLS listen address")
	healthAddr := flags.String("health-addr", ":8080", "address of /healthz, /readyz and /metrics")
	certDir := flags.String("cert-dir", "/etc/cache-webhook/tls", "directory with tls.crt and tls.key")
	printConfig := flags.Bool("print-config", false, "print the webhook configurations and the CRD's spec.conversion, then exit")
	service := flags.String("service", "", "with --print-config: the Service in front of the server")
	namespace := flags.String("namespace", "", "with --print-config: the Service's namespace")
	url := flags.String("url", "", "with --print-config: the server's base URL, outside a cluster")
	caFile := flags.String("ca-file", "", "with --print-config: the CA that signed the serving certificate")
	if err := flags.Parse(args); err != nil {
		return err
	}
	defaults, err := operator.DefaultsFromEnv(lookup)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	registry, err := operator.NewRegistry(defaults, webhook.HTTPOptions{Logger: logger})
	if err != nil {
		return err
	}
	if *printConfig {
		return printConfigurations(stdout, registry, *service, *namespace, *url, *caFile)
	}
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: *addr, HealthAddr: *healthAddr, Handler: registry, Logger: logger,
		CertFile: filepath.Join(*certDir, "tls.crt"), KeyFile: filepath.Join(*certDir, "tls.key"),
	})
	if err != nil {
		return err
	}
	return server.Run(ctx)
}

// printConfigurations writes the webhook configurations and the CRD's spec.conversion.
func printConfigurations(w io.Writer, registry *webhook.Registry, service, namespace, url, caFile string) error {
	cc := webhook.ClientConfig{Service: service, Namespace: namespace, URL: url}
	if caFile != "" {
		ca, err := os.ReadFile(caFile)
		if err != nil {
			return err
		}
		cc.CABundle = ca
	}
	if (service == "") == (url == "") {
		return errors.New("--print-config needs --service and --namespace, or --url")
	}
	configs, err := registry.ConfigurationsYAML(webhook.ConfigOptions{Name: "cache-webhook", ClientConfig: cc})
	if err != nil {
		return err
	}
	conversion, err := registry.CRDConversion(operator.CRDName, cc)
	if err != nil {
		return err
	}
	patch, err := yaml.Marshal(map[string]any{"spec": map[string]any{"conversion": conversion}})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s---\n# spec.conversion of CustomResourceDefinition %s (kubectl patch crd %s --type merge --patch-file ...)\n%s",
		configs, operator.CRDName, operator.CRDName, patch)
	return err
}
