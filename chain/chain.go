package chain

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/kubelog"
	"github.com/admitkit/admit/resources"
)

// Config is what a Chain knows of the cluster it stands for.
type Config struct {
	// Objects are the cluster's state that admission reads: Namespaces, ServiceAccounts,
	// PriorityClasses, LimitRanges, ResourceQuotas, StorageClasses, IngressClasses,
	// RuntimeClasses; the admission policies and their bindings
	// (ValidatingAdmissionPolicy, MutatingAdmissionPolicy); the policies' parameters, of any
	// kind, custom resources of CRDs included. Typed client-go objects or unstructured ones.
	Objects []runtime.Object
	// CRDs are the CustomResourceDefinitions whose custom resources are admitted: their schemas
	// prune, default and validate, and their conversion converts.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// Conversion places the conversion webhooks of the CRDs that convert with strategy Webhook.
	Conversion Conversion
	// Namespaces are namespaces that exist although Objects do not list them, as a fresh
	// cluster's namespaces do: typically those of the objects to admit. Each gets its name label
	// and a default ServiceAccount.
	Namespaces []string
	// DisallowPrivileged is kube-apiserver's --allow-privileged=false (its flag's default), under
	// which the pod validation refuses privileged containers. The default here is what kubeadm,
	// kind and managed clusters run with: privileged containers allowed. Kubernetes' code holds
	// this process-wide: the first Chain of a process sets it, and a later Chain that asks for
	// the other setting is refused.
	DisallowPrivileged bool
	// EnableAdmissionPlugins and DisableAdmissionPlugins are kube-apiserver's
	// --enable-admission-plugins and --disable-admission-plugins: plugins run beyond its
	// defaults, and defaults that do not run.
	EnableAdmissionPlugins, DisableAdmissionPlugins []string
	// AdmissionControlConfigFile is kube-apiserver's --admission-control-config-file: an
	// AdmissionConfiguration whose plugins' configurations (PodSecurity's defaults and
	// exemptions, EventRateLimit's limits, ...) the plugins read.
	AdmissionControlConfigFile string
	// FieldManager names the writer in managedFields when a request's options name none (the
	// apiserver takes the client's user agent); default DefaultFieldManager.
	FieldManager string
	// ServiceCIDR is the range Services get cluster IPs from; default DefaultServiceCIDR.
	ServiceCIDR string
	// Now is the clock of creation timestamps; default time.Now. NewUID gives the uid of each
	// created object; default random UUIDs.
	Now    func() time.Time
	NewUID func(req *engine.Request) string

	// beforeSchemaListing, when set, runs as a mutating policy plugin starts listing the API's
	// OpenAPI schemas: tests slow the listing with it.
	beforeSchemaListing func()
}

// Chain is kube-apiserver's admission path around the webhooks: its Steps go into an
// engine.Pipeline with the webhooks' steps. It is safe for concurrent admissions. Close stops it.
type Chain struct {
	codec    *codec
	preparer *preparer
	cluster  *cluster
	// authorizer answers what a request's user may do (newAuthorizer).
	authorizer *Authorizer
	before     []engine.Step
	after      []engine.ValidatingStep
	// policyClusters are the clusters of the admission policy plugins, one per binding.
	policyClusters []*cluster
}

// New builds the chain for cfg: the cluster state, the built-in admission plugins initialized
// on it (their informers started and synced), the codec and the registry's preparation.
func New(ctx context.Context, cfg Config) (*Chain, error) {
	// Kubernetes' admission code logs its informers and quota evaluators through klog: quiet
	// unless the program routed it (package kubelog).
	kubelog.Quiet()
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewUID == nil {
		cfg.NewUID = func(*engine.Request) string { return uuid.NewString() }
	}
	if err := setupCapabilities(!cfg.DisallowPrivileged); err != nil {
		return nil, err
	}
	selection, err := selectPlugins(cfg.EnableAdmissionPlugins, cfg.DisableAdmissionPlugins)
	if err != nil {
		return nil, err
	}
	configs, err := readAdmissionConfiguration(cfg.AdmissionControlConfigFile)
	if err != nil {
		return nil, err
	}
	if cfg.ServiceCIDR == "" {
		cfg.ServiceCIDR = DefaultServiceCIDR
	}
	allocate, reallocate, err := serviceAllocation(cfg.ServiceCIDR)
	if err != nil {
		return nil, err
	}
	custom, err := newCustomResources(cfg.CRDs, cfg.Conversion)
	if err != nil {
		return nil, err
	}
	if cfg.FieldManager == "" {
		cfg.FieldManager = DefaultFieldManager
	}
	strategies := registryStrategies()
	c := newCodec(custom, NewScales(cfg.CRDs), strategies, cfg.FieldManager)
	c.now = cfg.Now
	policies, builtin, customObjects, err := splitObjects(cfg.Objects, custom)
	if err != nil {
		return nil, err
	}
	authz, err := newAuthorizer(builtin)
	if err != nil {
		return nil, err
	}
	state, err := newCluster(builtin, cfg.Namespaces)
	if err != nil {
		return nil, err
	}
	ch := &Chain{codec: c, cluster: state, authorizer: authz}
	fail := func(err error) (*Chain, error) {
		ch.Close()
		return nil, err
	}
	before, after, err := initPlugins(state, c, selection, configs, authz)
	if err != nil {
		return fail(err)
	}
	if err := state.start(ctx); err != nil {
		return fail(err)
	}
	if len(policies) > 0 {
		steps, err := ch.policySteps(ctx, cfg, custom, selection, policies, builtin, customObjects)
		if err != nil {
			return fail(err)
		}
		// Last among the plugins before the webhooks, as kube-apiserver orders them.
		before = append(before, steps...)
	}
	ch.before, ch.after = before, after
	ch.preparer = &preparer{
		codec: c, custom: custom, strategies: strategies, clock: clock{now: cfg.Now, newUID: cfg.NewUID},
		begin:       map[resourceKey]beginCreate{{"", "services", ""}: allocate},
		beginEdit:   map[resourceKey]beginUpdate{{"", "services", ""}: reallocate},
		serviceCIDR: cfg.ServiceCIDR,
	}
	return ch, nil
}

// policySteps builds the steps of the admission policies, a mutating and a validating one, with
// kube-apiserver's own policy plugins: each binding's plugin runs on a cluster of its own, which
// goes into c.policyClusters for Close to stop.
func (c *Chain) policySteps(ctx context.Context, cfg Config, custom *customResources, selection pluginSelection, policies, builtin, customObjects []runtime.Object) ([]engine.Step, error) {
	mapper, err := resources.Builtin()
	if err == nil {
		mapper, err = mapper.WithCRDs(cfg.CRDs...)
	}
	if err != nil {
		return nil, err
	}
	restMapper, err := newRESTMapper(mapper)
	if err != nil {
		return nil, err
	}
	deps := policyDeps{codec: c.codec, authorizer: c.authorizer, interfaces: newObjectInterfaces(c.codec.scheme, custom, mapper), restMapper: restMapper, schemas: newAPISchemas(cfg.CRDs, cfg.beforeSchemaListing), clusters: &c.policyClusters,
		dynamic: func(objects []runtime.Object) (dynamic.Interface, error) {
			return newDynamicClient(append(objects, customObjects...), restMapper)
		}}
	// A policy plugin the cluster does not run evaluates nothing: its policies are inert.
	of := func(runs bool) []runtime.Object {
		if runs {
			return policies
		}
		return nil
	}
	mutating, err := newPolicyPlugins(ctx, true, of(selection.mutatingPolicies), builtin, cfg.Namespaces, deps)
	if err != nil {
		return nil, fmt.Errorf("MutatingAdmissionPolicies: %w", err)
	}
	validating, err := newPolicyPlugins(ctx, false, of(selection.validatingPolicies), builtin, cfg.Namespaces, deps)
	if err != nil {
		return nil, fmt.Errorf("ValidatingAdmissionPolicies: %w", err)
	}
	return []engine.Step{mutatingPolicies{mutating}, validatingPolicies{validating}}, nil
}

// Close stops the chain's informers.
func (c *Chain) Close() {
	c.cluster.close()
	for _, p := range c.policyClusters {
		p.close()
	}
}

// Assumed says, after admissions, what the chain assumed of the cluster beyond the objects it was given, in
// sentences: what a fresh 1.36 cluster has.
func (c *Chain) Assumed() []string {
	return append(append([]string(nil), c.cluster.assumed...), c.authorizer.Assumed()...)
}

// Authorizer is the cluster's authorizer, as admission asks it: the one the chain's plugins and
// policies ask, for the webhooks' matchConditions to ask too.
func (c *Chain) Authorizer() *Authorizer { return c.authorizer }

// Steps are the chain's steps for an engine.Pipeline, in kube-apiserver's order around the
// webhooks, and what the webhooks read of the chain.
type Steps struct {
	// Codec decodes, defaults and stores objects; the webhooks read patched objects with it.
	Codec engine.Codec
	// Converter converts objects for webhooks matched through an equivalent version.
	Converter engine.Converter
	// Mutating run before the mutating webhooks in every round: the built-in mutating plugins,
	// then the mutating admission policies.
	Mutating []engine.MutatingStep
	// Preparer is the registry's preparation between the phases.
	Preparer engine.Preparer
	// Validating run before the validating webhooks: the built-in validating plugins, then the
	// validating admission policies. AfterWebhooks run after them: ResourceQuota.
	Validating, AfterWebhooks []engine.ValidatingStep
	// Namespaces lists the cluster state's namespaces, and Client reads one the lister does not
	// have yet, for the webhooks' namespaceSelectors.
	Namespaces corev1listers.NamespaceLister
	Client     kubernetes.Interface
}

// Steps returns the chain's steps, for a Pipeline that puts the webhooks among them.
func (c *Chain) Steps() Steps {
	s := Steps{Codec: c.codec, Converter: c.codec, Preparer: c.preparer, AfterWebhooks: append([]engine.ValidatingStep(nil), c.after...),
		Namespaces: c.cluster.informers.Core().V1().Namespaces().Lister(), Client: c.cluster.client}
	for _, step := range c.before {
		if m, ok := step.(engine.MutatingStep); ok {
			s.Mutating = append(s.Mutating, m)
		}
		if v, ok := step.(engine.ValidatingStep); ok {
			s.Validating = append(s.Validating, v)
		}
	}
	return s
}

// Pipeline puts webhooks' steps where kube-apiserver runs them among the chain's: the mutating
// plugins and policies, then the mutating webhooks, in every round; the registry's preparation;
// the validating plugins and policies, the validating webhooks, then ResourceQuota. The
// caller sets the Pipeline's limits, clock and observer. A nil step leaves its phase without
// webhooks.
func (s Steps) Pipeline(mutatingWebhooks engine.MutatingStep, validatingWebhooks engine.ValidatingStep) *engine.Pipeline {
	mutating := append([]engine.MutatingStep(nil), s.Mutating...)
	if mutatingWebhooks != nil {
		mutating = append(mutating, mutatingWebhooks)
	}
	validating := append([]engine.ValidatingStep(nil), s.Validating...)
	if validatingWebhooks != nil {
		validating = append(validating, validatingWebhooks)
	}
	return &engine.Pipeline{
		Codec: s.Codec, Preparer: s.Preparer,
		Mutating: mutating, Validating: append(validating, s.AfterWebhooks...),
	}
}

// PluginNames lists the built-in admission plugins the chain runs, in order.
func (c *Chain) PluginNames() []string {
	var names []string
	for _, p := range c.before {
		names = append(names, p.Name())
	}
	for _, p := range c.after {
		names = append(names, p.Name())
	}
	return names
}
