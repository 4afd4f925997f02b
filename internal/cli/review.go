package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
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
	f := cmd.Flags()
	f.StringArrayVarP(&o.files, "filename", "f", nil, `objects to admit: files, directories or "-" for stdin (YAML or JSON; repeatable)`)
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
	onceStringVar(f, &o.caFile, "ca-file", "", "the caBundle of webhooks whose configuration has none (as cert-manager's CA injector fills it): a PEM file")
	f.StringArrayVar(&o.resolve, "resolve", nil, "NAMESPACE/SERVICE=HOST:PORT: where to reach a service webhook (repeatable); every service the webhooks call needs one")
	f.BoolVar(&o.resolveDNS, "resolve-dns", false, "look up the services without --resolve by their cluster DNS names (NAME.NAMESPACE.svc), as inside a cluster")
	f.StringVar(&o.color, "color", "auto", "colour the text diff: auto, always or never")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list every step of the chain, also webhooks not called and plugins that changed nothing, and the whole change to the stored object")
	f.BoolVar(&o.list, "list", false, "with -o json|yaml, print a List even for one object, so that scripts read one shape")
	f.BoolVar(&o.summary, "summary", false, "print one line per object and the totals instead of each object's steps")
	f.StringVar(&o.fieldManager, "field-manager", chain.DefaultFieldManager, "the writer managedFields name, as the apiserver takes it from the client (kubectl apply: kubectl-client-side-apply)")
	f.StringVar(&o.serviceCIDR, "service-cidr", chain.DefaultServiceCIDR, "the range Services get cluster IPs from")
	onceStringVar(f, &o.kubeconfig, "kubeconfig", "", "read the cluster state from this cluster (read-only, never Secrets): its Namespaces, PriorityClasses, Storage/Ingress/RuntimeClasses, CRDs, and the ServiceAccounts, LimitRanges and ResourceQuotas of the reviewed objects' namespaces")
	f.BoolVar(&o.allowPrivileged, "allow-privileged", true, "kube-apiserver's --allow-privileged: whether pods may run privileged containers (true in kubeadm, kind and managed clusters; a bare kube-apiserver's default is false)")
	f.StringSliceVar(&o.enablePlugins, "enable-admission-plugins", nil, "kube-apiserver's --enable-admission-plugins: admission plugins run beyond its defaults, e.g. AlwaysPullImages,PodNodeSelector")
	f.StringSliceVar(&o.disablePlugins, "disable-admission-plugins", nil, "kube-apiserver's --disable-admission-plugins: default admission plugins that do not run")
	onceStringVar(f, &o.admissionConfigFile, "admission-control-config-file", "", "kube-apiserver's --admission-control-config-file: an AdmissionConfiguration with the plugins' configurations (PodSecurity's defaults and exemptions, ...)")
	f.Int64Var(&o.maxRequestBodyBytes, "max-request-body-bytes", engine.DefaultMaxRequestBodyBytes, "kube-apiserver's --max-request-body-bytes: a larger object is refused with 413")
	f.BoolVar(&o.completeState, "complete-state", false, "the cluster state given (--cluster, --namespaces) is the whole cluster: an object in a namespace it does not have gets the apiserver's 404, as with --kubeconfig, instead of the namespace being assumed")
	f.BoolVar(&o.onlyHooks, "webhooks-only", false, "call the webhooks with the objects as given and as patched, without kube-apiserver's decoding, defaulting, built-in admission plugins and preparation")
	for _, alias := range []string{"user", "group", "timeout"} {
		// The first names of these flags, kept for the scripts that use them.
		f.Lookup(alias).Hidden = true
	}
	_ = cmd.MarkFlagFilename("ca-file")
	_ = cmd.MarkFlagFilename("admission-control-config-file")
	_ = cmd.MarkFlagFilename("kubeconfig")
	_ = cmd.RegisterFlagCompletionFunc("dry-run", fixedCompletion("none", "server", "client"))
	_ = cmd.RegisterFlagCompletionFunc("validate", fixedCompletion("strict", "warn", "ignore"))
	addOutputFlag(cmd, &o.output)
	_ = cmd.RegisterFlagCompletionFunc("operation", fixedCompletion("CREATE", "UPDATE", "DELETE", "CONNECT"))
	return cmd
}

// reviewedPolicies counts the admission policies and bindings among the objects under review.
func reviewedPolicies(outcomes []*review.Outcome) int {
	n := 0
	for _, o := range outcomes {
		if o.Object != nil && review.IsPolicy(o.Object) {
			n++
		}
	}
	return n
}

func (o *reviewOptions) run(ctx context.Context, streams Streams) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	if err := o.checkValues(); err != nil {
		return badInput(err)
	}
	if len(o.files) == 0 {
		return badInput(errors.New("nothing to review: give objects with -f FILE|DIR|- or as arguments"))
	}
	objects, err := readObjects(o.files, o.recursive, streams.In)
	if err != nil {
		return badInput(err)
	}
	if len(objects) == 0 {
		return badInput(fmt.Errorf("%s: no objects to review", strings.Join(o.files, ", ")))
	}
	olds, err := readObjects(o.old, o.recursive, streams.In)
	if err != nil {
		return badInput(err)
	}
	cfg, closeWebhooks, err := o.sessionConfig(ctx, streams, objects, nil)
	if err != nil {
		return err
	}
	defer closeWebhooks()
	session, err := review.New(cfg, objects)
	if err != nil {
		return badInput(err)
	}
	outcomes, err := session.Requests(objects, olds, o.write())
	if err != nil {
		return badInput(err)
	}
	if n := reviewedPolicies(outcomes); n > 0 {
		// A policy applied with the objects may or may not be enforced on them (the apiserver
		// takes it up asynchronously): reviewed, it is not applied to the others.
		fmt.Fprintf(streams.Err, "note: the objects include %s, reviewed as objects: to apply them to the others, give them with --webhooks\n",
			plural(n, "admission policy or binding", "admission policies and bindings"))
	}
	stop := showProgress(o.progress, len(outcomes), session)
	err = session.Admit(ctx, outcomes)
	stop()
	if err != nil {
		return badInput(err)
	}
	return o.report(streams, outcomes, session.Assumed())
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

// sessionConfig reads what the flags name — the webhook configurations and policies (or starts
// the built-in webhooks), the cluster state of files and of --kubeconfig, the CRDs — into a
// review.Config. caBundle, when not empty, is given to every webhook that has none (admit test's
// generated CA). closeWebhooks stops the built-in webhooks. Its errors are ready to return.
func (o *reviewOptions) sessionConfig(ctx context.Context, streams Streams, objects []review.Input, caBundle []byte) (_ review.Config, closeWebhooks func(), err error) {
	closeWebhooks = func() {}
	resolver, resolved, err := parseResolve(o.resolve)
	if err != nil {
		return review.Config{}, nil, badInput(err)
	}
	cfg := review.Config{
		WebhooksOnly: o.onlyHooks, CompleteState: o.completeState || o.kubeconfig != "",
		FieldManager: o.fieldManager, ServiceResolver: resolver, Timeout: o.timeout,
		Terms: review.Terms{OldObjects: "--old", CRDs: "--crds"},
		APIServer: review.APIServerOptions{
			DisallowPrivileged: !o.allowPrivileged, EnableAdmissionPlugins: o.enablePlugins, DisableAdmissionPlugins: o.disablePlugins,
			AdmissionControlConfigFile: o.admissionConfigFile, MaxRequestBodyBytes: o.maxRequestBodyBytes, ServiceCIDR: o.serviceCIDR,
		},
	}
	if len(o.webhooks) > 0 {
		set, err := o.loadWebhooks(streams.In)
		if err != nil {
			return review.Config{}, nil, badInput(err)
		}
		warnings, err := set.Validate()
		for _, w := range warnings {
			fmt.Fprintln(streams.Err, "warning:", w)
		}
		if err != nil {
			return review.Config{}, nil, badInput(err)
		}
		cfg.Mutating, cfg.Validating = set.MutatingConfigs(), set.ValidatingConfigs()
		if o.caFile != "" {
			if caBundle, err = readCABundle(o.caFile); err != nil {
				return review.Config{}, nil, badInput(err)
			}
		}
		if len(caBundle) > 0 {
			fillCABundles(cfg.Mutating, cfg.Validating, caBundle)
		}
		if !o.resolveDNS {
			if err := checkServicesResolved(cfg.Mutating, cfg.Validating, resolved); err != nil {
				return review.Config{}, nil, badInput(err)
			}
		}
		for _, obj := range set.Others {
			if review.IsPolicy(obj.Object) {
				cfg.Policies = append(cfg.Policies, review.Input{Source: obj.Source.String(), Object: obj.Object})
			}
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
	if cfg.Cluster, err = o.loadClusterState(); err != nil {
		return review.Config{}, nil, badInput(err)
	}
	if cfg.CRDs, err = o.loadCRDs(); err != nil {
		return review.Config{}, nil, badInput(err)
	}
	if cfg.Live, err = o.readLive(ctx, objects); err != nil {
		return review.Config{}, nil, err
	}
	return cfg, closeWebhooks, nil
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

// progressDelay is how long a run goes before it shows progress: a short run prints none.
const progressDelay = 2 * time.Second

// progress is what showProgress reads: how many objects are done.
type progress struct {
	done, total atomic.Int64
}

// showProgress rewrites one line on the terminal w with how many objects are done, once the
// run has taken progressDelay; stop erases it. Without a terminal it does nothing. It installs
// itself as the session's progress callback.
func showProgress(w io.Writer, total int, session *review.Session) (stop func()) {
	if w == nil {
		return func() {}
	}
	var p progress
	p.total.Store(int64(total))
	session.OnProgress(func(done, _ int) { p.done.Store(int64(done)) })
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-quit:
				if shown {
					fmt.Fprint(w, "\r\x1b[K")
				}
				return
			case <-tick.C:
				if time.Since(start) < progressDelay {
					continue
				}
				shown = true
				fmt.Fprintf(w, "\r\x1b[Kreviewing: %d of %d objects (%s)", p.done.Load(), p.total.Load(), time.Since(start).Round(time.Second))
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

// report prints the reviews and returns the exit status: the worst of the objects' outcomes.
// assumed says what the chain assumed of the cluster.
func (o *reviewOptions) report(streams Streams, outcomes []*review.Outcome, assumed []string) error {
	text := textOptions{color: useColor(o.color, streams.Out), verbose: o.verbose}
	if len(outcomes) == 1 && !o.list && !o.summary {
		r := outcomes[0]
		if r.Err != nil {
			return badInput(r.Err)
		}
		var err error
		if o.output == outputText {
			if err = printReviewText(streams.Out, r.Request, r.Result, text); err == nil {
				printAssumed(streams.Out, assumed)
			}
		} else {
			err = writeStructured(streams.Out, o.output, singleReview{Result: r.Result, Assumed: assumed})
		}
		if err != nil {
			return err
		}
		if !r.Result.Allowed {
			return &exitError{code: ExitRejected, err: errors.New("")}
		}
		return nil
	}

	var err error
	switch {
	case o.output != outputText:
		err = writeStructured(streams.Out, o.output, reviewList(outcomes))
		for _, a := range assumed {
			fmt.Fprintf(streams.Err, "note: assumed %s\n", a)
		}
	case o.summary:
		if err = printReviewsSummary(streams.Out, outcomes, text); err == nil {
			printAssumed(streams.Out, assumed)
		}
	default:
		if err = printReviewsText(streams.Out, outcomes, text); err == nil {
			printAssumed(streams.Out, assumed)
		}
	}
	if err != nil {
		return err
	}
	code := ExitOK
	for _, r := range outcomes {
		switch {
		case r.Err != nil:
			fmt.Fprintf(streams.Err, "admit: %v\n", r.Err)
			code = ExitBadInput
		case !r.Result.Allowed && code == ExitOK:
			code = ExitRejected
		}
	}
	if code != ExitOK {
		return &exitError{code: code, err: errors.New("")}
	}
	return nil
}

// singleReview is the JSON and YAML output of one object: the review contract, and what was
// assumed of the cluster.
type singleReview struct {
	*engine.Result
	Assumed []string `json:"assumed,omitempty"`
}

// printAssumed says what the review took for granted about the cluster.
func printAssumed(w io.Writer, assumed []string) {
	if len(assumed) == 0 {
		return
	}
	fmt.Fprintln(w, "\nAssumed of the cluster (--cluster gives its state):")
	for _, a := range assumed {
		fmt.Fprintf(w, "  - %s\n", a)
	}
}

// reviewEntry is one object in the JSON and YAML output of several objects: which object, then
// the review contract's fields, or the error that kept it from being reviewed.
type reviewEntry struct {
	Source    string                `json:"source"`
	Operation admissionv1.Operation `json:"operation,omitempty"`
	Kind      string                `json:"kind,omitempty"`
	Namespace string                `json:"namespace,omitempty"`
	Name      string                `json:"name,omitempty"`
	Error     string                `json:"error,omitempty"`
	*engine.Result
}

// reviewListOutput is the JSON and YAML output of several objects, or of one with --list: a
// List, as kubectl prints several objects, whose items are the reviews in input order.
type reviewListOutput struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Items      []reviewEntry `json:"items"`
}

func reviewList(outcomes []*review.Outcome) reviewListOutput {
	out := reviewListOutput{APIVersion: "v1", Kind: "List", Items: make([]reviewEntry, len(outcomes))}
	for i, r := range outcomes {
		e := reviewEntry{Source: r.Source, Result: r.Result}
		switch {
		case r.Request != nil:
			e.Operation, e.Kind, e.Namespace, e.Name = r.Request.Operation, r.Request.Kind.Kind, r.Request.Namespace, r.Name()
		case r.Object != nil:
			// Not reviewed: still say which object it is.
			e.Kind, e.Namespace, e.Name = r.Object.GetKind(), r.Object.GetNamespace(), r.Object.GetName()
		}
		if r.Err != nil {
			e.Error = r.Err.Error()
		}
		out.Items[i] = e
	}
	return out
}

// parseResolve reads NAMESPACE/SERVICE=HOST:PORT mappings into a service resolver.
// parseResolve reads --resolve: the resolver, and the services it resolves (NAMESPACE/NAME).
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
