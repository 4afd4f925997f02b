package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/config"
	"github.com/admitkit/admit/dispatch/convert"
	"github.com/admitkit/admit/dispatch/matchconditions"
	"github.com/admitkit/admit/resources"
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
	f.Int64Var(&o.maxRequestBodyBytes, "max-request-body-bytes", dispatch.DefaultMaxRequestBodyBytes, "kube-apiserver's --max-request-body-bytes: a larger object is refused with 413")
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

// reviewed is one object's review: its request, and its result or why it could not be reviewed.
type reviewed struct {
	source string
	// object is the object as read.
	object  *unstructured.Unstructured
	request *dispatch.Request
	result  *dispatch.Result
	err     error
	// took is how long the admission took.
	took time.Duration
}

// reviewedPolicies counts the admission policies and bindings among the objects under review.
func reviewedPolicies(reviews []*reviewed) int {
	n := 0
	for _, r := range reviews {
		if r.object != nil && isPolicy(r.object) {
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
	env, err := o.loadEnv(ctx, objects)
	if err != nil {
		return err
	}
	reviews, err := o.requests(objects, olds, env)
	if err != nil {
		return badInput(err)
	}
	if n := reviewedPolicies(reviews); n > 0 {
		// A policy applied with the objects may or may not be enforced on them (the apiserver
		// takes it up asynchronously): reviewed, it is not applied to the others.
		fmt.Fprintf(streams.Err, "note: the objects include %s, reviewed as objects: to apply them to the others, give them with --webhooks\n",
			plural(n, "admission policy or binding", "admission policies and bindings"))
	}
	engine, err := o.newEngine(ctx, streams, env, reviews, nil)
	if err != nil {
		return err
	}
	defer engine.close()
	o.admitAll(ctx, engine.dispatcher, reviews)
	return o.report(streams, reviews, engine.assumed)
}

// reviewEnv is what a run reads before it builds requests: the cluster state, the CRDs of the
// custom kinds, and the resources the objects map to.
type reviewEnv struct {
	state  *clusterState
	live   *liveCluster
	crds   []*apiextensionsv1.CustomResourceDefinition
	mapper *resources.Mapper
	// scales read the scale subresource of the resources that have one.
	scales *chain.Scales
}

// loadEnv reads the cluster state (files and --kubeconfig) and the CRDs, those among objects
// included. Its errors are ready to return.
func (o *reviewOptions) loadEnv(ctx context.Context, objects []inputObject) (*reviewEnv, error) {
	state, err := o.loadClusterState()
	if err != nil {
		return nil, badInput(err)
	}
	live, err := o.connect()
	if err != nil {
		return nil, badInput(err)
	}
	if err := live.readCRDs(ctx, state); err != nil {
		return nil, err
	}
	crds, err := o.loadCRDs(objects, state)
	if err != nil {
		return nil, badInput(err)
	}
	m, err := mapper(crds)
	if err != nil {
		return nil, badInput(err)
	}
	return &reviewEnv{state: state, live: live, crds: crds, mapper: m, scales: chain.NewScales(crds)}, nil
}

// reviewEngine runs admissions: a dispatcher with the webhooks and policies, around the chain
// unless --webhooks-only. close stops what it started.
type reviewEngine struct {
	dispatcher *dispatch.Dispatcher
	// assumed says what the chain assumed of the cluster.
	assumed []string
	closers []func()
}

func (e *reviewEngine) close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
}

// newEngine loads the webhook configurations and policies (or starts the built-in webhooks) and
// builds the dispatcher for reviews. caBundle, when not empty, is given to every webhook that
// has none (admit test's generated CA). Its errors are ready to return.
func (o *reviewOptions) newEngine(ctx context.Context, streams Streams, env *reviewEnv, reviews []*reviewed, caBundle []byte) (_ *reviewEngine, err error) {
	engine := &reviewEngine{}
	defer func() {
		if err != nil {
			engine.close() // what was started before the error
		}
	}()
	state := env.state
	resolver, resolved, err := parseResolve(o.resolve)
	if err != nil {
		return nil, badInput(err)
	}

	var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
	var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	if len(o.webhooks) > 0 {
		set, err := o.loadWebhooks(streams.In)
		if err != nil {
			return nil, badInput(err)
		}
		warnings, err := set.Validate()
		for _, w := range warnings {
			fmt.Fprintln(streams.Err, "warning:", w)
		}
		if err != nil {
			return nil, badInput(err)
		}
		mutating, validating = set.MutatingConfigs(), set.ValidatingConfigs()
		if o.caFile != "" {
			if caBundle, err = readCABundle(o.caFile); err != nil {
				return nil, badInput(err)
			}
		}
		if len(caBundle) > 0 {
			fillCABundles(mutating, validating, caBundle)
		}
		if !o.resolveDNS {
			if err := checkServicesResolved(mutating, validating, resolved); err != nil {
				return nil, badInput(err)
			}
		}
		for _, obj := range set.Others {
			if !isPolicy(obj.Object) {
				continue
			}
			// kube-apiserver refuses an invalid policy: it never reaches the chain.
			errs, kind, err := chain.PolicyErrors(obj.Object)
			if err == nil && len(errs) > 0 {
				err = apierrors.NewInvalid(kind, obj.Object.GetName(), errs)
			}
			if err != nil {
				return nil, badInput(fmt.Errorf("%s: %w", obj.Source, err))
			}
			state.policies = append(state.policies, obj)
		}
	} else {
		demo, err := startDemoWebhooks(ctx)
		if err != nil {
			return nil, fmt.Errorf("starting the built-in webhooks: %w", err)
		}
		engine.closers = append(engine.closers, demo.stop)
		mutating, validating = demo.mutating, demo.validating
	}

	opts := dispatch.Options{
		Mutating: mutating, Validating: validating, Resources: env.mapper,
		Conditions: matchconditions.Compiler(nil), ServiceResolver: resolver,
		MaxRequestBodyBytes: o.maxRequestBodyBytes,
	}
	if first, n := state.policyCount(); o.onlyHooks && n > 0 {
		// Policies run in kube-apiserver's own plugins, which are the chain: ignoring them would
		// admit what they deny.
		return nil, badInput(fmt.Errorf("--webhooks-only calls webhooks alone, but the input has %s (the first at %s): drop --webhooks-only to evaluate them",
			plural(n, "admission policy or binding", "admission policies and bindings"), first))
	}
	if o.onlyHooks {
		opts.Namespaces = state.staticNamespaces()
		if opts.Converter, err = convert.New(env.crds...); err != nil {
			return nil, badInput(err)
		}
	} else {
		if err := env.live.readState(ctx, state, reviews); err != nil {
			return nil, err
		}
		// The reviewed objects' namespaces exist unless the state is known to be whole.
		var assumedNamespaces []string
		if !o.completeState && o.kubeconfig == "" {
			assumedNamespaces = namespacesOf(reviews)
		}
		c, err := chain.New(ctx, chain.Config{
			Objects: state.withReviewed(reviews), Namespaces: assumedNamespaces, CRDs: env.crds,
			FieldManager: o.fieldManager, ServiceCIDR: o.serviceCIDR,
			DisallowPrivileged:     !o.allowPrivileged,
			EnableAdmissionPlugins: o.enablePlugins, DisableAdmissionPlugins: o.disablePlugins,
			AdmissionControlConfigFile: o.admissionConfigFile,
		})
		if err != nil {
			return nil, badInput(fmt.Errorf("the cluster state: %w", err))
		}
		engine.closers = append(engine.closers, c.Close)
		c.Apply(&opts)
		engine.assumed = c.Assumed()
	}
	if engine.dispatcher, err = dispatch.New(opts); err != nil {
		return nil, badInput(err)
	}
	return engine, nil
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

// maxConcurrentReviews bounds how many admissions run at once: webhooks are called in
// parallel across objects, as a cluster would receive them, without opening a connection per
// object of a large build.
const maxConcurrentReviews = 16

// admitAll runs every object's admission, concurrently; each result stays at its object's place.
func (o *reviewOptions) admitAll(ctx context.Context, d *dispatch.Dispatcher, reviews []*reviewed) {
	var done atomic.Int64
	stop := showProgress(o.progress, len(reviews), &done)
	defer stop()
	sem := make(chan struct{}, maxConcurrentReviews)
	var wg sync.WaitGroup
	for _, r := range reviews {
		if r.err != nil {
			done.Add(1)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; done.Add(1); wg.Done() }()
			reviewCtx, cancel := context.WithTimeout(ctx, o.timeout)
			defer cancel()
			start := time.Now()
			r.result, r.err = d.Admit(reviewCtx, r.request)
			r.took = time.Since(start)
		}()
	}
	wg.Wait()
}

// progressDelay is how long a run goes before it shows progress: a short run prints none.
const progressDelay = 2 * time.Second

// showProgress rewrites one line on the terminal w with how many of total objects are done,
// once the run has taken progressDelay; stop erases it. Without a terminal it does nothing.
func showProgress(w io.Writer, total int, done *atomic.Int64) (stop func()) {
	if w == nil {
		return func() {}
	}
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
				fmt.Fprintf(w, "\r\x1b[Kreviewing: %d of %d objects (%s)", done.Load(), total, time.Since(start).Round(time.Second))
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
func (o *reviewOptions) report(streams Streams, reviews []*reviewed, assumed []string) error {
	text := textOptions{color: useColor(o.color, streams.Out), verbose: o.verbose}
	if len(reviews) == 1 && !o.list && !o.summary {
		r := reviews[0]
		if r.err != nil {
			return badInput(r.err)
		}
		var err error
		if o.output == outputText {
			if err = printReviewText(streams.Out, r.request, r.result, text); err == nil {
				printAssumed(streams.Out, assumed)
			}
		} else {
			err = writeStructured(streams.Out, o.output, singleReview{Result: r.result, Assumed: assumed})
		}
		if err != nil {
			return err
		}
		if !r.result.Allowed {
			return &exitError{code: ExitRejected, err: errors.New("")}
		}
		return nil
	}

	var err error
	switch {
	case o.output != outputText:
		err = writeStructured(streams.Out, o.output, reviewList(reviews))
		for _, a := range assumed {
			fmt.Fprintf(streams.Err, "note: assumed %s\n", a)
		}
	case o.summary:
		if err = printReviewsSummary(streams.Out, reviews, text); err == nil {
			printAssumed(streams.Out, assumed)
		}
	default:
		if err = printReviewsText(streams.Out, reviews, text); err == nil {
			printAssumed(streams.Out, assumed)
		}
	}
	if err != nil {
		return err
	}
	code := ExitOK
	for _, r := range reviews {
		switch {
		case r.err != nil:
			fmt.Fprintf(streams.Err, "admit: %v\n", r.err)
			code = ExitBadInput
		case !r.result.Allowed && code == ExitOK:
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
	*dispatch.Result
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
	*dispatch.Result
}

// reviewListOutput is the JSON and YAML output of several objects, or of one with --list: a
// List, as kubectl prints several objects, whose items are the reviews in input order.
type reviewListOutput struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Items      []reviewEntry `json:"items"`
}

func reviewList(reviews []*reviewed) reviewListOutput {
	out := reviewListOutput{APIVersion: "v1", Kind: "List", Items: make([]reviewEntry, len(reviews))}
	for i, r := range reviews {
		e := reviewEntry{Source: r.source, Result: r.result}
		switch {
		case r.request != nil:
			e.Operation, e.Kind, e.Namespace, e.Name = r.request.Operation, r.request.Kind.Kind, r.request.Namespace, reviewedName(r)
		case r.object != nil:
			// Not reviewed: still say which object it is.
			e.Kind, e.Namespace, e.Name = r.object.GetKind(), r.object.GetNamespace(), r.object.GetName()
		}
		if r.err != nil {
			e.Error = r.err.Error()
		}
		out.Items[i] = e
	}
	return out
}

// requestName is the object's name as the request names it: the name the registry generates
// for a generateName CREATE.
func requestName(req *dispatch.Request) string {
	if req.Name == "" {
		return req.GeneratedName
	}
	return req.Name
}

// reviewedName is the object's name after admission: a name a mutating webhook gave a
// generateName CREATE, else the one the request names.
func reviewedName(r *reviewed) string {
	if r.result != nil && len(r.result.Object) > 0 {
		var head struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(r.result.Object, &head) == nil && head.Metadata.Name != "" {
			return head.Metadata.Name
		}
	}
	if r.request == nil {
		return ""
	}
	return requestName(r.request)
}

// loadCRDs reads the CustomResourceDefinitions of --crds, and those among the objects under
// review and the cluster state: a build that creates a CRD and its custom resources is reviewed
// as if applied together.
func (o *reviewOptions) loadCRDs(objects []inputObject, state *clusterState) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var found []*unstructured.Unstructured
	var sources []string
	if len(o.crds) > 0 {
		set, err := config.Load(config.Options{}, o.crds...)
		if err != nil {
			return nil, err
		}
		for _, obj := range set.Others {
			if isCRD(obj.Object) {
				found, sources = append(found, obj.Object), append(sources, obj.Source.String())
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("--crds %s: no CustomResourceDefinition found", strings.Join(o.crds, ", "))
		}
	}
	for _, obj := range state.objects {
		if isCRD(obj) {
			found, sources = append(found, obj), append(sources, "--cluster")
		}
	}
	for _, obj := range state.live {
		if isCRD(obj) {
			found, sources = append(found, obj), append(sources, "--kubeconfig")
		}
	}
	for _, in := range objects {
		if isCRD(in.object) {
			found, sources = append(found, in.object), append(sources, in.source.String())
		}
	}
	seen := map[string]bool{}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for i, obj := range found {
		if seen[obj.GetName()] {
			continue
		}
		seen[obj.GetName()] = true
		var crd apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &crd); err != nil {
			return nil, fmt.Errorf("%s: reading CustomResourceDefinition: %w", sources[i], err)
		}
		crds = append(crds, &crd)
	}
	return crds, nil
}

func isCRD(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition"
}

// mapper knows built-in kinds and the custom ones of crds.
func mapper(crds []*apiextensionsv1.CustomResourceDefinition) (*resources.Mapper, error) {
	mapper, err := resources.Builtin()
	if err != nil {
		return nil, err
	}
	if len(crds) == 0 {
		return mapper, nil
	}
	return mapper.WithCRDs(crds...)
}

// resolvedObject is an object read from the input with its kind's resource and namespace.
type resolvedObject struct {
	inputObject
	resource  resources.Resource
	namespace string
	json      []byte
}

// resolveObject finds the object's resource and namespace, and checks it decodes as its kind.
func (o *reviewOptions) resolveObject(in inputObject, mapper *resources.Mapper, types *runtime.Scheme) (*resolvedObject, error) {
	obj, source := in.object, in.source.String()
	gvk := obj.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, fmt.Errorf("%s: the object needs apiVersion and kind", source)
	}
	res, err := mapper.ResourceFor(gvk)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (custom kinds need --crds)", source, err)
	}
	namespace := obj.GetNamespace()
	switch {
	case res.GVR.Group == "" && res.GVR.Resource == "namespaces":
		namespace = obj.GetName() // a Namespace request carries its own name
	case !res.Namespaced:
		namespace = ""
	case namespace == "":
		namespace = o.namespace
		obj.SetNamespace(namespace)
	case o.namespaceGiven && namespace != o.namespace:
		// kubectl's check, in kubectl's words: -n names where to write, not a filter.
		return nil, fmt.Errorf("%s: the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", source, namespace, o.namespace, namespace)
	}
	objectJSON, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := decodesAsItsKind(types, source, gvk, objectJSON); err != nil {
		return nil, err
	}
	return &resolvedObject{inputObject: in, resource: res, namespace: namespace, json: objectJSON}, nil
}

func (r *resolvedObject) key() objectKey {
	gvk := r.object.GroupVersionKind()
	return objectKey{group: gvk.Group, kind: gvk.Kind, namespace: r.namespace, name: r.object.GetName()}
}

// requests builds the admission the apiserver would run for each object, pairing UPDATEs with
// their old objects. A problem with one object is kept with it (the others are still reviewed);
// problems with the flags or the old objects are returned.
func (o *reviewOptions) requests(objects, olds []inputObject, env *reviewEnv) ([]*reviewed, error) {
	mapper := env.mapper
	op := admissionv1.Operation(strings.ToUpper(o.operation))
	switch op {
	case "", admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
	default:
		return nil, fmt.Errorf("--operation %q: use CREATE, UPDATE, DELETE or CONNECT", o.operation)
	}
	if len(olds) > 0 && op != "" && op != admissionv1.Update {
		return nil, fmt.Errorf("--old is for UPDATE, not %s", op)
	}
	if op == admissionv1.Update && len(o.old) == 0 {
		return nil, errors.New("an UPDATE needs the existing object: give --old")
	}
	types := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(types); err != nil {
		return nil, fmt.Errorf("registering the built-in types: %w", err)
	}

	oldByKey := map[objectKey]*resolvedObject{}
	var oldOrder []objectKey
	for _, in := range olds {
		old, err := o.resolveObject(in, mapper, types)
		if err != nil {
			return nil, err
		}
		k := old.key()
		if first, dup := oldByKey[k]; dup {
			return nil, fmt.Errorf("%s: --old has %s twice (first at %s)", in.source, k, first.source)
		}
		oldByKey[k] = old
		oldOrder = append(oldOrder, k)
	}

	used := map[objectKey]bool{}
	reviews := make([]*reviewed, len(objects))
	for i, in := range objects {
		r := &reviewed{source: in.source.String(), object: in.object}
		reviews[i] = r
		if body, parent, ok := o.subresourceBody(in, mapper, oldByKey); ok {
			// The subresource's own kind (a Scale, an Eviction, a Binding), on its parent.
			if parent != nil {
				used[parent.key()] = true
			}
			r.request, r.err = o.subresourceRequest(body, parent, op, env.scales)
			continue
		}
		obj, err := o.resolveObject(in, mapper, types)
		if err != nil {
			r.err = err
			continue
		}
		old := oldByKey[obj.key()]
		if old != nil {
			used[obj.key()] = true
		}
		r.request, r.err = o.request(obj, old, op)
		if r.err == nil && o.subresource == "scale" {
			// The changed parent stands for the Scale a client sends: its replicas on the
			// stored parent's Scale.
			r.request, r.err = scaleFromParent(r.request, obj, old, env.scales)
		}
	}
	for _, k := range oldOrder {
		if !used[k] {
			return nil, fmt.Errorf("%s: --old has %s, which is not among the objects to review (an UPDATE pairs objects of the same kind, namespace and name)", oldByKey[k].source, k)
		}
	}
	return reviews, nil
}

// request builds the admission for one object, an UPDATE of old when old is not nil.
func (o *reviewOptions) request(obj, old *resolvedObject, op admissionv1.Operation) (*dispatch.Request, error) {
	source, res, gvk := obj.source.String(), obj.resource, obj.object.GroupVersionKind()
	if op == "" {
		op = admissionv1.Create
		if old != nil {
			op = admissionv1.Update
		}
	}
	if op == admissionv1.Update && old == nil {
		return nil, fmt.Errorf("%s: no --old object for %s: an UPDATE needs the existing object", source, obj.key())
	}
	if o.subresource != "" {
		if _, ok := res.Subresource(o.subresource); !ok {
			return nil, fmt.Errorf("--subresource %q: %s has no such subresource", o.subresource, res.GVR.GroupResource())
		}
	}
	dryRun, _ := parseDryRun(o.dryRun) // checked by checkValues
	req := &dispatch.Request{
		Kind: gvk, Resource: res.GVR, SubResource: o.subresource, Name: obj.object.GetName(), Namespace: obj.namespace,
		Operation: op, DryRun: dryRun,
		UserInfo: authenticationv1.UserInfo{Username: o.user, Groups: o.groups},
	}
	options, err := o.requestOptions(op, dryRun)
	if err != nil {
		return nil, err
	}
	req.Options = options
	if op == admissionv1.Create && req.Name == "" && !res.Anonymous() {
		if obj.object.GetGenerateName() == "" {
			return nil, fmt.Errorf("%s: the object needs metadata.name or metadata.generateName", source)
		}
		req.GeneratedName = obj.object.GetGenerateName() + randomSuffix()
	}
	switch op {
	case admissionv1.Delete:
		req.OldObject = obj.json
	default:
		req.Object = obj.json
	}
	if old != nil {
		req.OldObject = old.json
	}
	return req, nil
}

// decodesAsItsKind rejects a built-in object that does not decode into its Go type, with the
// message kube-apiserver answers such a write with (400 BadRequest) before admission starts.
// The dispatcher relies on it: it checks a patched object only where the patch wrote.
func decodesAsItsKind(types *runtime.Scheme, source string, gvk schema.GroupVersionKind, object []byte) error {
	typed, err := types.New(gvk)
	if err != nil {
		return nil // a custom kind: its schema is the apiserver's business
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(object, typed); err != nil {
		return fmt.Errorf("%s: %s in version %q cannot be handled as a %s: %w", source, gvk.Kind, gvk.Version, gvk.Kind, err)
	}
	return nil
}

// randomSuffix is what the apiserver appends to generateName: five characters.
func randomSuffix() string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return string(b)
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
