package review

import (
	"context"
	"fmt"
	"net/http"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
)

// The defaults of a Config's writer and Service range, the apiserver's.
const (
	DefaultFieldManager = chain.DefaultFieldManager
	DefaultServiceCIDR  = chain.DefaultServiceCIDR
)

// Config is what a Session reviews with: the cluster's admission configuration, its state and
// its kube-apiserver's options. The admission configuration comes whole from one reader:
// LoadAdmission reads webhook configurations, policies and bindings from files, AdmissionOf
// takes them from a loaded config.Set, and Admission.Use puts them in a Config; a program that
// builds configurations in Go sets Mutating and Validating itself, which New defaults and
// checks as the apiserver does.
type Config struct {
	// Mutating and Validating are the webhook configurations, as the apiserver stores them
	// (config.Load gives them defaulted).
	Mutating   []*admissionregistrationv1.MutatingWebhookConfiguration
	Validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	// Policies are ValidatingAdmissionPolicies, MutatingAdmissionPolicies and their bindings.
	Policies []Input
	// Cluster is the state admission reads — Namespaces, ServiceAccounts, LimitRanges,
	// PriorityClasses, policies' parameters, CRDs, ... — as given; Live is the same read from a
	// cluster, which Cluster's objects override. What neither has is what a fresh cluster has.
	Cluster, Live []*unstructured.Unstructured
	// CRDs are CustomResourceDefinitions given apart from the state; those in Cluster, Live and
	// among the reviewed objects count too.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// CompleteState says Cluster and Live are the whole cluster: a namespace they do not have does
	// not exist (the apiserver answers 404) rather than being assumed.
	CompleteState bool
	// SkipMissingCRDs skips the objects of custom kinds whose CustomResourceDefinition is not
	// known (Outcome.Skipped says so), as kubeconform's -ignore-missing-schemas does, instead of
	// failing them.
	SkipMissingCRDs bool
	// WebhooksOnly calls the webhooks with the objects as given and as patched, without
	// kube-apiserver's decoding, defaults, built-in plugins and registry (package chain).
	WebhooksOnly bool
	// APIServer are the kube-apiserver options that change admission.
	APIServer APIServerOptions
	// FieldManager names the writer in managedFields; default chain.DefaultFieldManager.
	FieldManager string
	// ServiceResolver places the services webhooks call (Services.Resolve places them as
	// admit's --resolve does); a webhook calling a service it does not place is refused by New.
	// Transport, when set, carries every call (dispatch.Options).
	ServiceResolver dispatch.ServiceResolver
	Transport       http.RoundTripper
	// DefaultCABundle, when set, is the caBundle of every webhook whose clientConfig has none,
	// as cert-manager's CA injector fills it in a cluster (admit's --ca-file).
	DefaultCABundle []byte
	// Concurrency bounds the admissions run at once; default 16.
	Concurrency int
	// Timeout is each request's deadline, as the apiserver's --request-timeout; default 60s.
	Timeout time.Duration
	// Now is the clock of the run's one moment: every created object's creation time; default
	// time.Now.
	Now func() time.Time
	// Progress, when set, is told how many of Admit's objects are done, as they finish. Admit
	// calls it from the goroutines reviewing, so it must be safe for concurrent use; Batches
	// does not call it (its caller knows its batches).
	Progress func(done, total int)
	// Terms name the inputs in messages as the caller's users know them (admit review: "--old",
	// "--crds"); defaults in plain words.
	Terms Terms
}

// Terms name a Session's inputs in its messages.
type Terms struct {
	// OldObjects names the old objects of UPDATEs; default "the old objects".
	OldObjects string
	// CRDs names where CustomResourceDefinitions are given; default "their CustomResourceDefinition".
	CRDs string
	// Resolve names where a service is placed ("--resolve"); default "Config.ServiceResolver an
	// entry". ResolveDNS names the way to look services up by their cluster DNS names anyway
	// ("--resolve-dns"); none by default.
	Resolve, ResolveDNS string
}

// APIServerOptions are kube-apiserver's flags that change admission, by their names.
type APIServerOptions struct {
	// DisallowPrivileged is --allow-privileged=false.
	DisallowPrivileged bool
	// EnableAdmissionPlugins and DisableAdmissionPlugins change the default plugins.
	EnableAdmissionPlugins, DisableAdmissionPlugins []string
	// AdmissionControlConfigFile is an AdmissionConfiguration file with plugins' configurations.
	AdmissionControlConfigFile string
	// MaxRequestBodyBytes is --max-request-body-bytes; default 3 MiB.
	MaxRequestBodyBytes int64
	// ServiceCIDR is the range of Services' cluster IPs; default chain.DefaultServiceCIDR.
	ServiceCIDR string
}

// Session reviews objects with one Config. The objects it is created with are those of the
// whole run: their CRDs are known to the others, and what they set up (a Namespace, a
// ServiceAccount, a LimitRange) is read by the others' admission, as if applied together.
type Session struct {
	cfg    Config
	all    []Input
	crds   []*apiextensionsv1.CustomResourceDefinition
	mapper *resources.Mapper
	scales *chain.Scales
	types  *runtime.Scheme
	// assumed says what the last run's chain assumed of the cluster, once it has admitted.
	assumed func() []string
}

// New prepares a Session for the objects all of its reviews will cover. Its error is the
// user's input: an invalid policy, a CRD that does not read, a policy under WebhooksOnly.
func New(cfg Config, all []Input) (*Session, error) {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FieldManager == "" {
		cfg.FieldManager = chain.DefaultFieldManager
	}
	if cfg.Terms.OldObjects == "" {
		cfg.Terms.OldObjects = "the old objects"
	}
	if cfg.Terms.CRDs == "" {
		cfg.Terms.CRDs = "their CustomResourceDefinition"
	}
	if cfg.Terms.Resolve == "" {
		cfg.Terms.Resolve = "Config.ServiceResolver an entry"
	}
	a, err := admission(cfg)
	if err != nil {
		return nil, err
	}
	a.Use(&cfg)
	if err := checkServices(a, cfg.ServiceResolver, cfg.Terms); err != nil {
		return nil, err
	}
	for _, p := range cfg.Policies {
		if !IsPolicy(p.Object) {
			return nil, fmt.Errorf("%s: a %s is not an admission policy or binding", p.Source, p.Object.GetKind())
		}
		// kube-apiserver refuses an invalid policy: it never reaches the chain.
		errs, kind, err := chain.PolicyErrors(p.Object)
		if err == nil && len(errs) > 0 {
			err = apierrors.NewInvalid(kind, p.Object.GetName(), errs)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Source, err)
		}
	}
	if cfg.WebhooksOnly {
		if first, n := policyCount(cfg); n > 0 {
			// Policies run in kube-apiserver's own plugins, which are the chain: ignoring them
			// would admit what they deny.
			return nil, fmt.Errorf("webhooks-only calls webhooks alone, but the input has %d admission policies and bindings (the first at %s): they are evaluated with the chain", n, first)
		}
	}
	crds, err := collectCRDs(cfg, all)
	if err != nil {
		return nil, err
	}
	mapper, err := resources.Builtin()
	if err != nil {
		return nil, err
	}
	if len(crds) > 0 {
		if mapper, err = mapper.WithCRDs(crds...); err != nil {
			return nil, err
		}
	}
	return &Session{cfg: cfg, all: all, crds: crds, mapper: mapper, scales: chain.NewScales(crds), types: resources.Types()}, nil
}

// Assumed says, after Admit, what the chain assumed of the cluster beyond its state: what a
// fresh 1.36 cluster has.
func (s *Session) Assumed() []string {
	if s.assumed == nil {
		return nil
	}
	return s.assumed()
}

// CRDs are the CustomResourceDefinitions the Session knows.
func (s *Session) CRDs() []*apiextensionsv1.CustomResourceDefinition { return s.crds }

// Outcome is one object's review: its request, and its result or why it could not be reviewed.
type Outcome struct {
	// Source and Object are the input as read.
	Source string
	Object *unstructured.Unstructured
	// Request is the admission the apiserver would run; nil when Err says why there is none.
	Request *engine.Request
	// Result is the admission's outcome, after Admit.
	Result *engine.Result
	// Err is why the object could not be reviewed: the input's problem, or a malformed request.
	Err error
	// Skipped, when set, says why the object was not reviewed and it is no error:
	// Config.SkipMissingCRDs and a custom kind without its CustomResourceDefinition.
	Skipped string
	// Took is how long the admission took.
	Took time.Duration
}

// Name is the object's name after admission: a name a mutating webhook gave a generateName
// CREATE, else the one the request names (the generated one).
func (o *Outcome) Name() string {
	if o.Result != nil && len(o.Result.Object) > 0 {
		var head unstructured.Unstructured
		if head.UnmarshalJSON(o.Result.Object) == nil && head.GetName() != "" {
			return head.GetName()
		}
	}
	if o.Request == nil {
		if o.Object != nil {
			return o.Object.GetName()
		}
		return ""
	}
	if o.Request.Name == "" {
		return o.Request.GeneratedName
	}
	return o.Request.Name
}

// Review builds the requests of objects (UPDATEs of olds, paired by kind, namespace and name)
// and admits them: the Session's one call for a single batch. Problems with one object are in
// its Outcome; the error is for the olds or the Write.
func (s *Session) Review(ctx context.Context, w Write, objects, olds []Input) ([]*Outcome, error) {
	outcomes, err := s.Requests(objects, olds, w)
	if err != nil {
		return nil, err
	}
	if err := s.Admit(ctx, outcomes); err != nil {
		return nil, err
	}
	return outcomes, nil
}
