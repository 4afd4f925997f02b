package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/admitkit/admit/dispatch/config"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/lint/cluster"
	"github.com/admitkit/admit/lint/sarif"
	"github.com/admitkit/admit/resources"
)

// outputSARIF is lint's extra output format, for code-scanning services.
const outputSARIF = "sarif"

type lintOptions struct {
	recursive      bool
	kubeconfig     string
	context        string
	output         string
	severity       string
	disable        []string
	requestTimeout time.Duration
	expiryWarning  time.Duration
	listRules      bool
	now            func() time.Time
}

func newLintCommand(streams Streams) *cobra.Command {
	o := &lintOptions{now: time.Now}
	cmd := &cobra.Command{
		Use:   "lint PATH... | lint --kubeconfig FILE",
		Short: "Find webhook configurations that are invalid or can take a cluster down",
		Long: `Lint Mutating- and ValidatingWebhookConfigurations: what the apiserver would refuse (A), fail-closed
webhooks that deadlock the cluster's recovery and other availability risks (B), needlessly wide
scopes (C), timeouts (D) and TLS material (E). Every finding names its rule, configuration, webhook
and field, and says how to fix it; docs/lint.md explains each rule.

PATH is a file, a directory of *.yaml, *.yml and *.json files, or "-" for standard input; documents
may be of any kind. Give the Namespaces, Services, Deployments, PodDisruptionBudgets, TLS Secrets and
cert-manager Certificates that go with the configurations and more rules apply (replicas,
disruption budgets, runlevels, serving certificates). With --kubeconfig, lint reads them from a
cluster instead, read-only, never Secrets.

Namespaces are labelled by runlevel (admit.dev/runlevel: 0 kube-system, 1 add-ons webhooks need,
2 webhook servers, higher for webhooks that depend on webhooks); a configuration must exempt every
namespace at or below its level (annotation admit.dev/runlevel, default its server's namespace's).
A configuration turns rules off for itself with the annotation admit.dev/lint-disable: "B07,D01".

Findings below --severity are not shown. Exit codes: 0 no finding at or above --severity,
1 findings, 2 bad input.`,
		Example: `  # a kustomize build, with the objects around the configurations
  kustomize build deploy/overlays/prod | admit lint -

  # files and directories; only errors fail
  admit lint --severity error deploy/webhooks.yaml deploy/base/

  # the cluster of the current context, as SARIF for code scanning
  admit lint --kubeconfig ~/.kube/config -o sarif > lint.sarif

  # every rule, with its severity
  admit lint --list-rules`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), streams, args) },
	}
	f := cmd.Flags()
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the subdirectories of directories too")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "lint the cluster of this kubeconfig (read-only) instead of files")
	f.StringVar(&o.context, "context", "", "the kubeconfig context to use (default its current context)")
	f.StringVarP(&o.output, "output", "o", outputText, "output format: text, json, yaml or sarif")
	f.StringVar(&o.severity, "severity", "warning", "show findings at or above this severity, and exit 1 if there are any: info, warning or error")
	f.StringSliceVar(&o.disable, "disable", nil, "rules to turn off, by ID or name (repeatable, comma-separated)")
	f.DurationVar(&o.requestTimeout, "request-timeout", 60*time.Second, "the apiserver's request deadline, for rule D02 (kube-apiserver --request-timeout)")
	f.DurationVar(&o.expiryWarning, "expiry-warning", 30*24*time.Hour, "warn about certificates that expire within this long (rule E02)")
	f.BoolVar(&o.listRules, "list-rules", false, "list the rules and exit")
	_ = cmd.MarkFlagFilename("kubeconfig")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{outputText, outputJSON, outputYAML, outputSARIF}, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("severity", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"info", "warning", "error"}, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("disable", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var ids []string
		for _, r := range lint.Rules() {
			ids = append(ids, r.ID+"\t"+r.Name)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// lintReport is what `admit lint -o json|yaml` prints: the findings shown (at or above the
// threshold, not suppressed) and counts of all.
type lintReport struct {
	Threshold lint.Severity  `json:"threshold"`
	Findings  []lint.Finding `json:"findings"`
	Summary   lintSummary    `json:"summary"`
}

type lintSummary struct {
	Errors         int `json:"errors"`
	Warnings       int `json:"warnings"`
	Infos          int `json:"infos"`
	Suppressed     int `json:"suppressed"`
	BelowThreshold int `json:"belowThreshold"`
}

func (o *lintOptions) run(ctx context.Context, streams Streams, paths []string) error {
	switch o.output {
	case outputText, outputJSON, outputYAML, outputSARIF:
	default:
		return badInput(fmt.Errorf("unknown output format %q: use text, json, yaml or sarif", o.output))
	}
	if o.listRules {
		return o.printRules(streams.Out)
	}
	threshold, err := lint.ParseSeverity(o.severity)
	if err != nil {
		return badInput(fmt.Errorf("--severity: %w", err))
	}
	opts := lint.Options{
		Now: o.now, Disable: o.disable, RequestTimeout: o.requestTimeout, ExpiryWarning: o.expiryWarning,
	}
	var set *config.Set
	var loadErr error
	switch {
	case o.kubeconfig != "" && len(paths) > 0:
		return badInput(errors.New("give files to lint or --kubeconfig, not both"))
	case o.kubeconfig != "":
		if set, opts.Resources, err = o.readCluster(ctx, streams.Err); err != nil {
			return err
		}
	case len(paths) > 0:
		// A file that does not read is reported and the others linted: one bad file in a
		// directory must not hide the findings of the rest. The exit code still says bad input.
		if set, loadErr, err = o.readFiles(streams.In, paths); err != nil {
			return badInput(err)
		}
		if loadErr != nil {
			fmt.Fprintf(streams.Err, "admit lint: %v\n", loadErr)
			if len(set.Mutating)+len(set.Validating)+len(set.Others) > 0 {
				fmt.Fprintln(streams.Err, "admit lint: the files above were not linted; the others were")
			}
		}
	default:
		return badInput(errors.New(`nothing to lint: give files, directories or "-" (standard input), or --kubeconfig`))
	}
	policies := hasPolicies(set)
	if len(set.Mutating) == 0 && len(set.Validating) == 0 && !policies {
		fmt.Fprintln(streams.Err, "admit lint: warning: no webhook configurations or admission policies found")
	}
	if policies {
		checker, err := newPolicyChecker(set)
		if err != nil {
			return badInput(err)
		}
		opts.Policies = checker
	}
	findings, err := lint.Run(set, opts)
	if err != nil {
		return badInput(err)
	}
	shown := lint.AtLeast(findings, threshold)
	if err := o.write(streams.Out, findings, threshold); err != nil {
		return err
	}
	if loadErr != nil {
		return &exitError{code: ExitBadInput, err: errors.New("")}
	}
	if len(shown) > 0 {
		return &exitError{code: ExitRejected, err: errors.New("")}
	}
	return nil
}

// readFiles reads what it can of paths: the set of the files that read, and loadErr about
// those that did not. err is for what stops the run (standard input unreadable).
func (o *lintOptions) readFiles(stdin io.Reader, paths []string) (set *config.Set, loadErr, err error) {
	set = &config.Set{}
	var loadErrs []error
	for _, path := range paths {
		var loaded *config.Set
		var pathErr error
		if path == "-" {
			data, readErr := io.ReadAll(stdin)
			if readErr != nil {
				return nil, nil, fmt.Errorf("reading standard input: %w", readErr)
			}
			loaded, pathErr = config.Parse("<stdin>", data)
		} else {
			loaded, pathErr = config.Load(config.Options{Recursive: o.recursive, KeepGoing: true}, path)
		}
		loadErrs = append(loadErrs, pathErr)
		if loaded != nil {
			set.Append(loaded)
		}
	}
	return set, errors.Join(loadErrs...), nil
}

// readCluster reads the cluster of the kubeconfig, and its resources from discovery (the
// built-in Kubernetes 1.36 list when discovery fails).
func (o *lintOptions) readCluster(ctx context.Context, stderr io.Writer) (*config.Set, *resources.Mapper, error) {
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.kubeconfig},
		&clientcmd.ConfigOverrides{CurrentContext: o.context})
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	restConfig, err := loader.ClientConfig()
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	dynamicClient, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	name := o.context
	if name == "" {
		name = raw.CurrentContext
	}
	mapper, err := resources.FromDiscovery(client.Discovery())
	if err != nil {
		fmt.Fprintf(stderr, "admit lint: warning: %v\n", err)
		if mapper == nil {
			fmt.Fprintln(stderr, "admit lint: warning: using the resources of Kubernetes 1.36 instead of the cluster's")
		}
	}
	paramResources := mapper
	if paramResources == nil {
		if paramResources, err = resources.Builtin(); err != nil {
			return nil, nil, err
		}
	}
	set, err := cluster.Load(ctx, client, cluster.Options{Dynamic: dynamicClient, Resources: paramResources, Name: strings.TrimSpace("cluster " + name)})
	if err != nil {
		return nil, nil, err
	}
	return set, mapper, nil
}

func (o *lintOptions) write(w io.Writer, findings []lint.Finding, threshold lint.Severity) error {
	switch o.output {
	case outputText:
		return lint.WriteText(w, findings, threshold)
	case outputSARIF:
		// Suppressed findings stay in SARIF, marked: code-scanning services show them as such.
		var reported []lint.Finding
		for _, f := range findings {
			if f.Severity >= threshold {
				reported = append(reported, f)
			}
		}
		log, err := sarif.FromFindings(sarif.Driver{Name: "admit lint", Version: Version(), InformationURI: "https://github.com/admitkit/admit/blob/main/docs/lint.md"}, lint.Rules(), reported)
		if err != nil {
			return err
		}
		return writeStructured(w, outputJSON, log)
	}
	report := lintReport{Threshold: threshold, Findings: lint.AtLeast(findings, threshold)}
	if report.Findings == nil {
		report.Findings = []lint.Finding{}
	}
	for _, f := range report.Findings {
		switch f.Severity {
		case lint.Error:
			report.Summary.Errors++
		case lint.Warning:
			report.Summary.Warnings++
		case lint.Info:
			report.Summary.Infos++
		}
	}
	for _, f := range findings {
		switch {
		case f.Suppressed != lint.NotSuppressed:
			report.Summary.Suppressed++
		case f.Severity < threshold:
			report.Summary.BelowThreshold++
		}
	}
	return writeStructured(w, o.output, report)
}

// printRules lists the rules: a table, or JSON/YAML for scripts.
func (o *lintOptions) printRules(w io.Writer) error {
	rules := lint.Rules()
	if o.output != outputText {
		type rule struct {
			ID       string        `json:"id"`
			Name     string        `json:"name"`
			Severity lint.Severity `json:"severity"`
			Summary  string        `json:"summary"`
		}
		out := make([]rule, len(rules))
		for i, r := range rules {
			out[i] = rule{ID: r.ID, Name: r.Name, Severity: r.Severity, Summary: r.Summary}
		}
		format := o.output
		if format == outputSARIF {
			format = outputJSON
		}
		return writeStructured(w, format, out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSEVERITY\tSUMMARY")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Severity, r.Summary)
	}
	return tw.Flush()
}
