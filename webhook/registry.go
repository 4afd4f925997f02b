package webhook

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook/internal/kinds"
)

// Registry collects webhooks, serves each on its path and describes them as webhook configurations.
type Registry struct {
	opts     HTTPOptions
	mux      *http.ServeMux
	webhooks []Webhook
	paths    map[string]string // path -> webhook name
	names    map[string]bool   // type/name of the registered webhooks
	// conversions are the CRD conversion webhooks, served on the same mux.
	conversions []Conversion
	// conditions compiles match conditions; types type-checks them against Kubernetes' kinds.
	// Both are built on first use.
	conditions *conditionCompiler
	types      *conditionTypes
}

// NewRegistry returns an empty registry whose webhooks are served with opts.
func NewRegistry(opts HTTPOptions) *Registry {
	return &Registry{opts: opts, mux: http.NewServeMux(), paths: map[string]string{}, names: map[string]bool{}}
}

// Register adds w. It refuses, naming the field, what kube-apiserver would refuse in the
// configuration w describes (a name that is not a domain of three segments or is used twice,
// rules, selectors, match conditions that do not compile in kube-apiserver's CEL environment,
// an unknown policy, scope or operation, a timeout outside 1–30 s), and what would misbehave once
// served:
//   - a match condition that does not type-check against the kind of a handler that decodes a
//     Kubernetes API type (a field the kind does not have): it fails when evaluated, and
//     failurePolicy decides the request. Custom resources and handlers of any kind are not
//     checked: Register does not know their schema;
//   - a kind that is not the handler's: the kind its Scheme registers its Go type as, the kind
//     of a Kubernetes API type, the kind a type of your own is named after in a versioned
//     package (api/v1);
//   - a resource that does not hold the kind's objects (Kubernetes' own resources are known:
//     Pod with "deployments" is refused), a subresource or a scope the resource does not have,
//     a singular resource, rules that send a one-kind handler other kinds;
//   - a nil handler (a nil HandlerFunc included), a nil Defaulter or Validator, a
//     DefaultingHandler in a validating webhook.
//
// Kind defaults to the handler's when its Go type says it, Resource to the resource of
// Kubernetes' own kinds, Operations to CREATE and UPDATE, Path to the generated one.
func (r *Registry) Register(w Webhook) error {
	if w.Scheme == nil {
		w.Scheme = r.opts.Scheme
	}
	w, hk := complete(w)
	errs := r.check(w, hk)
	switch {
	case len(errs) > 0:
	case !strings.HasPrefix(w.Path, "/"):
		errs = append(errs, field.Invalid(field.NewPath("path"), w.Path, "must start with /"))
	case r.paths[w.Path] != "":
		errs = append(errs, field.Invalid(field.NewPath("path"), w.Path, fmt.Sprintf("is already served by webhook %q", r.paths[w.Path])))
	}
	if len(errs) > 0 {
		return fmt.Errorf("registering webhook %q: %w", w.Name, registrationErrors(errs))
	}
	r.paths[w.Path] = w.Name
	r.names[string(w.Type)+"/"+w.Name] = true
	r.webhooks = append(r.webhooks, w)
	r.mux.Handle(w.Path, NewHTTPHandler(w.Path, guard(w, w.Handler), r.opts))
	return nil
}

// complete fills in w's defaults, from what its handler's Go type says where it says it, and
// copies what w shares with the caller, so that changing it after Register changes nothing.
func complete(w Webhook) (Webhook, handlerKind) {
	hk := kindOfHandler(w.Handler, w.Scheme)
	if w.Kind.Empty() && len(hk.exact) == 1 {
		w.Kind = hk.exact[0]
	}
	if len(w.Rules) == 0 {
		if w.Resource == "" && w.Kind.Kind != "" {
			w.Resource, _ = kinds.ResourceOf(w.Kind.Group, w.Kind.Kind)
		}
		if len(w.Operations) == 0 {
			w.Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
		}
	}
	if w.Path == "" {
		switch {
		case w.Kind.Kind != "" && w.Kind.Version != "":
			w.Path = Path(w.Type, w.Kind)
		case w.Name != "":
			w.Path = namedPath(w.Type, w.Name)
		}
	}
	w.Operations = slices.Clone(w.Operations)
	if w.Rules != nil {
		w.Rules = w.rules()
	}
	w.ObjectSelector, w.NamespaceSelector = w.ObjectSelector.DeepCopy(), w.NamespaceSelector.DeepCopy()
	w.MatchConditions = slices.Clone(w.MatchConditions)
	return w, hk
}

// Webhooks returns the registered webhooks, with defaults filled in, in registration order.
func (r *Registry) Webhooks() []Webhook { return append([]Webhook(nil), r.webhooks...) }

// ServeHTTP serves every registered webhook on its path; other paths get 404.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.mux.ServeHTTP(w, req) }

// registrationErrors reports a registration's problems on one line and unwraps to each of them.
type registrationErrors field.ErrorList

func (e registrationErrors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e registrationErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, err := range e {
		out[i] = err
	}
	return out
}
