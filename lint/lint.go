package lint

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/resources"
)

// Well-known keys. The runlevel key is a label on namespaces and an annotation on webhook
// configurations; see the package documentation.
const (
	// RunlevelLabel labels a namespace with its runlevel and, as an annotation, declares a
	// webhook configuration's own runlevel.
	RunlevelLabel = "admit.dev/runlevel"
	// DisableAnnotation on a webhook configuration lists rules (IDs or names, comma-separated)
	// that do not apply to it, e.g. "B07,match-policy-exact".
	DisableAnnotation = "admit.dev/lint-disable"
)

// DefaultRunlevelLabels are the namespace labels read as runlevels, first found wins:
// admit's own, the bare "runlevel" of the Kubernetes webhook-bootstrapping design, and
// OpenShift's.
func DefaultRunlevelLabels() []string {
	return []string{RunlevelLabel, "runlevel", "openshift.io/run-level"}
}

// defaultWebhookRunlevel is the level of a configuration that declares none and whose server's
// namespace has no runlevel label: the level the scheme gives webhook servers.
const defaultWebhookRunlevel = 2

// Options tune Run. The zero value is ready to use.
type Options struct {
	// Now is the clock certificates are checked against; default time.Now.
	Now func() time.Time
	// Resources knows the cluster's resources, for rule matching; default resources.Builtin().
	// CustomResourceDefinitions in the input are added to it.
	Resources *resources.Mapper
	// Disable lists rules (IDs or names; entries may be comma-separated) whose findings are
	// marked SuppressedByOption.
	Disable []string
	// RequestTimeout is the deadline of an API request (kube-apiserver --request-timeout);
	// default 60 s.
	RequestTimeout time.Duration
	// ExpiryWarning is how long before a certificate expires rule E02 warns; default 30 days.
	ExpiryWarning time.Duration
	// RunlevelLabels are the namespace labels read as runlevels, first found wins; default
	// DefaultRunlevelLabels().
	RunlevelLabels []string
	// Policies validates and type-checks admission policies, and type-checks webhooks' match
	// conditions, with Kubernetes' own code and schemas (package chain's PolicyChecker).
	// Without it, policies are checked by the other F rules only, and C06 does not run.
	Policies PolicyChecker
	// Surroundings, when set, are the objects around the configurations, read as they were
	// loaded (config.Options.Others); the Set's Others are then not read again for them.
	Surroundings *Surroundings
}

// analysis is one run: the options resolved, the input indexed.
type analysis struct {
	now            time.Time
	requestTimeout time.Duration
	expiryWarning  time.Duration
	runlevelLabels []string
	mapper         *resources.Mapper
	inv            *inventory
	// configs are the configurations the cluster would hold: of several with one kind and
	// name, the last replaces the others (as applying them in order does). all keeps every
	// one, for the checks of the input itself (A01).
	configs []*configuration
	all     []*configuration
	// controlPlaneWrites model the writes the control plane makes; hot are those D01 weighs.
	controlPlaneWrites []controlPlaneWrite
	hot                []write
	// roles are the ClusterRoles of the cluster: the built-in ones and the input's.
	roles map[string]*rbacv1.ClusterRole
	// builtin holds the resources Kubernetes itself serves, as opposed to custom resources,
	// and builtinGroups their API groups.
	builtin       map[schema.GroupResource]bool
	builtinGroups map[string]bool
	requests      []request
	policies      []*admissionPolicy
	bindings      []*policyBinding
	checker       PolicyChecker
}

// finding is what a check reports; Run completes it with the rule and the configuration.
type finding struct {
	config  *configuration
	webhook *webhook // nil for findings about the configuration as a whole
	field   string
	// severity overrides the rule's for rules that grade; 0 keeps the rule's.
	severity      Severity
	message, hint string
}

// check is a rule and the function that applies it.
type check struct {
	rule Rule
	run  func(a *analysis) []finding
}

// checks pairs every rule with its implementation.
func checks() []check {
	impl := map[string]func(*analysis) []finding{
		"A01": checkInvalid, "A02": checkAPIServerWarnings,
		"B01": checkKubeSystem, "B02": checkOwnNamespace, "B03": checkLowerRunlevel, "B04": checkCycles,
		"B05": checkNodeLeases, "B06": checkVirtualResources, "B07": checkReplicas, "B08": checkDisruptionBudget,
		"B09": checkService, "B10": checkWorkloads, "B11": checkAddonNamespaces, "B12": checkNodeWrites,
		"C01": checkWildcards, "C02": checkMatchConditions, "C03": checkMatchPolicy, "C04": checkMirrorPods, "C05": checkUnservedResources, "C06": checkConditionTypes,
		"D01": checkTimeout, "D02": checkChainDeadline,
		"E01": checkCABundlePEM, "E02": checkExpiry, "E03": checkNames, "E04": checkSHA1, "E05": checkEmptyCABundle,
		"F01": checkBindingWithoutPolicy, "F02": checkParams, "F03": checkPolicyKubeSystem, "F04": checkPolicyOnOwnParams,
		"F05": checkPolicyTypes, "F06": checkWarnOnlyBinding, "F07": checkUnboundPolicy, "F08": checkParamRefMismatch,
		"F09": checkParamScope,
	}
	var out []check
	for _, r := range Rules() {
		out = append(out, check{rule: r, run: impl[r.ID]})
	}
	return out
}

// Run lints the webhook configurations of set, using the other objects of the set (Namespaces,
// Services, Deployments, PodDisruptionBudgets, Secrets, Certificates, CRDs) as their
// surroundings. It returns every finding, suppressed ones marked, ordered by configuration (by
// file name, then position in the file), field and rule; use AtLeast for those that count.
//
// It fails on bad options (an unknown rule in Disable) and on input it cannot read: an object
// of a kind it uses that does not decode, an unknown rule in a DisableAnnotation.
func Run(set *config.Set, opts Options) ([]Finding, error) {
	if set == nil {
		return nil, errors.New("lint: no configurations to lint (nil set)")
	}
	index := lookupRules(Rules())
	optionDisabled, unknown := resolveRuleList(index, opts.Disable)
	if len(unknown) > 0 {
		return nil, errUnknownRules("disabled rules", unknown)
	}
	a, err := newAnalysis(set, opts, index)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, c := range checks() {
		for _, f := range c.run(a) {
			out = append(out, complete(c.rule, f, optionDisabled))
		}
	}
	slices.SortStableFunc(out, compareFindings(a.all))
	return out, nil
}

func newAnalysis(set *config.Set, opts Options, index map[string]string) (*analysis, error) {
	a := &analysis{
		now:            time.Now(),
		requestTimeout: cmp.Or(opts.RequestTimeout, 60*time.Second),
		expiryWarning:  cmp.Or(opts.ExpiryWarning, 30*24*time.Hour),
		runlevelLabels: opts.RunlevelLabels,
	}
	if opts.Now != nil {
		a.now = opts.Now()
	}
	if len(a.runlevelLabels) == 0 {
		a.runlevelLabels = DefaultRunlevelLabels()
	}
	inv, err := inventoryOf(set, opts.Surroundings)
	if err != nil {
		return nil, err
	}
	a.inv = inv
	a.roles = clusterRoles(inv.clusterRoles)
	mapper := opts.Resources
	if mapper == nil {
		if mapper, err = resources.Builtin(); err != nil {
			return nil, err
		}
	}
	if len(inv.crds) > 0 {
		if mapper, err = mapper.WithCRDs(inv.crds...); err != nil {
			return nil, fmt.Errorf("adding the input's CustomResourceDefinitions: %w", err)
		}
	}
	a.mapper = mapper
	if a.builtin, err = builtinResources(); err != nil {
		return nil, err
	}
	a.builtinGroups = map[string]bool{}
	for gr := range a.builtin {
		a.builtinGroups[gr.Group] = true
	}
	a.controlPlaneWrites = controlPlaneWrites(mapper)
	if a.configs, err = buildConfigurations(set, inv, index); err != nil {
		return nil, err
	}
	policyConfigs, policies, bindings, err := buildPolicies(set, inv, opts.Policies)
	if err != nil {
		return nil, err
	}
	if err := applyDisableAnnotations(policyConfigs, index); err != nil {
		return nil, err
	}
	a.configs = append(a.configs, policyConfigs...)
	a.all, a.configs = a.configs, effective(a.configs)
	a.policies, a.bindings, a.checker = policies, bindings, opts.Policies
	return a, nil
}

// complete turns a check's finding into a Finding.
func complete(rule Rule, f finding, optionDisabled map[string]bool) Finding {
	out := Finding{
		Rule: rule.ID, Name: rule.Name, Severity: cmp.Or(f.severity, rule.Severity),
		Kind: f.config.kind, Configuration: f.config.name, Field: f.field,
		File: f.config.source.File, Line: f.config.source.Line, ConfigurationLine: f.config.source.Line,
		Message: f.message, Hint: f.hint,
	}
	if pos, _, ok := f.config.source.Field(f.field); ok {
		out.Line, out.Column = pos.Line, pos.Column
	}
	if f.webhook != nil {
		out.Webhook = f.webhook.spec.Name
	}
	switch {
	case f.config.disabled[rule.ID]:
		out.Suppressed = SuppressedByAnnotation
	case optionDisabled[rule.ID]:
		out.Suppressed = SuppressedByOption
	}
	return out
}

// compareFindings orders findings by configuration (input order), then webhook (findings about
// the configuration as a whole first), rule, field and message.
func compareFindings(configs []*configuration) func(x, y Finding) int {
	position := map[[2]string]int{}
	for i, c := range configs {
		key := [2]string{c.kind, c.name}
		if _, seen := position[key]; !seen {
			position[key] = i
		}
	}
	return func(x, y Finding) int {
		return cmp.Or(
			cmp.Compare(position[[2]string{x.Kind, x.Configuration}], position[[2]string{y.Kind, y.Configuration}]),
			cmp.Compare(x.File, y.File), cmp.Compare(x.ConfigurationLine, y.ConfigurationLine),
			cmp.Compare(webhookIndex(x.Field), webhookIndex(y.Field)),
			cmp.Compare(x.Rule, y.Rule),
			compareFieldPaths(x.Field, y.Field),
			cmp.Compare(x.Message, y.Message),
		)
	}
}

// webhookIndex reads i from a field path "webhooks[i]...", -1 for other paths.
func webhookIndex(path string) int {
	rest, ok := strings.CutPrefix(path, "webhooks[")
	if !ok {
		return -1
	}
	digits, _, _ := strings.Cut(rest, "]")
	i, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return i
}

// compareFieldPaths orders paths with their indexes as numbers: webhooks[2] before webhooks[10].
func compareFieldPaths(x, y string) int {
	for x != "" && y != "" {
		xs, xrest := leadingRun(x)
		ys, yrest := leadingRun(y)
		if isDigit(xs[0]) && isDigit(ys[0]) {
			if c := cmp.Or(cmp.Compare(len(xs), len(ys)), cmp.Compare(xs, ys)); c != 0 {
				return c
			}
		} else if c := cmp.Compare(xs, ys); c != 0 {
			return c
		}
		x, y = xrest, yrest
	}
	return cmp.Compare(len(x), len(y))
}

// leadingRun splits s after its first run of digits or of non-digits.
func leadingRun(s string) (run, rest string) {
	digits := isDigit(s[0])
	i := 1
	for i < len(s) && isDigit(s[i]) == digits {
		i++
	}
	return s[:i], s[i:]
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// builtinResources lists the resources kube-apiserver serves itself.
func builtinResources() (map[schema.GroupResource]bool, error) {
	mapper, err := resources.Builtin()
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupResource]bool{}
	for _, r := range mapper.Resources() {
		out[r.GVR.GroupResource()] = true
	}
	return out, nil
}

// effective drops the configurations a later one of the same kind and name replaces, so that
// a configuration given twice (two releases of a project, a file and its copy) is checked
// once, as the cluster would hold it.
func effective(configs []*configuration) []*configuration {
	last := map[[2]string]int{}
	for i, c := range configs {
		last[[2]string{c.kind, c.name}] = i
	}
	var out []*configuration
	for i, c := range configs {
		if c.name == "" || last[[2]string{c.kind, c.name}] == i {
			out = append(out, c)
		}
	}
	return out
}

// inventoryOf is what the rules read of the objects around the configurations: read as they were
// loaded, or from the Set.
func inventoryOf(set *config.Set, read *Surroundings) (*inventory, error) {
	if read == nil {
		return newInventory(set)
	}
	return read.inv, read.err
}
