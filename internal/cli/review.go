package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/admitkit/admit/internal/words"
	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

type reviewOptions struct {
	files      []string
	recursive  bool
	webhooks   []string
	namespaces []string
	cluster    []string
	namespace  string
	// namespaceGiven: -n was given, so an object naming another namespace is an error, as in
	// kubectl.
	namespaceGiven bool
	crds           []string
	old            []string
	operation      string
	subresource    string
	dryRun         string
	user           string
	groups         []string
	timeout        time.Duration
	validate       string
	caFile         string
	resolve        []string
	resolveDNS     bool
	output         string
	list           bool
	summary        bool
	color          string
	onlyHooks      bool
	verbose        bool
	fieldManager   string
	serviceCIDR    string
	kubeconfig     string
	// The cluster's kube-apiserver options that change admission.
	allowPrivileged     bool
	enablePlugins       []string
	disablePlugins      []string
	admissionConfigFile string
	maxRequestBodyBytes int64
	completeState       bool
	skipMissingCRDs     bool
	// progress reports how far a long run is, on a terminal; nil for none.
	progress io.Writer
}

func newReviewCommand(streams Streams) *cobra.Command {
	o := &reviewOptions{}
	cmd := &cobra.Command{
		Use:   "review [-f] OBJECTS... [--webhooks PATH]...",
		Short: "Run objects through kube-apiserver's admission chain, your webhooks and policies, offline",
		Long: `Run admissions offline, as kube-apiserver 1.36 admits a write: each object is decoded and
defaulted, then goes through the built-in admission plugins, the MutatingAdmissionPolicies and the
mutating webhooks (with reinvocation), the registry's preparation and validation, the built-in
validating plugins, the ValidatingAdmissionPolicies, the validating webhooks and ResourceQuota.
Webhooks are called over HTTPS with their matching rules, failure policies and the apiserver's
exact error messages; policies are evaluated by the apiserver's own plugins. --webhooks-only calls
the webhooks alone.

Objects come from files, directories (-R for subdirectories), multi-document YAML, Lists and stdin
("-"); each object is its own admission. With --old, an object whose kind, namespace and name match
an old object is reviewed as an UPDATE of it.

Subresources take what their handlers take:
` + describeSubresourceInput() + `

Without --webhooks, admit's built-in example webhooks are served in-process on loopback with a
throwaway CA and used instead.

Exit codes: 0 every object admitted, 1 an object rejected, 2 bad input.`,
		Example: `  # the built-in webhooks on an example Deployment
  admit review -f builtin/demo/deployment.yaml

  # your configurations; services resolved to a server running on this machine
  admit review -f pod.yaml --webhooks deploy/webhooks.yaml --resolve admit-system/admit=127.0.0.1:9443

  # admission policies and bindings, with the ConfigMap their binding takes as parameters
  admit review -f deployment.yaml --webhooks policies/ --cluster params.yaml

  # a whole kustomize build, as a CI gate
  kustomize build overlays/prod | admit review -f - --webhooks hooks/

  # an update, as JSON for scripts
  admit review -f new.yaml --old old.yaml --webhooks hooks/ -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = append(o.files, args...)
			o.namespaceGiven = cmd.Flags().Changed("namespace")
			if err := o.checkAliases(cmd); err != nil {
				return err
			}
			o.progress = terminalOf(streams.Err)
			return o.run(cmd.Context(), streams)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// addFlags registers review's flags.
func (o *reviewOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSliceVarP(&o.files, "filename", "f", nil, `objects to admit: files, directories or "-" for stdin (YAML or JSON; repeatable, or comma-separated as kubectl takes them)`)
	f.BoolVarP(&o.recursive, "recursive", "R", false, "read the subdirectories of directories given with -f, --old, --webhooks, --cluster and --namespaces")
	f.StringArrayVar(&o.webhooks, "webhooks", nil, `files or directories of webhook configurations, admission policies and their bindings, or "-" for stdin (repeatable)`)
	f.StringArrayVar(&o.namespaces, "namespaces", nil, "Namespace objects for namespaceSelector lookups (repeatable); unlisted namespaces have only their kubernetes.io/metadata.name label")
	f.StringArrayVar(&o.cluster, "cluster", nil, "the cluster's state admission reads: Namespaces, ServiceAccounts, PriorityClasses, LimitRanges, ResourceQuotas, Storage/Ingress/RuntimeClasses, admission policies' parameters (files or directories, repeatable); what is not given is what a fresh cluster has")
	f.StringVarP(&o.namespace, "namespace", "n", "default", "the namespace of namespaced objects that name none; an object naming another is an error, as in kubectl")
	f.StringArrayVar(&o.crds, "crds", nil, "CustomResourceDefinitions of custom kinds (repeatable)")
	f.StringArrayVar(&o.old, "old", nil, "the existing objects, for UPDATEs: files or directories (repeatable)")
	f.StringVar(&o.operation, "operation", "", "CREATE, UPDATE, DELETE or CONNECT (default CREATE, or UPDATE for objects with an --old counterpart)")
	f.StringVar(&o.subresource, "subresource", "", "subresource of the request: status, scale, eviction, binding, ephemeralcontainers, resize, ... (see the inputs each takes above)")
	f.StringVar(&o.dryRun, "dry-run", "none", `"server" reviews a dry-run request (webhooks see dryRun: true, those with side effects are refused), "none" a write; "client" sends nothing, as kubectl`)
	f.Lookup("dry-run").NoOptDefVal = "server"
	f.StringVar(&o.user, "as", "admit-review", "username of the requesting user")
	f.StringVar(&o.user, "user", "admit-review", "the same as --as")
	f.StringArrayVar(&o.groups, "as-group", []string{"system:authenticated"}, "groups of the requesting user (repeatable)")
	f.StringArrayVar(&o.groups, "group", []string{"system:authenticated"}, "the same as --as-group")
	f.DurationVar(&o.timeout, "request-timeout", 60*time.Second, "each request's deadline, as kube-apiserver's --request-timeout")
	f.DurationVar(&o.timeout, "timeout", 60*time.Second, "the same as --request-timeout")
	f.StringVar(&o.validate, "validate", "strict", `field validation, as kubectl sends it: "strict" (unknown and duplicate fields are a 400), "warn" or "ignore"`)
	f.Lookup("validate").NoOptDefVal = "strict"
	addReachFlags(cmd, o)
	addClusterOptionFlags(cmd, o)
	f.StringVar(&o.color, "color", "auto", "colour the text diff: auto, always or never")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list every step of the chain, also webhooks not called and plugins that changed nothing, and the whole change to the stored object")
	f.BoolVar(&o.list, "list", false, "with -o json|yaml, print a List even for one object, so that scripts read one shape")
	f.BoolVar(&o.summary, "summary", false, "print one line per object and the totals instead of each object's steps")
	onceStringVar(f, &o.kubeconfig, "kubeconfig", "", "read the cluster state from this cluster (read-only, never Secrets): its Namespaces, PriorityClasses, Storage/Ingress/RuntimeClasses, CRDs, and the ServiceAccounts, LimitRanges and ResourceQuotas of the reviewed objects' namespaces")
	f.BoolVar(&o.completeState, "complete-state", false, "the cluster state given (--cluster, --namespaces) is the whole cluster: an object in a namespace it does not have gets the apiserver's 404, as with --kubeconfig, instead of the namespace being assumed")
	f.BoolVar(&o.skipMissingCRDs, "skip-missing-crds", false, "skip the objects of custom kinds whose CustomResourceDefinition is not given (listed as skipped), as kubeconform's -ignore-missing-schemas, instead of failing them")
	f.BoolVar(&o.onlyHooks, "webhooks-only", false, "call the webhooks with the objects as given and as patched, without kube-apiserver's decoding, defaulting, built-in admission plugins and preparation")
	for _, alias := range []string{"user", "group", "timeout"} {
		// The first names of these flags, kept for the scripts that use them.
		f.Lookup(alias).Hidden = true
	}
	_ = cmd.MarkFlagFilename("kubeconfig")
	_ = cmd.RegisterFlagCompletionFunc("dry-run", fixedCompletion("none", "server", "client"))
	_ = cmd.RegisterFlagCompletionFunc("validate", fixedCompletion("strict", "warn", "ignore"))
	addOutputFlag(cmd, &o.output, outputMarkdown)
	_ = cmd.RegisterFlagCompletionFunc("operation", fixedCompletion("CREATE", "UPDATE", "DELETE", "CONNECT"))
}

func (o *reviewOptions) run(ctx context.Context, streams Streams) error {
	if err := checkOutput(o.output, outputMarkdown); err != nil {
		return err
	}
	if err := o.checkValues(); err != nil {
		return badInput(err)
	}
	if len(o.files) == 0 {
		return badInput(errors.New("nothing to review: give objects with -f FILE|DIR|- or as arguments"))
	}
	// The objects are read a document at a time, three times (see review.Stream): standard
	// input is kept in a temporary file to be read again.
	in, err := manifest.Expand(o.files, manifest.Options{Recursive: o.recursive, Stdin: streams.In, Command: "admit review -f -"})
	if err != nil {
		return badInput(err)
	}
	remove, err := in.Spool()
	defer remove()
	if err != nil {
		return badInput(err)
	}
	survey, err := review.SurveyOf(review.ManifestSource(in))
	if err != nil {
		return badInput(err)
	}
	olds, err := readObjects(o.old, o.recursive, streams.In)
	if err != nil {
		return badInput(err)
	}
	cfg, closeWebhooks, err := o.sessionConfig(ctx, streams, survey.Namespaces(o.namespace), nil)
	if err != nil {
		return err
	}
	defer closeWebhooks()
	var done progress
	done.total.Store(int64(survey.Len()))
	cfg.Progress = func(n, _ int) { done.done.Store(int64(n)) }
	stream, err := review.NewStream(cfg, survey, olds, o.write())
	if err != nil {
		return badInput(err)
	}
	if n := survey.Policies(); n > 0 {
		// A policy applied with the objects may or may not be enforced on them (the apiserver
		// takes it up asynchronously): reviewed, it is not applied to the others.
		fmt.Fprintf(streams.Err, "note: the objects include %s, reviewed as objects: to apply them to the others, give them with --webhooks\n",
			words.Plural(n, "admission policy or binding", "admission policies and bindings"))
	}
	stop := showProgress(o.progress, &done)
	defer stop()
	return o.report(ctx, streams, stream, survey.Len(), stop)
}

// write is how the flags say the objects are written.
func (o *reviewOptions) write() review.Write {
	dryRun, _ := parseDryRun(o.dryRun)             // checked by checkValues
	validation, _ := fieldValidationOf(o.validate) // checked by checkValues
	return review.Write{
		Operation: admissionv1.Operation(strings.ToUpper(o.operation)), SubResource: o.subresource,
		User: authenticationv1.UserInfo{Username: o.user, Groups: o.groups}, DryRun: dryRun, FieldValidation: validation,
		FieldManager: o.fieldManager, Namespace: o.namespace, NamespaceRequired: o.namespaceGiven,
	}
}

// progress is what showProgress reads: how many objects are done, of how many; the session's
// progress callback stores them.
type progress struct {
	done, total atomic.Int64
}

// showProgress rewrites one line on the terminal w with how many objects are done (see
// progressLine).
func showProgress(w io.Writer, p *progress) (stop func()) {
	if w == nil {
		return func() {}
	}
	// Stopped when the first review is printed and again at the end: once is what counts.
	return sync.OnceFunc(progressLine(w, func(elapsed time.Duration) string {
		return fmt.Sprintf("reviewing: %d of %d objects (%s)", p.done.Load(), p.total.Load(), elapsed.Round(time.Second))
	}))
}

// report reviews the stream's n objects and prints each review as it is decided, then returns
// the exit status: the worst of the objects' outcomes. stopProgress clears the progress line
// before anything is printed.
func (o *reviewOptions) report(ctx context.Context, streams Streams, stream *review.Stream, n int, stopProgress func()) error {
	text := review.TextOptions{Color: useColor(o.color, streams.Out), Verbose: o.verbose}
	var exit exitTally
	if n == 1 && !o.list && !o.summary && o.output != outputMarkdown {
		var one *review.Outcome
		if err := stream.Review(ctx, func(r *review.Outcome) error { one = r; return nil }); err != nil {
			return badInput(err)
		}
		stopProgress()
		if one.Skipped == "" {
			return o.reportOne(streams, one, stream.Assumed(), text)
		}
		w, err := o.outcomeWriter(streams.Out, text)
		if err != nil {
			return err
		}
		exit.add(one)
		if err := w.Write(one); err != nil {
			return err
		}
		return o.finish(streams, w, stream.Assumed(), exit)
	}
	w, err := o.outcomeWriter(streams.Out, text)
	if err != nil {
		return err
	}
	if d, ok := w.(interface{ Discard() }); ok {
		defer d.Discard()
	}
	var writeErr error
	err = stream.Review(ctx, func(r *review.Outcome) error {
		if !o.summary || o.output != outputText {
			// Printed as decided: the progress line would be in its way. A summary is printed
			// at the end.
			stopProgress()
		}
		exit.add(r)
		writeErr = w.Write(r)
		return writeErr
	})
	stopProgress()
	switch {
	case writeErr != nil:
		return writeErr
	case err != nil:
		return badInput(err)
	}
	return o.finish(streams, w, stream.Assumed(), exit)
}

// reportOne prints one object's review (not a List) and returns its exit status.
func (o *reviewOptions) reportOne(streams Streams, r *review.Outcome, assumed []string, text review.TextOptions) error {
	if r.Err != nil {
		return badInput(r.Err)
	}
	var err error
	if o.output == outputText {
		if err = r.WriteText(streams.Out, text); err == nil {
			review.WriteAssumed(streams.Out, assumed)
		}
	} else {
		err = writeStructured(streams.Out, o.output, review.Single{Result: r.Result, Assumed: assumed})
	}
	if err != nil {
		return err
	}
	if !r.Result.Allowed {
		return &exitError{code: ExitRejected, err: errors.New("")}
	}
	return nil
}

// outcomeWriter writes several reviews as the flags say: a List (-o json|yaml), a summary, or
// each review's text.
type outcomeWriter interface {
	Write(*review.Outcome) error
	Close() error
}

func (o *reviewOptions) outcomeWriter(w io.Writer, text review.TextOptions) (outcomeWriter, error) {
	switch {
	case o.output == outputMarkdown:
		return review.NewMarkdownWriter(w), nil
	case o.output != outputText:
		return review.NewListWriter(w, o.output)
	case o.summary:
		return review.NewSummaryWriter(w, text), nil
	}
	return review.NewTextWriter(w, text), nil
}

// finish ends the output of several reviews — what was assumed of the cluster after the text,
// or on stderr after a List — and returns the exit status, each object that could not be
// reviewed said on stderr.
func (o *reviewOptions) finish(streams Streams, w outcomeWriter, assumed []string, exit exitTally) error {
	if err := w.Close(); err != nil {
		return err
	}
	switch o.output {
	case outputText:
		review.WriteAssumed(streams.Out, assumed)
	case outputMarkdown:
		if err := review.WriteMarkdownAssumed(streams.Out, assumed); err != nil {
			return err
		}
	default:
		for _, a := range assumed {
			fmt.Fprintf(streams.Err, "note: assumed %s\n", a)
		}
	}
	return exit.status(streams)
}

// exitTally is the exit status of several reviews as they are written: the worst of their
// outcomes, and the errors of the objects that could not be reviewed (said on stderr at the end,
// after the output).
type exitTally struct {
	code   int
	errors []string
}

func (t *exitTally) add(r *review.Outcome) {
	switch {
	case r.Err != nil:
		t.errors = append(t.errors, r.Err.Error())
		t.code = ExitBadInput
	case r.Skipped != "":
	case !r.Result.Allowed && t.code == ExitOK:
		t.code = ExitRejected
	}
}

func (t *exitTally) status(streams Streams) error {
	for _, e := range t.errors {
		fmt.Fprintf(streams.Err, "admit: %s\n", e)
	}
	if t.code != ExitOK {
		return &exitError{code: t.code, err: errors.New("")}
	}
	return nil
}

// useColor decides whether to colour: "always", "never", or "auto" (a terminal, and NO_COLOR unset).
func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
