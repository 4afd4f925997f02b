package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/internal/markdown"
	"github.com/admitkit/admit/internal/words"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/lint/cluster"
	"github.com/admitkit/admit/lint/policycheck"
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
	stdinFilename  string
	now            func() time.Time
}

func newLintCommand(streams Streams) *cobra.Command {
	o := &lintOptions{now: time.Now}
	cmd := &cobra.Command{
		Use:   "lint PATH... | lint --kubeconfig FILE",
		Short: "Find webhook configurations that are invalid or can take a cluster down",
		Long: `Lint Mutating- and ValidatingWebhookConfigurations and admission policies: what the apiserver would
refuse (A), fail-closed webhooks that deadlock the cluster's recovery and other availability risks
(B), needlessly wide scopes and match conditions that cannot be evaluated (C), timeouts (D), TLS
material (E) and admission policies' bindings, parameters and expressions (F). Every finding names
its rule, configuration, webhook and field, and says how to fix it; docs/lint.md explains each
rule.

PATH is a file, a directory of *.yaml, *.yml and *.json files, or "-" for standard input; documents
may be of any kind. An input that does not read, or holds no object, is an error: lint never
passes on nothing. Lint what you apply: the files of a kustomize base that its build changes
(placeholder namespaces, name prefixes, patches) are refused, with the command to lint the build
instead. Give the Namespaces, Services, Deployments, PodDisruptionBudgets, TLS Secrets and
cert-manager Certificates that go with the configurations and more rules apply (replicas,
disruption budgets, runlevels, serving certificates). With --kubeconfig, lint reads them from a
cluster instead, read-only, never Secrets.

Namespaces are labelled by runlevel (admit.dev/runlevel: 0 kube-system, 1 add-ons webhooks need,
2 webhook servers, higher for webhooks that depend on webhooks); a configuration must exempt every
namespace at or below its level (annotation admit.dev/runlevel, default its server's namespace's).
A configuration turns rules off for itself with the annotation admit.dev/lint-disable: "B07,D01".

Findings below --severity are not shown. Exit codes: 0 no finding at or above --severity,
1 findings, 2 bad input (an input that does not read is reported, and the others are still linted).`,
		Example: `  # a kustomize build, with the objects around the configurations
  kustomize build deploy/overlays/prod | admit lint -

  # files and directories; only errors fail
  admit lint --severity error config/webhooks.yaml manifests/

  # SARIF for code scanning, standard input shown as the kustomization it was built from
  kustomize build deploy/overlays/prod | admit lint -o sarif --stdin-filename deploy/overlays/prod/kustomization.yaml - > lint.sarif

  # the cluster of the current context, as SARIF for code scanning
  admit lint --kubeconfig ~/.kube/config -o sarif > lint.sarif

  # every rule, with its severity
  admit lint --list-rules`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), streams, args) },
	}
	f := cmd.Flags()
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the subdirectories of directories too")
	onceStringVar(f, &o.kubeconfig, "kubeconfig", "", "lint the cluster of this kubeconfig (read-only) instead of files")
	f.StringVar(&o.context, "context", "", "the kubeconfig context to use (default its current context)")
	addOutputFlag(cmd, &o.output, outputSARIF, outputMarkdown)
	f.StringVar(&o.severity, "severity", "warning", "show findings at or above this severity, and exit 1 if there are any: info, warning or error")
	f.StringSliceVar(&o.disable, "disable", nil, "rules to turn off, by ID or name (repeatable, comma-separated)")
	f.DurationVar(&o.requestTimeout, "request-timeout", 60*time.Second, "the apiserver's request deadline, for rule D02 (kube-apiserver --request-timeout)")
	f.DurationVar(&o.expiryWarning, "expiry-warning", 30*24*time.Hour, "warn about certificates that expire within this long (rule E02)")
	f.BoolVar(&o.listRules, "list-rules", false, "list the rules and exit")
	onceStringVar(f, &o.stdinFilename, "stdin-filename", "", `the path findings in standard input ("-") are reported at, e.g. the kustomization it was built from, for code scanning (default "<stdin>")`)
	_ = cmd.MarkFlagFilename("kubeconfig")
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
	// Errors are the inputs that could not be read: the findings are those of the others.
	Errors []string `json:"errors,omitempty"`
}

type lintSummary struct {
	Errors         int `json:"errors"`
	Warnings       int `json:"warnings"`
	Infos          int `json:"infos"`
	Suppressed     int `json:"suppressed"`
	BelowThreshold int `json:"belowThreshold"`
}

func (o *lintOptions) run(ctx context.Context, streams Streams, paths []string) error {
	if err := checkOutput(o.output, outputSARIF, outputMarkdown); err != nil {
		return err
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
	if o.stdinFilename != "" && !slices.Contains(paths, "-") {
		return badInput(errors.New(`--stdin-filename names standard input, which is read only when "-" is among the paths`))
	}
	var set *config.Set
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
		// The input is read twice: the configurations first, then, of the objects around them,
		// what the rules read of those they can refer to. A large input is not held whole.
		opts.Surroundings = lint.NewSurroundings()
		set, loadErr, err := o.readInputs(streams.In, paths, opts.Surroundings)
		if err != nil {
			return badInput(err)
		}
		loadErrs := flattenErrors(loadErr)
		if len(loadErrs) > 0 {
			for _, e := range loadErrs {
				fmt.Fprintf(streams.Err, "admit: %s\n", e)
			}
			if objectCount(set) == 0 {
				// Nothing read: no report, which would read as a clean one.
				return &exitError{code: ExitBadInput, err: errors.New("")}
			}
			fmt.Fprintln(streams.Err, "admit: the inputs above were not linted; the others were")
		}
		if len(set.Mutating)+len(set.Validating) == 0 && !policycheck.HasPolicies(set) {
			// Pointed at the wrong folder, a clean report would pass a CI job.
			fmt.Fprintf(streams.Err, "admit: nothing to lint: %s hold no webhook configuration or admission policy among %s\n",
				strings.Join(paths, ", "), words.Plural(objectCount(set), "object", "objects"))
			return &exitError{code: ExitBadInput, err: errors.New("")}
		}
		return o.lint(streams, set, opts, threshold, loadErrs)
	default:
		return badInput(errors.New(`nothing to lint: give files, directories or "-" (standard input), or --kubeconfig`))
	}
	return o.lint(streams, set, opts, threshold, nil)
}

// lint runs the rules on set and prints the report. loadErrs are the inputs that were not read:
// the report then says the run was partial, and the exit code is 2.
func (o *lintOptions) lint(streams Streams, set *config.Set, opts lint.Options, threshold lint.Severity, loadErrs []error) error {
	policies := policycheck.HasPolicies(set)
	if len(set.Mutating) == 0 && len(set.Validating) == 0 && !policies {
		fmt.Fprintln(streams.Err, "admit: warning: no webhook configurations or admission policies found")
	}
	return o.runRules(streams, set, opts, threshold, loadErrs)
}

// runRules runs the rules on set and prints the report (see lint).
func (o *lintOptions) runRules(streams Streams, set *config.Set, opts lint.Options, threshold lint.Severity, loadErrs []error) error {
	if policycheck.Needed(set) {
		checker, err := policycheck.New(set)
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
	// A partial run's text report shows its findings, never a clean summary for the whole input.
	if o.output != outputText || len(loadErrs) == 0 || len(shown) > 0 {
		if err := o.write(streams.Out, findings, threshold, loadErrs); err != nil {
			return err
		}
	}
	if len(loadErrs) > 0 {
		return &exitError{code: ExitBadInput, err: errors.New("")}
	}
	if len(shown) > 0 {
		return &exitError{code: ExitRejected, err: errors.New("")}
	}
	return nil
}

// readCluster reads the cluster of the kubeconfig, and its resources from discovery (the
// built-in Kubernetes 1.36 list when discovery fails).
func (o *lintOptions) readCluster(ctx context.Context, stderr io.Writer) (*config.Set, *resources.Mapper, error) {
	rc, name, err := restConfig(o.kubeconfig, o.context)
	if err != nil {
		return nil, nil, badInput(err)
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	dynamicClient, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	mapper, err := resources.FromDiscovery(client.Discovery())
	if err != nil {
		fmt.Fprintf(stderr, "admit: warning: %v\n", err)
		if mapper == nil {
			fmt.Fprintln(stderr, "admit: warning: using the resources of Kubernetes 1.36 instead of the cluster's")
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

// lintDocs is the page that explains every rule; each rule has its section.
const lintDocs = "https://github.com/admitkit/admit/blob/main/docs/lint.md"

// ruleHelpURI is the address of a rule's section of docs/lint.md: its heading is "ID name",
// which GitHub anchors as "id-name".
func ruleHelpURI(r lint.Rule) string {
	return lintDocs + "#" + strings.ToLower(r.ID+"-"+r.Name)
}

// write prints the report; loadErrs are the inputs that were not read, which a structured
// report lists so that it never reads as a clean run over the whole input.
func (o *lintOptions) write(w io.Writer, findings []lint.Finding, threshold lint.Severity, loadErrs []error) error {
	var errTexts []string
	for _, e := range loadErrs {
		errTexts = append(errTexts, e.Error())
	}
	switch o.output {
	case outputText:
		return lint.WriteText(w, findings, threshold)
	case outputMarkdown:
		if err := lint.WriteMarkdown(w, findings, threshold); err != nil {
			return err
		}
		return writeMarkdownErrors(w, "Inputs not read", errTexts)
	case outputSARIF:
		// Suppressed findings stay in SARIF, marked: code-scanning services show them as such.
		var reported []lint.Finding
		for _, f := range findings {
			if f.Severity >= threshold {
				reported = append(reported, f)
			}
		}
		log, err := sarif.FromFindings(sarif.Driver{Name: "admit lint", Version: Version(), InformationURI: lintDocs}, lint.Rules(), reported)
		if err != nil {
			return err
		}
		rules := lint.Rules()
		for i := range log.Runs[0].Tool.Driver.Rules {
			log.Runs[0].Tool.Driver.Rules[i].HelpURI = ruleHelpURI(rules[i])
		}
		if len(errTexts) > 0 {
			inv := sarif.Invocation{ExecutionSuccessful: false}
			for _, t := range errTexts {
				inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarif.Notification{Level: "error", Message: sarif.Message{Text: t}})
			}
			log.Runs[0].Invocations = []sarif.Invocation{inv}
		}
		return writeStructured(w, outputJSON, log)
	}
	report := lintReport{Threshold: threshold, Findings: lint.AtLeast(findings, threshold), Errors: errTexts}
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

// writeMarkdownErrors lists, after a command's Markdown, the inputs it could not read.
func writeMarkdownErrors(w io.Writer, title string, errs []string) error {
	if len(errs) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#### %s\n\n", title)
	for _, e := range errs {
		fmt.Fprintf(&b, "- %s\n", markdown.Text(strings.ReplaceAll(e, "\n", " ")))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
