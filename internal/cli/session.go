package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/builtin"
	"github.com/admitkit/admit/clusterstate"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/review"
)

// What review, test and audit share: the flags that say what a review.Session reviews with —
// webhook configurations and policies, how their webhooks are reached, the cluster's state and
// options — read into a review.Config by the review package.

// sessionConfig reads what the flags name — the webhook configurations and policies (or starts
// the built-in webhooks), the cluster state of files and of --kubeconfig, the CRDs — into a
// review.Config. caBundle, when not empty, is given to every webhook that has none (admit test's
// generated CA). closeWebhooks stops the built-in webhooks. Its errors are ready to return.
func (o *reviewOptions) sessionConfig(ctx context.Context, streams Streams, namespaces []string, caBundle []byte) (_ review.Config, closeWebhooks func(), err error) {
	closeWebhooks = func() {}
	cfg, err := o.baseConfig(caBundle)
	if err != nil {
		return review.Config{}, nil, badInput(err)
	}
	if len(o.webhooks) > 0 {
		a, err := o.loadAdmission("--webhooks", o.webhooks, streams)
		if err != nil {
			return review.Config{}, nil, badInput(err)
		}
		a.Use(&cfg)
	} else {
		demo, err := builtin.ServeDemo(ctx)
		if err != nil {
			return review.Config{}, nil, fmt.Errorf("starting the built-in webhooks: %w", err)
		}
		closeWebhooks = demo.Close
		cfg.Mutating, cfg.Validating = demo.Mutating, demo.Validating
	}
	defer func() {
		if err != nil {
			closeWebhooks()
		}
	}()
	if err := o.paths(streams).LoadState(&cfg); err != nil {
		return review.Config{}, nil, badInput(err)
	}
	if cfg.Live, err = o.readLive(ctx, namespaces); err != nil {
		return review.Config{}, nil, err
	}
	return cfg, closeWebhooks, nil
}

// paths are the files the flags name.
func (o *reviewOptions) paths(streams Streams) review.Paths {
	return review.Paths{Webhooks: o.webhooks, Cluster: o.cluster, Namespaces: o.namespaces, CRDs: o.crds, Recursive: o.recursive, Stdin: streams.In}
}

// baseConfig is the review.Config of the flags without configurations or state: the cluster's
// options, the writer, the deadline, where services are reached and with which CA. caBundle,
// when --ca-file is not given, is the CA of webhooks that have none.
func (o *reviewOptions) baseConfig(caBundle []byte) (review.Config, error) {
	services, err := review.ParseServices(o.resolve)
	if err != nil {
		return review.Config{}, fmt.Errorf("--resolve %w", err)
	}
	services.DNS = o.resolveDNS
	if o.caFile != "" {
		if caBundle, err = review.ReadCABundle(o.caFile); err != nil {
			return review.Config{}, fmt.Errorf("--ca-file: %w", err)
		}
	}
	return review.Config{
		WebhooksOnly: o.onlyHooks, CompleteState: o.completeState || o.kubeconfig != "", SkipMissingCRDs: o.skipMissingCRDs,
		FieldManager: o.fieldManager, ServiceResolver: services.Resolve, Timeout: o.timeout, DefaultCABundle: caBundle,
		Terms: review.Terms{OldObjects: "--old", CRDs: "--crds", Resolve: "--resolve", ResolveDNS: "--resolve-dns"},
		APIServer: review.APIServerOptions{
			DisallowPrivileged: !o.allowPrivileged, EnableAdmissionPlugins: o.enablePlugins, DisableAdmissionPlugins: o.disablePlugins,
			AdmissionControlConfigFile: o.admissionConfigFile, MaxRequestBodyBytes: o.maxRequestBodyBytes, ServiceCIDR: o.serviceCIDR,
		},
	}, nil
}

// loadAdmission reads the configurations and policies of paths (flag names them in messages)
// and prints the apiserver's create warnings on streams.Err.
func (o *reviewOptions) loadAdmission(flag string, paths []string, streams Streams) (review.Admission, error) {
	a, warnings, err := review.LoadAdmission(flag, paths, o.recursive, streams.In)
	for _, w := range warnings {
		fmt.Fprintln(streams.Err, "warning:", w)
	}
	return a, err
}

// readLive reads, read-only, what admission reads of the cluster --kubeconfig names: its CRDs,
// its Namespaces and classes, and the ServiceAccounts, LimitRanges and ResourceQuotas of the
// objects' namespaces (review.Survey.Namespaces; never Secrets).
func (o *reviewOptions) readLive(ctx context.Context, namespaces []string) ([]*unstructured.Unstructured, error) {
	if o.kubeconfig == "" {
		return nil, nil
	}
	rc, _, err := restConfig(o.kubeconfig, "")
	if err != nil {
		return nil, badInput(err)
	}
	cluster, err := clusterstate.Connect(rc)
	if err != nil {
		return nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	state, _, err := cluster.State(ctx, clusterstate.StateOptions{Namespaces: namespaces})
	if err != nil {
		return nil, fmt.Errorf("reading the cluster state of %s: %w", cluster.Host, err)
	}
	return state, nil
}

// addReachFlags registers the flags that say how webhooks are reached: --ca-file, --resolve and
// --resolve-dns.
func addReachFlags(cmd *cobra.Command, o *reviewOptions) {
	f := cmd.Flags()
	onceStringVar(f, &o.caFile, "ca-file", "", "the caBundle of webhooks and CRD conversion webhooks whose configuration has none (as cert-manager's CA injector fills it): a PEM file")
	f.StringArrayVar(&o.resolve, "resolve", nil, "NAMESPACE/SERVICE=HOST:PORT: where to reach a service webhook (repeatable); every service the webhooks call needs one, and a CRD's conversion webhook's when an object must change version")
	f.BoolVar(&o.resolveDNS, "resolve-dns", false, "look up the services without --resolve by their cluster DNS names (NAME.NAMESPACE.svc), as inside a cluster")
	_ = cmd.MarkFlagFilename("ca-file")
}

// addClusterOptionFlags registers the flags of the cluster's kube-apiserver options that change
// admission, by the apiserver's names, and the writer managedFields name.
func addClusterOptionFlags(cmd *cobra.Command, o *reviewOptions) {
	f := cmd.Flags()
	f.StringVar(&o.fieldManager, "field-manager", review.DefaultFieldManager, "the writer managedFields name, as the apiserver takes it from the client (kubectl apply: kubectl-client-side-apply)")
	f.StringVar(&o.serviceCIDR, "service-cidr", review.DefaultServiceCIDR, "the range Services get cluster IPs from")
	f.BoolVar(&o.allowPrivileged, "allow-privileged", true, "kube-apiserver's --allow-privileged: whether pods may run privileged containers (true in kubeadm, kind and managed clusters; a bare kube-apiserver's default is false)")
	f.StringSliceVar(&o.enablePlugins, "enable-admission-plugins", nil, "kube-apiserver's --enable-admission-plugins: admission plugins run beyond its defaults, e.g. AlwaysPullImages,PodNodeSelector")
	f.StringSliceVar(&o.disablePlugins, "disable-admission-plugins", nil, "kube-apiserver's --disable-admission-plugins: default admission plugins that do not run")
	onceStringVar(f, &o.admissionConfigFile, "admission-control-config-file", "", "kube-apiserver's --admission-control-config-file: an AdmissionConfiguration with the plugins' configurations (PodSecurity's defaults and exemptions, ...)")
	f.Int64Var(&o.maxRequestBodyBytes, "max-request-body-bytes", engine.DefaultMaxRequestBodyBytes, "kube-apiserver's --max-request-body-bytes: a larger object is refused with 413")
	_ = cmd.MarkFlagFilename("admission-control-config-file")
}
