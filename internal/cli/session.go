package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/review"
)

// What review, test and audit share: reading the flags that say what a review.Session reviews
// with — webhook configurations and policies, how their webhooks are reached, the cluster's state
// and options — into a review.Config.

// sessionConfig reads what the flags name — the webhook configurations and policies (or starts
// the built-in webhooks), the cluster state of files and of --kubeconfig, the CRDs — into a
// review.Config. caBundle, when not empty, is given to every webhook that has none (admit test's
// generated CA). closeWebhooks stops the built-in webhooks. Its errors are ready to return.
func (o *reviewOptions) sessionConfig(ctx context.Context, streams Streams, objects []review.Input, caBundle []byte) (_ review.Config, closeWebhooks func(), err error) {
	closeWebhooks = func() {}
	cfg, resolved, err := o.baseConfig()
	if err != nil {
		return review.Config{}, nil, badInput(err)
	}
	if len(o.webhooks) > 0 {
		set, err := o.loadConfigurations("--webhooks", o.webhooks, streams)
		if err != nil {
			return review.Config{}, nil, badInput(err)
		}
		if o.caFile != "" {
			if caBundle, err = readCABundle(o.caFile); err != nil {
				return review.Config{}, nil, badInput(err)
			}
		}
		if err := o.useConfigurations(&cfg, set, caBundle, resolved); err != nil {
			return review.Config{}, nil, badInput(err)
		}
	} else {
		demo, err := startDemoWebhooks(ctx)
		if err != nil {
			return review.Config{}, nil, fmt.Errorf("starting the built-in webhooks: %w", err)
		}
		closeWebhooks = demo.stop
		cfg.Mutating, cfg.Validating = demo.mutating, demo.validating
	}
	defer func() {
		if err != nil {
			closeWebhooks()
		}
	}()
	if err := o.loadFileState(&cfg); err != nil {
		return review.Config{}, nil, badInput(err)
	}
	if cfg.Live, err = o.readLive(ctx, objects); err != nil {
		return review.Config{}, nil, err
	}
	return cfg, closeWebhooks, nil
}

// baseConfig is the review.Config of the flags without configurations or state: the cluster's
// options, the writer, the deadline, where services are reached. resolved are the services
// --resolve places (NAMESPACE/NAME).
func (o *reviewOptions) baseConfig() (review.Config, map[string]bool, error) {
	resolver, resolved, err := parseResolve(o.resolve)
	if err != nil {
		return review.Config{}, nil, err
	}
	return review.Config{
		WebhooksOnly: o.onlyHooks, CompleteState: o.completeState || o.kubeconfig != "",
		FieldManager: o.fieldManager, ServiceResolver: resolver, Timeout: o.timeout,
		Terms: review.Terms{OldObjects: "--old", CRDs: "--crds"},
		APIServer: review.APIServerOptions{
			DisallowPrivileged: !o.allowPrivileged, EnableAdmissionPlugins: o.enablePlugins, DisableAdmissionPlugins: o.disablePlugins,
			AdmissionControlConfigFile: o.admissionConfigFile, MaxRequestBodyBytes: o.maxRequestBodyBytes, ServiceCIDR: o.serviceCIDR,
		},
	}, resolved, nil
}

// loadConfigurations reads the configurations and policies of paths (named flag in messages),
// checks them as the apiserver checks a create and prints its warnings on streams.Err.
func (o *reviewOptions) loadConfigurations(flag string, paths []string, streams Streams) (*config.Set, error) {
	set, err := loadConfigurationInputs(flag, paths, o.recursive, streams.In)
	if err != nil {
		return nil, err
	}
	warnings, err := set.Validate()
	for _, w := range warnings {
		fmt.Fprintln(streams.Err, "warning:", w)
	}
	if err != nil {
		return nil, err
	}
	return set, nil
}

// useConfigurations makes set's configurations and policies those of cfg: caBundle, when not
// empty, given to every webhook that has none, and every service a webhook calls placed by
// --resolve (or --resolve-dns).
func (o *reviewOptions) useConfigurations(cfg *review.Config, set *config.Set, caBundle []byte, resolved map[string]bool) error {
	cfg.Mutating, cfg.Validating, cfg.Policies = set.MutatingConfigs(), set.ValidatingConfigs(), nil
	if len(caBundle) > 0 {
		fillCABundles(cfg.Mutating, cfg.Validating, caBundle)
	}
	if !o.resolveDNS {
		if err := checkServicesResolved(cfg.Mutating, cfg.Validating, resolved); err != nil {
			return err
		}
	}
	for _, obj := range set.Others {
		if review.IsPolicy(obj.Object) {
			cfg.Policies = append(cfg.Policies, review.Input{Source: obj.Source.String(), Object: obj.Object})
		}
	}
	return nil
}

// loadFileState reads the state of --namespaces and --cluster, and the CRDs of --crds, into cfg.
func (o *reviewOptions) loadFileState(cfg *review.Config) error {
	var err error
	if cfg.Cluster, err = o.loadClusterState(); err != nil {
		return err
	}
	cfg.CRDs, err = o.loadCRDs()
	return err
}

// loadConfigurationInputs reads every input of flag (--webhooks, --baseline), "-" from stdin.
// Each input must contribute a webhook configuration or an admission policy: one that yields
// none (configurations in subdirectories without -R, an empty folder, a file of ordinary
// objects) would review with nothing and admit everything.
func loadConfigurationInputs(flag string, paths []string, recursive bool, stdin io.Reader) (*config.Set, error) {
	set := &config.Set{}
	var errs []error
	for _, path := range paths {
		loaded, err := config.Load(config.Options{Recursive: recursive, Stdin: stdin}, path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", flag, err))
			continue
		}
		policies := 0
		for _, obj := range loaded.Others {
			if review.IsPolicy(obj.Object) {
				policies++
			}
		}
		if len(loaded.Mutating)+len(loaded.Validating)+policies == 0 {
			errs = append(errs, fmt.Errorf("%s %s: %s", flag, inputName(path), nothingToReviewWith(path, len(loaded.Others), recursive)))
			continue
		}
		set.Append(loaded)
	}
	return set, errors.Join(errs...)
}

// nothingToReviewWith says why an input gave no configuration or policy, and what to do.
func nothingToReviewWith(path string, others int, recursive bool) string {
	msg := "no webhook configuration or admission policy"
	if others > 0 {
		msg += fmt.Sprintf(" among its %s", plural(others, "object", "objects"))
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() && !recursive {
		if entries, err := os.ReadDir(path); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					return msg + " (-R reads its subdirectories)"
				}
			}
		}
	}
	return msg
}

// fillCABundles gives caBundle to every webhook whose clientConfig has none.
func fillCABundles(mutating []*admissionregistrationv1.MutatingWebhookConfiguration, validating []*admissionregistrationv1.ValidatingWebhookConfiguration, caBundle []byte) {
	for _, c := range mutating {
		for i := range c.Webhooks {
			if len(c.Webhooks[i].ClientConfig.CABundle) == 0 {
				c.Webhooks[i].ClientConfig.CABundle = caBundle
			}
		}
	}
	for _, c := range validating {
		for i := range c.Webhooks {
			if len(c.Webhooks[i].ClientConfig.CABundle) == 0 {
				c.Webhooks[i].ClientConfig.CABundle = caBundle
			}
		}
	}
}

// parseResolve reads --resolve's NAMESPACE/SERVICE=HOST:PORT mappings: the resolver, and the
// services it resolves (NAMESPACE/NAME).
func parseResolve(entries []string) (dispatch.ServiceResolver, map[string]bool, error) {
	if len(entries) == 0 {
		return nil, nil, nil
	}
	targets := map[string]string{}
	resolved := map[string]bool{}
	for _, e := range entries {
		key, addr, ok := strings.Cut(e, "=")
		ns, name, okName := strings.Cut(key, "/")
		if !ok || !okName || ns == "" || name == "" || addr == "" {
			return nil, nil, fmt.Errorf("--resolve %q: want NAMESPACE/SERVICE=HOST:PORT", e)
		}
		targets[key] = addr
		resolved[key] = true
	}
	return func(namespace, name string, port int32) (string, error) {
		if addr, ok := targets[namespace+"/"+name]; ok {
			return addr, nil
		}
		return fmt.Sprintf("%s.%s.svc:%d", name, namespace, port), nil
	}, resolved, nil
}

// checkServicesResolved refuses webhooks that call a service --resolve does not place: off a
// cluster, NAME.NAMESPACE.svc resolves nowhere, and each call would fail after a DNS lookup.
func checkServicesResolved(mutating []*admissionregistrationv1.MutatingWebhookConfiguration, validating []*admissionregistrationv1.ValidatingWebhookConfiguration, resolved map[string]bool) error {
	var missing []string
	seen := map[string]bool{}
	check := func(kind, configuration, webhook string, cc admissionregistrationv1.WebhookClientConfig) {
		if cc.Service == nil {
			return
		}
		key := cc.Service.Namespace + "/" + cc.Service.Name
		if resolved[key] || seen[key] {
			return
		}
		seen[key] = true
		missing = append(missing, fmt.Sprintf("webhook %q of %s %q calls service %s: give --resolve %s=HOST:PORT", webhook, kind, configuration, key, key))
	}
	for _, c := range mutating {
		for _, w := range c.Webhooks {
			check("MutatingWebhookConfiguration", c.Name, w.Name, w.ClientConfig)
		}
	}
	for _, c := range validating {
		for _, w := range c.Webhooks {
			check("ValidatingWebhookConfiguration", c.Name, w.Name, w.ClientConfig)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s\n(a service's cluster DNS name resolves only in its cluster; --resolve-dns looks it up anyway)", strings.Join(missing, "\n"))
}

// addReachFlags registers the flags that say how webhooks are reached: --ca-file, --resolve and
// --resolve-dns.
func addReachFlags(cmd *cobra.Command, o *reviewOptions) {
	f := cmd.Flags()
	onceStringVar(f, &o.caFile, "ca-file", "", "the caBundle of webhooks whose configuration has none (as cert-manager's CA injector fills it): a PEM file")
	f.StringArrayVar(&o.resolve, "resolve", nil, "NAMESPACE/SERVICE=HOST:PORT: where to reach a service webhook (repeatable); every service the webhooks call needs one")
	f.BoolVar(&o.resolveDNS, "resolve-dns", false, "look up the services without --resolve by their cluster DNS names (NAME.NAMESPACE.svc), as inside a cluster")
	_ = cmd.MarkFlagFilename("ca-file")
}

// addClusterOptionFlags registers the flags of the cluster's kube-apiserver options that change
// admission, by the apiserver's names, and the writer managedFields name.
func addClusterOptionFlags(cmd *cobra.Command, o *reviewOptions) {
	f := cmd.Flags()
	f.StringVar(&o.fieldManager, "field-manager", chain.DefaultFieldManager, "the writer managedFields name, as the apiserver takes it from the client (kubectl apply: kubectl-client-side-apply)")
	f.StringVar(&o.serviceCIDR, "service-cidr", chain.DefaultServiceCIDR, "the range Services get cluster IPs from")
	f.BoolVar(&o.allowPrivileged, "allow-privileged", true, "kube-apiserver's --allow-privileged: whether pods may run privileged containers (true in kubeadm, kind and managed clusters; a bare kube-apiserver's default is false)")
	f.StringSliceVar(&o.enablePlugins, "enable-admission-plugins", nil, "kube-apiserver's --enable-admission-plugins: admission plugins run beyond its defaults, e.g. AlwaysPullImages,PodNodeSelector")
	f.StringSliceVar(&o.disablePlugins, "disable-admission-plugins", nil, "kube-apiserver's --disable-admission-plugins: default admission plugins that do not run")
	onceStringVar(f, &o.admissionConfigFile, "admission-control-config-file", "", "kube-apiserver's --admission-control-config-file: an AdmissionConfiguration with the plugins' configurations (PodSecurity's defaults and exemptions, ...)")
	f.Int64Var(&o.maxRequestBodyBytes, "max-request-body-bytes", engine.DefaultMaxRequestBodyBytes, "kube-apiserver's --max-request-body-bytes: a larger object is refused with 413")
	_ = cmd.MarkFlagFilename("admission-control-config-file")
}
