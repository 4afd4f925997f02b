package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/admitkit/admit/audit"
	"github.com/admitkit/admit/audit/policyreport"
)

// auditOptions are admit audit's flags. session holds those it shares with admit review: the
// proposed configurations (--webhooks), how webhooks are reached, the cluster's state and options.
type auditOptions struct {
	session       reviewOptions
	files         []string
	auditLog      string
	baseline      []string
	namespace     string
	allNamespaces bool
	operation     string
	dryRun        string
	user          string
	groups        []string
	validate      string
	report        auditReportOptions
	limit         int
	batchSize     int
	concurrency   int
	// shard is --shard's "I/N", or the Indexed Job's.
	shard string
	// store: --in-cluster and --to-configmap, for a run in a cluster (audit_store.go).
	store auditStoreFlags
	// progress is the terminal a progress line is written to; nil for none.
	progress io.Writer
}

// admit audit's -o values besides text, json and yaml: its findings as Policy Reports, a YAML
// stream of a report per namespace and the cluster's, in the policy working group's format or
// openreports.io's.
const (
	outputPolicyReport = "policyreport"
	outputOpenReports  = "openreports"
)

var policyReportFormats = map[string]policyreport.Format{outputPolicyReport: policyreport.WGPolicy, outputOpenReports: policyreport.OpenReports}

// addAuditOutputFlag registers audit's -o/--output, with shell completion of its values.
func addAuditOutputFlag(cmd *cobra.Command, target *string) {
	values := []string{outputText, outputJSON, outputYAML, outputMarkdown, outputPolicyReport, outputOpenReports}
	cmd.Flags().StringVarP(target, "output", "o", outputText,
		"output format: text, json, yaml, markdown (for a pull request's comment), or Policy Reports for kubectl apply: policyreport (wgpolicyk8s.io/v1alpha2) or openreports (openreports.io/v1alpha1)")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletion(values...))
}

// ExitInterrupted is admit audit's exit code when Ctrl-C stopped it: the shell's code for a
// program ended by SIGINT. What was audited until then is reported.
const ExitInterrupted = 130

func newAuditCommand(streams Streams) *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit (-f DUMP | --audit-log FILE | --kubeconfig FILE | --in-cluster) --webhooks PATH... [--baseline PATH]...",
		Short: "Before rolling out webhooks or policies, see what they would do to a cluster's objects and traffic",
		Long: `Run the objects a cluster has — or the writes its audit log recorded — through kube-apiserver's
whole admission chain twice, offline: under the baseline (the cluster's own webhook configurations
and admission policies, or --baseline) and under the proposal (the baseline with --webhooks applied
over it: a configuration, policy or binding of the same kind and name replaced, others added).
Report what the proposal newly does: the writes it would deny (with the message), the objects it
would mutate (the diff), the new warnings, the webhook calls that would fail and what their
failure policy then does — per webhook and policy, per namespace, the worst first.

Objects come from a dump (-f: kubectl get -A -o yaml or -o json output, Lists, multi-document YAML,
directories with -R, "-" for stdin), from a cluster (--kubeconfig: every served resource a changed
webhook or policy can match, paginated lists, read-only: list and get, never Secrets; -n for one
namespace), or from a Kubernetes audit log (--audit-log: JSON lines at Request or RequestResponse
level, each write replayed as the CREATE, UPDATE or DELETE it was, with its user and groups, an
update's old object taken from the log's earlier events). A dump's or a cluster's object is audited
as its next write: an UPDATE that changes nothing by default, a CREATE with --operation CREATE.
With --kubeconfig and -f or --audit-log, the cluster gives the baseline and the state. In a pod,
--in-cluster reads the pod's cluster as its ServiceAccount; the pods of an Indexed Job each audit
a shard and store its report in a ConfigMap (--to-configmap) for admit audit merge
(deploy/audit).

With -o policyreport (wgpolicyk8s.io/v1alpha2) or -o openreports (openreports.io/v1alpha1), the
findings are written as Policy Reports for kubectl apply -f -: a report per namespace and the
cluster's, the dashboards' format for policy results.

Writes no changed webhook or policy can match are admitted alike under both and are not run.
Requests are dry runs by default (--dry-run=none sends real writes' requests to the webhooks).

Exit codes: 0 nothing new beyond the thresholds, 1 new denials or failures (or warnings, mutations)
beyond them, 2 bad input or writes that could not be reviewed, 130 interrupted (the report covers
what was audited).`,
		Example: `  # a policy and a webhook against a dump of the cluster, as a CI gate
  kubectl get namespaces,serviceaccounts,limitranges,resourcequotas,priorityclasses,storageclasses,ingressclasses,runtimeclasses,clusterroles,clusterrolebindings,roles,rolebindings,customresourcedefinitions,deployments,pods,configmaps -A -o yaml > dump.yaml
  admit audit -f dump.yaml --webhooks proposed/ --baseline current/ --junit audit.xml

  # against the cluster itself: its configurations are the baseline
  admit audit --kubeconfig ~/.kube/config --webhooks proposed/ --html audit.html

  # a day of traffic from the apiserver's audit log
  admit audit --audit-log /var/log/kubernetes/audit.log --webhooks proposed/ --kubeconfig ~/.kube/config`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.progress = terminalOf(streams.Err)
			return o.run(cmd, streams)
		},
	}
	o.addFlags(cmd)
	cmd.AddCommand(newAuditMergeCommand(streams))
	return cmd
}

// addFlags registers audit's flags.
func (o *auditOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	s := &o.session
	f.StringSliceVarP(&o.files, "filename", "f", nil, `a dump of objects to audit: files, directories or "-" for stdin (kubectl get -o yaml|json, Lists, multi-document YAML; repeatable, or comma-separated as kubectl takes them)`)
	f.BoolVarP(&s.recursive, "recursive", "R", false, "read the subdirectories of directories given with -f, --webhooks, --baseline and --cluster")
	onceStringVar(f, &o.auditLog, "audit-log", "", "a Kubernetes audit log (JSON lines, Request or RequestResponse level) whose writes are replayed")
	onceStringVar(f, &s.kubeconfig, "kubeconfig", "", "read the cluster this kubeconfig names (list and get only, never Secrets): its objects to audit unless -f or --audit-log gives them, its configurations and policies as the baseline unless --baseline does, and its state")
	f.VarP(&onceString{target: &o.namespace}, "namespace", "n", "audit the objects of this namespace only (cluster-scoped objects are left out)")
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "audit the objects of every namespace (the default)")
	f.StringArrayVar(&s.webhooks, "webhooks", nil, `the proposal: webhook configurations, admission policies and bindings to apply over the baseline (files, directories or "-"; repeatable)`)
	f.StringArrayVar(&o.baseline, "baseline", nil, "the configurations, policies and bindings to compare with (files or directories; repeatable); default the cluster's with --kubeconfig, else none")
	f.StringArrayVar(&s.cluster, "cluster", nil, "the cluster's state admission reads (Namespaces, ServiceAccounts, LimitRanges, policies' parameters...; files or directories, repeatable): it overrides what the cluster, the dump or the log gives")
	f.StringArrayVar(&s.crds, "crds", nil, "CustomResourceDefinitions of custom kinds (repeatable); those in the dump and the cluster count too")
	f.StringVar(&o.operation, "operation", "UPDATE", "how a dump's or a cluster's object is written next: UPDATE (an update that changes nothing) or CREATE (as if re-created)")
	f.StringVar(&o.dryRun, "dry-run", "server", `"server" sends dry-run requests (webhooks see dryRun: true), "none" requests of real writes`)
	f.Lookup("dry-run").NoOptDefVal = "server"
	f.StringVar(&o.user, "as", "admit-audit", "username of the writes of a dump or a cluster (an audit log's have their own)")
	f.StringArrayVar(&o.groups, "as-group", []string{"system:authenticated"}, "groups of that user (repeatable)")
	f.StringVar(&o.validate, "validate", "strict", `field validation of a dump's or a cluster's writes: "strict", "warn" or "ignore"`)
	f.DurationVar(&s.timeout, "request-timeout", 60*time.Second, "each write's deadline, as kube-apiserver's --request-timeout")
	addReachFlags(cmd, s)
	addClusterOptionFlags(cmd, s)
	o.report.addFlags(cmd)
	o.store.addFlags(cmd)
	onceStringVar(f, &o.shard, "shard", "", "audit shard INDEX/COUNT of the writes (from 0), for admit audit merge to add up: the writes of the objects that hash to it, the whole state read (default in an Indexed Job: $"+audit.EnvCompletionIndex+"/$"+audit.EnvShardCount+")")
	f.IntVar(&o.limit, "limit", 200, "list at most this many objects, the worst first (the counts are always whole)")
	f.IntVar(&o.batchSize, "batch-size", 500, "objects read and admitted at a time: what is held in memory")
	f.IntVar(&o.concurrency, "concurrency", 16, "admissions run at once under each configuration")
	_ = cmd.MarkFlagFilename("kubeconfig")
	_ = cmd.MarkFlagFilename("audit-log")
	_ = cmd.RegisterFlagCompletionFunc("operation", fixedCompletion("UPDATE", "CREATE"))
	_ = cmd.RegisterFlagCompletionFunc("dry-run", fixedCompletion("server", "none"))
	_ = cmd.RegisterFlagCompletionFunc("validate", fixedCompletion("strict", "warn", "ignore"))
}

// check refuses flags that contradict each other, with what to give instead.
func (o *auditOptions) check(cmd *cobra.Command) error {
	if err := o.report.check(); err != nil {
		return err
	}
	if err := o.store.check(cmd, o); err != nil {
		return err
	}
	switch {
	case len(o.session.webhooks) == 0:
		return errors.New("nothing proposed: give the webhook configurations and admission policies to roll out with --webhooks")
	case len(o.files) == 0 && o.auditLog == "" && !o.readsCluster():
		return errors.New("nothing to audit: give a dump with -f, an audit log with --audit-log, or a cluster with --kubeconfig (--in-cluster in a pod)")
	case len(o.files) > 0 && o.auditLog != "":
		return errors.New("-f and --audit-log are two audits: give one of them (run admit audit twice for both)")
	case o.namespace != "" && o.allNamespaces:
		return errors.New("-n and -A contradict each other: give -n NAMESPACE for one namespace, or -A (the default) for all")
	case o.auditLog != "" && cmd.Flags().Changed("operation"):
		return errors.New("--operation is how a dump's or a cluster's objects are written; an audit log says each write's own")
	case o.limit < 0 || o.batchSize < 1 || o.concurrency < 1:
		return errors.New("--limit must be 0 or more, --batch-size and --concurrency 1 or more")
	}
	switch strings.ToUpper(o.operation) {
	case "UPDATE", "CREATE":
	default:
		return fmt.Errorf("--operation %q: admit audit writes an object as an UPDATE or a CREATE", o.operation)
	}
	if _, err := parseDryRun(o.dryRun); err != nil {
		return err
	}
	if _, err := fieldValidationOf(o.validate); err != nil {
		return err
	}
	stdin := 0
	for _, paths := range [][]string{o.files, o.session.webhooks, o.baseline, o.session.cluster, o.session.crds} {
		for _, p := range paths {
			if p == "-" {
				stdin++
			}
		}
	}
	if stdin > 1 {
		return errors.New(`"-" (standard input) is given more than once: one input can read it`)
	}
	if o.auditLog == "-" && stdin > 0 {
		return errors.New(`"-" (standard input) is given more than once: one input can read it`)
	}
	return nil
}
