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

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/certs/rotator"
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

// options are the command's flags.
type options struct {
	addr, healthAddr, certDir string
	printConfig               bool
	service, namespace, url   string
	caFile, configName        string
	certSecret, kubeconfig    string
}

func run(ctx context.Context, args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) error {
	var o options
	flags := flag.NewFlagSet("cache-webhook", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&o.addr, "addr", ":9443", "TLS listen address")
	flags.StringVar(&o.healthAddr, "health-addr", ":8080", "address of /healthz, /readyz and /metrics")
	flags.StringVar(&o.certDir, "cert-dir", "/etc/cache-webhook/tls", "directory with tls.crt and tls.key")
	flags.BoolVar(&o.printConfig, "print-config", false, "print the webhook configurations and the CRD's spec.conversion, then exit")
	flags.StringVar(&o.service, "service", "", "the Service in front of the server (--print-config, --cert-secret)")
	flags.StringVar(&o.namespace, "namespace", "", "the Service's namespace (--print-config, --cert-secret)")
	flags.StringVar(&o.url, "url", "", "with --print-config: the server's base URL, outside a cluster")
	flags.StringVar(&o.caFile, "ca-file", "", "with --print-config: the CA that signed the serving certificate")
	flags.StringVar(&o.configName, "config-name", "cache-webhook", "the name of the webhook configurations")
	flags.StringVar(&o.certSecret, "cert-secret", "", "keep the serving certificate in this Secret of --namespace, renewed and published in the caBundles")
	flags.StringVar(&o.kubeconfig, "kubeconfig", "", "with --cert-secret: the cluster to talk to; default the in-cluster configuration")
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
	if o.printConfig {
		return printConfigurations(stdout, registry, o)
	}
	if o.certSecret != "" {
		// The server starts once the rotator has written the certificate files.
		if err := startRotator(ctx, o, logger); err != nil {
			return err
		}
	}
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: o.addr, HealthAddr: o.healthAddr, Handler: registry, Logger: logger,
		CertFile: filepath.Join(o.certDir, certs.CertFileName), KeyFile: filepath.Join(o.certDir, certs.KeyFileName),
	})
	if err != nil {
		return err
	}
	return server.Run(ctx)
}

// startRotator runs a certs/rotator until ctx ends and returns once the certificate files are
// in --cert-dir.
func startRotator(ctx context.Context, o options, logger *slog.Logger) error {
	if o.service == "" || o.namespace == "" {
		return errors.New("--cert-secret needs --service and --namespace: the certificate is for <service>.<namespace>.svc, the Secret in that namespace")
	}
	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("--cert-secret: reaching the cluster: %w", err)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("--cert-secret: %w", err)
	}
	extensions, err := apiextensionsclient.NewForConfig(config)
	if err != nil {
		return fmt.Errorf("--cert-secret: %w", err)
	}
	r, err := rotator.New(rotator.Options{
		Client: client, APIExtensions: extensions,
		Namespace: o.namespace, SecretName: o.certSecret, CertDir: o.certDir,
		DNSNames:                        []string{o.service + "." + o.namespace + ".svc"},
		MutatingWebhookConfigurations:   []string{o.configName},
		ValidatingWebhookConfigurations: []string{o.configName},
		CustomResourceDefinitions:       []string{operator.CRDName},
		Logger:                          logger,
	})
	if err != nil {
		return fmt.Errorf("--cert-secret: %w", err)
	}
	go func() {
		if err := r.Run(ctx); err != nil {
			logger.Error("certificate rotator stopped", "err", err)
		}
	}()
	select {
	case <-r.Ready():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// printConfigurations writes the webhook configurations and the CRD's spec.conversion.
func printConfigurations(w io.Writer, registry *webhook.Registry, o options) error {
	cc := webhook.ClientConfig{Service: o.service, Namespace: o.namespace, URL: o.url}
	if o.caFile != "" {
		ca, err := os.ReadFile(o.caFile)
		if err != nil {
			return err
		}
		cc.CABundle = ca
	}
	if (o.service == "") == (o.url == "") {
		return errors.New("--print-config needs --service and --namespace, or --url")
	}
	configs, err := registry.ConfigurationsYAML(webhook.ConfigOptions{Name: o.configName, ClientConfig: cc})
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
