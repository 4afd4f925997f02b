package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/admitkit/admit/audit"
	"github.com/admitkit/admit/audit/policyreport"
	"github.com/admitkit/admit/audit/reportstore"
)

// An audit in a cluster (deploy/audit): the pods of an Indexed Job read the cluster as their
// ServiceAccount (--in-cluster) and store their shards' reports in ConfigMaps (--to-configmap),
// since pods on different nodes share no volume; the merge reads them back (--from-configmaps),
// stores the whole audit's report (--to-configmap) and applies its Policy Reports
// (--apply-policy-reports). Package audit/reportstore does the work; here are the flags.

// clusterAccess is how a command reaches a cluster: --kubeconfig FILE, --in-cluster (the pod's
// ServiceAccount), or, with neither, as kubectl finds it (restConfig).
type clusterAccess struct {
	kubeconfig string
	inCluster  bool
}

// serviceAccountDir is where Kubernetes mounts a pod's ServiceAccount token, CA and namespace.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// inClusterUsage says what --in-cluster is, to admit audit and admit audit merge.
const inClusterUsage = "the cluster this pod runs in, reached as the pod's ServiceAccount (the token and CA Kubernetes mounts): what a Job's pod has instead of a kubeconfig"

// check refuses two sets of credentials.
func (a clusterAccess) check() error {
	if a.inCluster && a.kubeconfig != "" {
		return errors.New("--in-cluster and --kubeconfig name two ways to the cluster: give one")
	}
	return nil
}

// name names the cluster's credentials in messages.
func (a clusterAccess) name() string {
	switch {
	case a.inCluster:
		return "--in-cluster"
	case a.kubeconfig != "":
		return "--kubeconfig " + a.kubeconfig
	}
	return "the kubeconfig"
}

// restConfig is the cluster's client configuration.
func (a clusterAccess) restConfig() (*rest.Config, error) {
	if a.inCluster {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("--in-cluster: %w", err)
		}
		return cfg, nil
	}
	cfg, _, err := restConfig(a.kubeconfig, "")
	return cfg, err
}

// namespace is that of a ConfigMap named without one: the pod's own with --in-cluster, else the
// kubeconfig context's ("default" when it has none; the pod's own when kubectl's search finds no
// kubeconfig but a ServiceAccount).
func (a clusterAccess) namespace(getenv func(string) string) (string, error) {
	if a.inCluster {
		ns, err := podNamespace(getenv, serviceAccountDir)
		if err != nil {
			return "", fmt.Errorf("--in-cluster: %w", err)
		}
		return ns, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = a.kubeconfig
	ns, _, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).Namespace()
	if err != nil {
		return "", fmt.Errorf("%s: its namespace: %w", a.name(), err)
	}
	return ns, nil
}

// podNamespace is the namespace of the pod this runs in: $POD_NAMESPACE when set (the downward
// API's, as client-go reads it), else the ServiceAccount's namespace file in dir.
func podNamespace(getenv func(string) string, dir string) (string, error) {
	if getenv != nil {
		if ns := getenv("POD_NAMESPACE"); ns != "" {
			return ns, nil
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "namespace"))
	if err != nil {
		return "", fmt.Errorf("the pod's namespace: %w", err)
	}
	ns := strings.TrimSpace(string(data))
	if ns == "" {
		return "", fmt.Errorf("the pod's namespace: %s is empty", filepath.Join(dir, "namespace"))
	}
	return ns, nil
}

// configMapRef is a flag's [NAMESPACE/]NAME; namespace "" for the default one.
type configMapRef struct {
	namespace, name string
}

// parseConfigMapRef reads flag's value, [NAMESPACE/]NAME.
func parseConfigMapRef(flag, value string) (configMapRef, error) {
	parts := strings.Split(value, "/")
	switch {
	case len(parts) == 1 && parts[0] != "":
		return configMapRef{name: parts[0]}, nil
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return configMapRef{namespace: parts[0], name: parts[1]}, nil
	}
	return configMapRef{}, fmt.Errorf("%s %q: give NAME, or NAMESPACE/NAME", flag, value)
}

// connection is a cluster reached, with what the flags need of it.
type connection struct {
	config *rest.Config
	client kubernetes.Interface
	// namespace is that of a ConfigMap named without one.
	namespace string
}

// connect reaches the cluster of a.
func (a clusterAccess) connect(getenv func(string) string) (*connection, error) {
	cfg, err := a.restConfig()
	if err != nil {
		return nil, err
	}
	ns, err := a.namespace(getenv)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.name(), err)
	}
	return &connection{config: cfg, client: client, namespace: ns}, nil
}

// store is the Store of the ConfigMap ref names.
func (c *connection) store(ref configMapRef) *reportstore.Store {
	ns := ref.namespace
	if ns == "" {
		ns = c.namespace
	}
	return &reportstore.Store{Client: c.client, Namespace: ns}
}

// auditStoreFlags are admit audit's flags for a run in a cluster.
type auditStoreFlags struct {
	inCluster   bool
	toConfigMap string
}

func (f *auditStoreFlags) addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&f.inCluster, "in-cluster", false, "read "+inClusterUsage+"; read as --kubeconfig reads one")
	onceStringVar(fs, &f.toConfigMap, "to-configmap", "", "[NAMESPACE/]NAME: store the shard's report, gzipped JSON, in ConfigMap NAME-INDEX-of-COUNT (created or replaced, labelled "+reportstore.AuditLabel+"=NAME) for admit audit merge --from-configmaps NAME, rather than print it; in NAMESPACE, else the pod's own with --in-cluster, else the kubeconfig context's")
}

// check refuses what --to-configmap and --in-cluster cannot do.
func (f *auditStoreFlags) check(cmd *cobra.Command, o *auditOptions) error {
	if err := o.access().check(); err != nil {
		return err
	}
	if f.toConfigMap == "" {
		return nil
	}
	if _, err := parseConfigMapRef("--to-configmap", f.toConfigMap); err != nil {
		return err
	}
	switch {
	case cmd.Flags().Changed("output") && o.report.output != outputJSON:
		return fmt.Errorf("--to-configmap stores the shard's report as JSON, and prints nothing of -o %s: leave -o out, or give -o json", o.report.output)
	case o.report.junitFile != "" || o.report.htmlFile != "":
		return errors.New("--to-configmap stores a shard's report for the merge: --junit and --html are the merge's (admit audit merge --from-configmaps)")
	}
	return nil
}

// access is how admit audit reaches the cluster it reads.
func (o *auditOptions) access() clusterAccess {
	return clusterAccess{kubeconfig: o.session.kubeconfig, inCluster: o.store.inCluster}
}

// readsCluster says whether the audit reads a cluster: its baseline, state and objects.
func (o *auditOptions) readsCluster() bool { return o.session.kubeconfig != "" || o.store.inCluster }

// shardStore is where a shard's report goes with --to-configmap: reached, and asked whether it
// may write there, before the audit runs rather than after. nil without --to-configmap.
func (o *auditOptions) shardStore(ctx context.Context, shard audit.Shard, streams Streams) (*shardStore, error) {
	if o.store.toConfigMap == "" {
		return nil, nil
	}
	if !shard.Sharded() {
		return nil, badInput(fmt.Errorf("--to-configmap stores a shard's report for admit audit merge --from-configmaps: give --shard INDEX/COUNT, or run in an Indexed Job (%s and %s)", audit.EnvCompletionIndex, audit.EnvShardCount))
	}
	ref, _ := parseConfigMapRef("--to-configmap", o.store.toConfigMap) // checked
	conn, err := o.access().connect(streams.getenv)
	if err != nil {
		return nil, badInput(err)
	}
	store := conn.store(ref)
	if err := store.CheckWritable(ctx); err != nil {
		return nil, badInput(fmt.Errorf("--to-configmap %s: %w", o.store.toConfigMap, err))
	}
	return &shardStore{store: store, name: ref.name}, nil
}

// shardStore is a shard's report's ConfigMap.
type shardStore struct {
	store *reportstore.Store
	name  string
}

// put stores the shard's report and says where on stderr.
func (s *shardStore) put(ctx context.Context, streams Streams, report *audit.Report) error {
	name, err := s.store.PutShard(ctx, s.name, report)
	if err != nil {
		return fmt.Errorf("--to-configmap: %w", err)
	}
	fmt.Fprintf(streams.Err, "shard %d/%d: report stored in ConfigMap %s/%s\n", report.Shard.Index, report.Shard.Count, s.store.Namespace, name)
	return nil
}

// Values of admit audit merge --apply-policy-reports besides the formats.
const applyAuto = "auto"

// mergeStoreFlags are admit audit merge's flags for a run in a cluster.
type mergeStoreFlags struct {
	access         clusterAccess
	fromConfigMaps string
	toConfigMap    string
	applyReports   string
}

func (f *mergeStoreFlags) addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	onceStringVar(fs, &f.access.kubeconfig, "kubeconfig", "", "the kubeconfig of the cluster --from-configmaps, --to-configmap and --apply-policy-reports reach (default as kubectl finds it)")
	fs.BoolVar(&f.access.inCluster, "in-cluster", false, "reach "+inClusterUsage)
	onceStringVar(fs, &f.fromConfigMaps, "from-configmaps", "", "[NAMESPACE/]NAME: read the shards' reports admit audit --to-configmap NAME stored (the ConfigMaps labelled "+reportstore.AuditLabel+"=NAME), besides any REPORT given")
	onceStringVar(fs, &f.toConfigMap, "to-configmap", "", "[NAMESPACE/]NAME: also store the merged report in ConfigMap NAME (created or replaced): its JSON ("+reportstore.ReportKey+") and HTML page ("+reportstore.HTMLKey+"), gzipped")
	onceStringVar(fs, &f.applyReports, "apply-policy-reports", "", "also apply the findings to the cluster as Policy Reports (server-side apply): policyreport (wgpolicyk8s.io/v1alpha2), openreports (openreports.io/v1alpha1), or auto: each format whose CRDs the cluster serves, none if neither")
	_ = cmd.MarkFlagFilename("kubeconfig")
	_ = cmd.RegisterFlagCompletionFunc("apply-policy-reports", fixedCompletion(applyAuto, outputPolicyReport, outputOpenReports))
}

// check refuses flags that do nothing or contradict each other.
func (f *mergeStoreFlags) check(args []string) error {
	if err := f.access.check(); err != nil {
		return err
	}
	reaches := f.fromConfigMaps != "" || f.toConfigMap != "" || f.applyReports != ""
	switch {
	case len(args) == 0 && f.fromConfigMaps == "":
		return errors.New("no report to merge: give the shards' reports (files or directories), or --from-configmaps NAME")
	case !reaches && (f.access.inCluster || f.access.kubeconfig != ""):
		return fmt.Errorf("%s: nothing reaches the cluster without --from-configmaps, --to-configmap or --apply-policy-reports", f.access.name())
	}
	for flag, value := range map[string]string{"--from-configmaps": f.fromConfigMaps, "--to-configmap": f.toConfigMap} {
		if value != "" {
			if _, err := parseConfigMapRef(flag, value); err != nil {
				return err
			}
		}
	}
	switch f.applyReports {
	case "", applyAuto, outputPolicyReport, outputOpenReports:
	default:
		return fmt.Errorf("--apply-policy-reports %q: give auto, policyreport or openreports", f.applyReports)
	}
	return nil
}

// connect reaches the cluster when a flag needs it; nil when none does.
func (f *mergeStoreFlags) connect(getenv func(string) string) (*connection, error) {
	if f.fromConfigMaps == "" && f.toConfigMap == "" && f.applyReports == "" {
		return nil, nil
	}
	return f.access.connect(getenv)
}

// shards reads the reports --from-configmaps names.
func (f *mergeStoreFlags) shards(ctx context.Context, conn *connection) ([]audit.ShardReport, error) {
	if f.fromConfigMaps == "" {
		return nil, nil
	}
	ref, _ := parseConfigMapRef("--from-configmaps", f.fromConfigMaps) // checked
	shards, err := conn.store(ref).Shards(ctx, ref.name)
	if err != nil {
		return nil, fmt.Errorf("--from-configmaps %s: %w", f.fromConfigMaps, err)
	}
	return shards, nil
}

// keep stores the merged report and applies its Policy Reports as the flags ask, saying what it
// did on stderr.
func (f *mergeStoreFlags) keep(ctx context.Context, conn *connection, streams Streams, report *audit.Report) error {
	if f.toConfigMap != "" {
		ref, _ := parseConfigMapRef("--to-configmap", f.toConfigMap) // checked
		store := conn.store(ref)
		if err := store.PutReport(ctx, ref.name, report); err != nil {
			return fmt.Errorf("--to-configmap: %w", err)
		}
		fmt.Fprintf(streams.Err, "report stored in ConfigMap %s/%s (%s, %s)\n", store.Namespace, ref.name, reportstore.ReportKey, reportstore.HTMLKey)
	}
	if f.applyReports == "" {
		return nil
	}
	formats, err := f.formats(conn)
	if err != nil {
		return fmt.Errorf("--apply-policy-reports %s: %w", f.applyReports, err)
	}
	if len(formats) == 0 {
		fmt.Fprintf(streams.Err, "no Policy Report applied: the cluster serves neither %s nor %s (their CRDs are not installed)\n", policyreport.WGPolicy, policyreport.OpenReports)
		return nil
	}
	client, err := dynamic.NewForConfig(conn.config)
	if err != nil {
		return fmt.Errorf("--apply-policy-reports: %w", err)
	}
	for _, format := range formats {
		applied, err := reportstore.ApplyPolicyReports(ctx, client, report, format)
		if err != nil {
			return fmt.Errorf("--apply-policy-reports %s: %w", f.applyReports, err)
		}
		fmt.Fprintf(streams.Err, "applied %d %s Policy Reports: %s\n", len(applied), format, strings.Join(applied, ", "))
	}
	return nil
}

// formats are the formats --apply-policy-reports asks for (reportstore.FormatsToApply).
func (f *mergeStoreFlags) formats(conn *connection) ([]policyreport.Format, error) {
	disc, err := discovery.NewDiscoveryClientForConfig(conn.config)
	if err != nil {
		return nil, err
	}
	return reportstore.FormatsToApply(disc, policyReportFormats[f.applyReports]) // "" for auto
}
