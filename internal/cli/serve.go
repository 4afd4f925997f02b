package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/admitkit/admit/builtin"
	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/certs/rotator"
	"github.com/admitkit/admit/kubelog"
	"github.com/admitkit/admit/webhook"
)

// builtinWebhooks are the names --webhooks accepts.
var builtinWebhooks = []string{"image-mirrors", "required-labels", "namespace-protection"}

type serveOptions struct {
	addr, healthAddr string
	certDir          string
	clientCA         string
	tlsMin           string
	http2            bool
	grace, drain     time.Duration
	readTimeout      time.Duration
	maxRequestBytes  int64
	webhooks         []string
	logLevel         string
	logFormat        string

	printConfig bool
	configName  string
	service     string
	namespace   string
	port        int32
	url         string

	// certSecret runs the in-cluster certificate rotator (package certs/rotator).
	certSecret string
	kubeconfig string
}

func newServeCommand(streams Streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve admit's built-in admission webhooks",
		Long: `Serve the built-in webhooks over TLS:

  image-mirrors         rewrite container images of Pods and workload templates to mirror registries
                        (ADMIT_IMAGE_MIRRORS="docker.io=mirror.local/hub,quay.io=mirror.local/quay")
  required-labels       require labels/annotations per kind (ADMIT_REQUIRED_LABELS, ADMIT_REQUIRED_ANNOTATIONS)
  namespace-protection  refuse to delete namespaces labelled admit.dev/protected=true (ADMIT_PROTECTION_LABEL)

Settings come from environment variables, so an operator changes them by editing the Deployment.
The certificate and key (tls.crt, tls.key in --cert-dir) are reloaded when they change. With
--cert-secret, the server manages them itself in the cluster, without cert-manager: a self-signed
CA and the serving certificate for <--service>.<--namespace>.svc are kept in that Secret, renewed
before they expire, written to --cert-dir, and the CA is published in the caBundle of the
configurations named --config-name (one replica, elected through a Lease, writes). /healthz,
/readyz and /metrics are served on --health-addr. SIGTERM drains: readiness fails first, then the
listener closes after --drain-delay and requests in flight get --grace-period to finish.

--print-config prints the webhook configurations for what is enabled instead of serving.

Exit codes: 0 after a clean drain, 1 when the server failed or a drain had to cut requests off,
2 for bad flags or settings.`,
		Example: `  ADMIT_IMAGE_MIRRORS=docker.io=mirror.local/hub admit serve --cert-dir /etc/admit/tls

  # configurations for a Service "admit" in "admit-system", caBundle from the cert dir
  admit serve --print-config --service admit --namespace admit-system --cert-dir ./tls | kubectl apply -f -

  # in a cluster, managing its own certificate and the configurations' caBundle
  admit serve --cert-secret admit-tls --service admit --namespace admit-system --cert-dir /tmp/tls

  # for a server running outside the cluster
  admit serve --print-config --url https://192.168.1.10:9443 --cert-dir ./tls`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), streams) },
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", ":9443", "TLS listen address for the webhooks")
	f.StringVar(&o.healthAddr, "health-addr", ":8080", `plain-HTTP address for /healthz, /readyz and /metrics ("" serves them on --addr)`)
	onceStringVar(f, &o.certDir, "cert-dir", "/etc/admit/tls", "directory with tls.crt and tls.key (and ca.crt for --print-config)")
	onceStringVar(f, &o.clientCA, "client-ca", "", "require client certificates signed by a CA in this PEM file")
	f.StringVar(&o.tlsMin, "tls-min-version", "1.2", "minimum TLS version: 1.2 or 1.3")
	f.BoolVar(&o.http2, "enable-http2", false, "offer HTTP/2 (off: kube-apiserver calls webhooks over HTTP/1.1)")
	f.DurationVar(&o.grace, "grace-period", 30*time.Second, "how long requests in flight may take after the listener closes")
	f.DurationVar(&o.drain, "drain-delay", 5*time.Second, "how long /readyz fails before the listener closes on shutdown")
	f.DurationVar(&o.readTimeout, "read-timeout", 30*time.Second, "longest a client may take to send a whole request, body included")
	f.Int64Var(&o.maxRequestBytes, "max-request-bytes", webhook.DefaultMaxRequestBytes, "largest AdmissionReview accepted")
	f.StringSliceVar(&o.webhooks, "webhooks", builtinWebhooks, "built-in webhooks to run: "+strings.Join(builtinWebhooks, ", "))
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&o.logFormat, "log-format", "json", "json or text")
	f.BoolVar(&o.printConfig, "print-config", false, "print the webhook configurations for the enabled webhooks and exit")
	f.StringVar(&o.configName, "config-name", "admit", "name of the printed configurations")
	f.StringVar(&o.service, "service", "", "with --print-config: the Service in front of the server")
	f.StringVar(&o.namespace, "namespace", "", "with --print-config: the Service's namespace (exempted from the webhooks)")
	f.Int32Var(&o.port, "port", 443, "with --print-config: the Service's port")
	f.StringVar(&o.certSecret, "cert-secret", "", "manage the certificate in the cluster: keep a self-signed CA and the serving certificate in this Secret of --namespace, write them to --cert-dir and publish the CA in the caBundle of the configurations named --config-name (needs --service and --namespace)")
	onceStringVar(f, &o.kubeconfig, "kubeconfig", "", "with --cert-secret: the kubeconfig to reach the cluster (default: the pod's service account)")
	f.StringVar(&o.url, "url", "", "with --print-config: the server's base URL, for a server outside the cluster")
	_ = cmd.RegisterFlagCompletionFunc("webhooks", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return builtinWebhooks, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.MarkFlagDirname("cert-dir")
	return cmd
}

// disabledWebhook is a built-in webhook that is not served, and how to serve it.
type disabledWebhook struct{ name, enable string }

// disabledWebhooks lists the built-in webhooks cfg leaves out, saying what enables each: requests
// for them get 404, so the server says so when it starts.
func disabledWebhooks(cfg builtin.Config, chosen []string) []disabledWebhook {
	var out []disabledWebhook
	add := func(name string, off bool, env string) {
		switch {
		case !slices.Contains(chosen, name):
			out = append(out, disabledWebhook{name, "add it to --webhooks"})
		case off:
			out = append(out, disabledWebhook{name, env})
		}
	}
	add("image-mirrors", cfg.ImageMirrors == nil, "set "+builtin.EnvImageMirrors)
	add("required-labels", cfg.RequiredMetadata == nil, "set "+builtin.EnvRequiredLabels+" or "+builtin.EnvRequiredAnnotations)
	add("namespace-protection", cfg.NamespaceProtection == nil, "unset "+builtin.EnvNamespaceProtection+" (it is \"off\")")
	return out
}

// builtinConfig reads the built-in webhooks' settings from the environment and keeps the ones
// --webhooks enables.
func (o *serveOptions) builtinConfig(lookup func(string) (string, bool)) (builtin.Config, error) {
	for _, w := range o.webhooks {
		if !slices.Contains(builtinWebhooks, w) {
			return builtin.Config{}, fmt.Errorf("--webhooks: unknown webhook %q: use %s", w, strings.Join(builtinWebhooks, ", "))
		}
	}
	cfg, err := builtin.ConfigFromEnv(lookup)
	if err != nil {
		return builtin.Config{}, err
	}
	if !slices.Contains(o.webhooks, "image-mirrors") {
		cfg.ImageMirrors = nil
	}
	if !slices.Contains(o.webhooks, "required-labels") {
		cfg.RequiredMetadata = nil
	}
	if !slices.Contains(o.webhooks, "namespace-protection") {
		cfg.NamespaceProtection = nil
	}
	return cfg, nil
}

func (o *serveOptions) run(ctx context.Context, streams Streams) error {
	logger, err := newLogger(streams.Err, o.logLevel, o.logFormat)
	if err != nil {
		return badInput(err)
	}
	// Kubernetes' client code (the certificate rotator's leader election and watches) reports
	// its errors through klog: into the server's log.
	kubelog.RouteTo(logger)
	cfg, err := o.builtinConfig(os.LookupEnv)
	if err != nil {
		return badInput(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics, err := webhook.NewMetrics(reg)
	if err != nil {
		return err
	}
	registry := webhook.NewRegistry(webhook.HTTPOptions{MaxRequestBytes: o.maxRequestBytes, Logger: logger, Metrics: metrics})
	if err := builtin.Register(registry, cfg); err != nil {
		return badInput(err)
	}
	disabled := disabledWebhooks(cfg, o.webhooks)
	if len(registry.Webhooks()) == 0 {
		var how []string
		for _, d := range disabled {
			how = append(how, d.name+": "+d.enable)
		}
		return badInput(fmt.Errorf("no webhook is enabled (%s)", strings.Join(how, "; ")))
	}
	if o.printConfig {
		return o.print(streams, registry)
	}
	for _, d := range disabled {
		logger.Info("webhook disabled", "name", d.name, "enable", d.enable)
	}

	minVersion, err := o.checkServing()
	if err != nil {
		return badInput(err)
	}
	if o.certSecret != "" {
		// The certificate files exist once the rotator has synced the Secret: the server
		// starts after.
		if err := o.startRotator(ctx, logger); err != nil {
			return err
		}
	}
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: o.addr, HealthAddr: o.healthAddr,
		CertFile: filepath.Join(o.certDir, certs.CertFileName), KeyFile: filepath.Join(o.certDir, certs.KeyFileName),
		ClientCAFile: o.clientCA, MinTLSVersion: minVersion, EnableHTTP2: o.http2,
		Handler: registry, Gatherer: reg, Metrics: metrics, Logger: logger,
		DrainDelay: o.drain, GracePeriod: o.grace, ReadTimeout: o.readTimeout,
	})
	if err != nil {
		return badInput(err)
	}
	if err := server.Listen(); err != nil {
		// The addresses are well-formed (checked above): a port in use or a privileged port is
		// the machine's state, not a bad flag.
		return &exitError{code: 1, err: err}
	}
	for _, w := range registry.Webhooks() {
		logger.Info("serving webhook", "name", w.Name, "type", string(w.Type), "path", w.Path, "kind", w.Kind.Kind, "apiVersion", w.Kind.GroupVersion().String())
	}
	if err := server.Run(ctx); err != nil {
		// The server failed while running (a listener error, a drain that cut requests off):
		// not bad input.
		return &exitError{code: 1, err: err}
	}
	return nil
}

// checkServing checks the flags of the addresses and the TLS version served.
func (o *serveOptions) checkServing() (minVersion uint16, err error) {
	if minVersion, err = tlsVersion(o.tlsMin); err != nil {
		return 0, err
	}
	if err := checkListenAddr("--addr", o.addr); err != nil {
		return 0, err
	}
	if o.healthAddr != "" {
		if err := checkListenAddr("--health-addr", o.healthAddr); err != nil {
			return 0, err
		}
	}
	return minVersion, nil
}

// startRotator runs the certificate rotator for the life of ctx and waits until the certificate
// files are in --cert-dir.
func (o *serveOptions) startRotator(ctx context.Context, logger *slog.Logger) error {
	if o.service == "" || o.namespace == "" {
		return badInput(errors.New("--cert-secret needs --service and --namespace: the certificate is for <service>.<namespace>.svc, the Secret in that namespace"))
	}
	rc, _, err := restConfig(o.kubeconfig, "")
	if err != nil {
		return badInput(fmt.Errorf("--cert-secret: reaching the cluster: %w", err))
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return badInput(fmt.Errorf("--cert-secret: %w", err))
	}
	r, err := rotator.New(rotator.Options{
		Client: client, Namespace: o.namespace, SecretName: o.certSecret, CertDir: o.certDir,
		DNSNames:                        []string{o.service + "." + o.namespace + ".svc"},
		MutatingWebhookConfigurations:   []string{o.configName},
		ValidatingWebhookConfigurations: []string{o.configName},
		Logger:                          logger,
	})
	if err != nil {
		return badInput(err)
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

// print writes the configurations of the enabled webhooks.
func (o *serveOptions) print(streams Streams, registry *webhook.Registry) error {
	if (o.service == "") == (o.url == "") {
		return badInput(errors.New("--print-config needs --service and --namespace, or --url"))
	}
	if o.service != "" && o.namespace == "" {
		return badInput(errors.New("--service needs --namespace"))
	}
	var caBundle []byte
	caFile := filepath.Join(o.certDir, certs.CAFileName)
	if b, err := os.ReadFile(caFile); err == nil {
		if _, err := certs.ParseCertificatesPEM(b); err != nil {
			return badInput(fmt.Errorf("%s: %w", caFile, err))
		}
		caBundle = b
	} else if !errors.Is(err, os.ErrNotExist) {
		return badInput(err)
	} else {
		// Legitimate with cert-manager, whose cainjector fills the caBundle; otherwise the
		// apiserver could not verify the server, and said nowhere.
		fmt.Fprintf(streams.Err, "admit: warning: no %s: the configurations have no caBundle; inject one (admit certs inject, or cert-manager's cainjector) before applying them\n", caFile)
	}
	out, err := registry.ConfigurationsYAML(webhook.ConfigOptions{
		Name:         o.configName,
		ClientConfig: webhook.ClientConfig{Service: o.service, Namespace: o.namespace, Port: o.port, URL: o.url, CABundle: caBundle},
	})
	if err != nil {
		return badInput(err)
	}
	_, err = streams.Out.Write(out)
	return err
}

// checkListenAddr refuses an address net.Listen could never bind, so that what remains of a
// failed Listen is the machine's state (exit 1), not the flag (exit 2).
func checkListenAddr(flag, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: want HOST:PORT or :PORT (%v)", flag, addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("%s %q: %q is not a TCP port", flag, addr, port)
	}
	return nil
}

func tlsVersion(s string) (uint16, error) {
	switch s {
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("--tls-min-version %q: use 1.2 or 1.3", s)
}

// newLogger builds the slog logger the flags ask for.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: use json or text", format)
}
