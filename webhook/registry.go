package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Type is the kind of admission webhook.
type Type string

const (
	TypeMutating   Type = "mutating"
	TypeValidating Type = "validating"
)

// Webhook describes one admission webhook to serve and to declare in a webhook configuration.
type Webhook struct {
	// Name is the webhook's name in its configuration: a DNS name of at least three segments,
	// e.g. "pod-defaults.example.com".
	Name string
	// Type is TypeMutating or TypeValidating.
	Type Type
	// Kind is the object kind the webhook handles; requests for another kind are answered 400.
	Kind schema.GroupVersionKind
	// Resource is the plural resource name of Kind, e.g. "pods".
	Resource string
	// Scope of the resource: Namespaced, Cluster or "*" (the default).
	Scope admissionregistrationv1.ScopeType
	// Operations to intercept; default CREATE and UPDATE.
	Operations []admissionregistrationv1.OperationType
	// Path to serve; default the generated path (see Path).
	Path string
	// Handler decides the requests, typically DefaultingHandler(...) or ValidatingHandler(...).
	Handler Handler
	// FailurePolicy declared in the configuration; default Fail.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// TimeoutSeconds declared in the configuration, 1 to 30; default DefaultTimeoutSeconds.
	TimeoutSeconds int32
}

// DefaultTimeoutSeconds is the timeout of a webhook that sets none: shorter than
// kube-apiserver's 10 s default, which admit lint flags on the paths every write takes; a webhook
// that needs longer says so.
const DefaultTimeoutSeconds = 5

// Path returns the path generated for a webhook of type t on gvk:
// "/mutate-<group>-<version>-<kind>" or "/validate-<group>-<version>-<kind>", the group's dots
// replaced by dashes and the kind in lower case. The core group ("") is written "core", so a Pod
// mutating webhook is served at "/mutate-core-v1-pod".
func Path(t Type, gvk schema.GroupVersionKind) string {
	prefix := "/validate-"
	if t == TypeMutating {
		prefix = "/mutate-"
	}
	group := gvk.Group
	if group == "" {
		group = "core"
	}
	return prefix + strings.ReplaceAll(group, ".", "-") + "-" + gvk.Version + "-" + strings.ToLower(gvk.Kind)
}

// Registry collects webhooks, serves each on its path and describes them as webhook configurations.
type Registry struct {
	opts     HTTPOptions
	mux      *http.ServeMux
	webhooks []Webhook
	paths    map[string]string // path -> webhook name
	names    map[string]bool   // type/name of the registered webhooks
	// conversions are the CRD conversion webhooks, served on the same mux.
	conversions []Conversion
}

// NewRegistry returns an empty registry whose webhooks are served with opts.
func NewRegistry(opts HTTPOptions) *Registry {
	return &Registry{opts: opts, mux: http.NewServeMux(), paths: map[string]string{}, names: map[string]bool{}}
}

// Register adds w. It refuses what kube-apiserver would refuse in the configuration it describes
// (a name that is not a domain of three segments, a name used twice in a configuration, a
// timeout outside 1–30 s, an unknown failure policy, scope or operation), and what would
// misbehave once served: a resource that is not the kind's plural in lower case, a typed handler
// (DefaultingHandler, ValidatingHandler) whose Go type is another kind or version than Kind, a DefaultingHandler
// handler in a validating webhook, a nil Defaulter or Validator.
func (r *Registry) Register(w Webhook) error {
	problems := r.check(w)
	if len(problems) > 0 {
		return fmt.Errorf("registering webhook %q: %s", w.Name, strings.Join(problems, "; "))
	}
	if w.Path == "" {
		w.Path = Path(w.Type, w.Kind)
	}
	if !strings.HasPrefix(w.Path, "/") {
		return fmt.Errorf("registering webhook %q: path %q must start with /", w.Name, w.Path)
	}
	if owner, taken := r.paths[w.Path]; taken {
		return fmt.Errorf("registering webhook %q: path %s is already served by webhook %q", w.Name, w.Path, owner)
	}
	if len(w.Operations) == 0 {
		w.Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	}
	r.paths[w.Path] = w.Name
	r.names[string(w.Type)+"/"+w.Name] = true
	r.webhooks = append(r.webhooks, w)
	r.mux.Handle(w.Path, NewHTTPHandler(w.Path, kindGuard(w.Kind, w.Handler), r.opts))
	return nil
}

// check returns every problem of w, each a sentence.
func (r *Registry) check(w Webhook) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	switch {
	case w.Name == "":
		add("name is required")
	case len(w.Name) > 253 || !webhookName.MatchString(w.Name) || strings.Count(w.Name, ".") < 2:
		add("name %q: kube-apiserver wants a lower-case domain name with at least three segments, such as pod-defaults.example.com", w.Name)
	case r.names[string(w.Type)+"/"+w.Name]:
		add("name %q: a %s webhook of that name is already registered (names are unique in a configuration)", w.Name, w.Type)
	}
	if w.Type != TypeMutating && w.Type != TypeValidating {
		add("type %q must be TypeMutating (%q) or TypeValidating (%q)", w.Type, TypeMutating, TypeValidating)
	}
	if w.Kind.Kind == "" || w.Kind.Version == "" {
		add("kind needs a version and a kind")
	}
	switch plural, _ := meta.UnsafeGuessKindToResource(w.Kind); {
	case w.Resource == "" && w.Kind.Kind != "":
		add("resource is required (for kind %s, probably %q)", w.Kind.Kind, plural.Resource)
	case w.Resource == "":
		add("resource is required")
	case w.Resource != strings.ToLower(w.Resource):
		add("resource %q: resources are lower case (%q)", w.Resource, strings.ToLower(w.Resource))
	case w.Kind.Kind != "" && w.Resource == strings.ToLower(w.Kind.Kind) && plural.Resource != w.Resource:
		add("resource %q is the kind's singular: rules match the plural, %q", w.Resource, plural.Resource)
	}
	switch w.Scope {
	case "", admissionregistrationv1.NamespacedScope, admissionregistrationv1.ClusterScope, admissionregistrationv1.AllScopes:
	default:
		add("scope %q must be Namespaced, Cluster or *", w.Scope)
	}
	for _, op := range w.Operations {
		switch op {
		case admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete, admissionregistrationv1.Connect, admissionregistrationv1.OperationAll:
		default:
			add("operation %q must be CREATE, UPDATE, DELETE, CONNECT or *", op)
		}
	}
	switch w.FailurePolicy {
	case "", admissionregistrationv1.Fail, admissionregistrationv1.Ignore:
	default:
		add("failurePolicy %q must be Fail or Ignore", w.FailurePolicy)
	}
	if w.TimeoutSeconds < 0 || w.TimeoutSeconds > 30 {
		add("timeoutSeconds %d must be between 1 and 30 (0 for the default, %d)", w.TimeoutSeconds, DefaultTimeoutSeconds)
	}
	if w.Handler == nil {
		add("handler is required")
	} else if typed, ok := w.Handler.(typedHandler); ok {
		problems = append(problems, checkTyped(typed.info, w)...)
	}
	return problems
}

// webhookName is a DNS subdomain in lower case, as kube-apiserver checks webhook names.
var webhookName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// apiVersionPattern matches the last element of an API types package: v1, v1beta1, v2alpha3.
var apiVersionPattern = regexp.MustCompile(`^v\d+((alpha|beta)\d+)?$`)

// checkTyped checks a typed adapter against the webhook it is registered in, and only a
// mutating webhook may patch. A Kubernetes API type (k8s.io/api, apiextensions) is its kind: its
// name, version and group must be the webhook's. A type of your own may be a partial view of any
// kind (so may metav1.PartialObjectMetadata and unstructured objects): only when it is named
// after the webhook's kind in a versioned package (api/v1) must the version match.
func checkTyped(info typedInfo, w Webhook) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if info.missing {
		add("the %s's %s is nil", info.adapter, map[bool]string{true: "Defaulter", false: "Validator"}[info.mutates])
	}
	if info.mutates && w.Type == TypeValidating {
		add("a DefaultingHandler changes objects: register it as TypeMutating (a validating webhook's patch is refused)")
	}
	t := info.objectType
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem() == reflect.TypeFor[unstructured.Unstructured]() || w.Kind.Kind == "" {
		return problems // unstructured objects are whatever the webhook says
	}
	elem := t.Elem()
	kubernetesType := strings.HasPrefix(elem.PkgPath(), "k8s.io/api/") || strings.HasPrefix(elem.PkgPath(), "k8s.io/apiextensions-apiserver/pkg/apis/")
	if elem.Name() != w.Kind.Kind {
		if kubernetesType {
			add("%s[%s] decodes %s objects, but the webhook is registered for kind %s", info.adapter, t, elem.Name(), w.Kind.Kind)
		}
		return problems
	}
	dirs := strings.Split(elem.PkgPath(), "/")
	if len(dirs) < 2 || !apiVersionPattern.MatchString(dirs[len(dirs)-1]) {
		return problems
	}
	if version := dirs[len(dirs)-1]; version != w.Kind.Version {
		add("%s[%s] decodes %s objects of version %s, but the webhook is registered for %s", info.adapter, t, elem.Name(), version, w.Kind.GroupVersion())
	}
	if kubernetesType {
		group := strings.Split(w.Kind.Group, ".")[0]
		if group == "" {
			group = "core"
		}
		if dir := dirs[len(dirs)-2]; dir != group {
			add("%s[%s] decodes %s objects of Kubernetes' %s API group, but the webhook is registered for group %q", info.adapter, t, elem.Name(), dir, w.Kind.Group)
		}
	}
	return problems
}

// Webhooks returns the registered webhooks, with defaults filled in, in registration order.
func (r *Registry) Webhooks() []Webhook { return append([]Webhook(nil), r.webhooks...) }

// ServeHTTP serves every registered webhook on its path; other paths get 404.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.mux.ServeHTTP(w, req) }

// kindGuard answers 400 to requests for a kind the webhook was not registered for, which only
// happens when a configuration's rules send the wrong resources to this path.
func kindGuard(want schema.GroupVersionKind, h Handler) Handler {
	return HandlerFunc(func(ctx context.Context, req *Request) Response {
		got := schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind}
		if got != want && !isSubresourceKind(req) {
			return badRequest(fmt.Sprintf("this webhook handles %s, not %s: check the rules of its configuration", want, got))
		}
		return h.Admit(ctx, req)
	})
}

// isSubresourceKind reports requests for a subresource whose object is a different kind (e.g.
// pods/eviction carries an Eviction); the kind check does not apply to them.
func isSubresourceKind(req *Request) bool { return req.SubResource != "" }

// ClientConfig says how the apiserver reaches the server: through a Service, or a URL.
type ClientConfig struct {
	// Service and Namespace name the Service in front of the server (service mode).
	Service, Namespace string
	// Port of the Service; default 443.
	Port int32
	// URL is the server's base URL, e.g. "https://127.0.0.1:9443" (URL mode; used when Service is empty).
	URL string
	// CABundle is the PEM CA that signed the serving certificate.
	CABundle []byte
}

// servicePort is the Service's port, 443 when unset.
func (c ClientConfig) servicePort() int32 {
	if c.Port == 0 {
		return 443
	}
	return c.Port
}

// urlOf is the URL of path on a server reached by URL.
func (c ClientConfig) urlOf(path string) string { return strings.TrimSuffix(c.URL, "/") + path }

// ConfigOptions shape the configurations the registry describes.
type ConfigOptions struct {
	// Name of both configurations.
	Name string
	ClientConfig
	// ExemptNamespaces are never sent to the webhooks, in addition to kube-system and the server's
	// own namespace (ClientConfig.Namespace): a webhook must not intercept what it depends on.
	ExemptNamespaces []string
	// ServeOwnNamespace sends the webhooks objects of the server's own namespace too, which is
	// exempt by default: an operator installed in one namespace whose custom resources live
	// beside it (OLM's OwnNamespace mode) needs it. The trade-off: while the server is down, a
	// fail-closed webhook then blocks the writes it intercepts in that namespace, the server's
	// own recovery included if it intercepts Pods or Deployments there. Register such webhooks
	// for the operator's own kinds only, or with failurePolicy Ignore.
	ServeOwnNamespace bool
	// Runlevel is the server's bootstrap level (default 2: a namespace hosting webhook servers).
	// Namespaces labelled RunlevelLabel with this level or a lower one (control plane, add-ons the
	// server needs, other webhook servers) are exempt, so the webhooks never block what brings
	// their own server back.
	Runlevel int
}

// RunlevelLabel marks a namespace's bootstrap level: 0 control plane, 1 add-ons webhook servers
// need (DNS, CNI, storage), 2 webhook servers, higher for webhooks that depend on other webhooks.
// Only cluster administrators should be allowed to set it: a labelled namespace is exempt.
const RunlevelLabel = "admit.dev/runlevel"

// DefaultRunlevel is the level of a namespace that hosts webhook servers.
const DefaultRunlevel = 2

// Configurations describes the registered webhooks as a mutating and a validating configuration;
// either is nil when no webhook of its type is registered.
func (r *Registry) Configurations(opts ConfigOptions) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	if opts.Name == "" {
		return nil, nil, errors.New("configuration name is required")
	}
	if (opts.Service == "") == (opts.URL == "") {
		return nil, nil, errors.New("exactly one of service or URL is required in the client config")
	}
	if opts.Service != "" && opts.Namespace == "" {
		return nil, nil, errors.New("a service client config needs the service's namespace")
	}
	var mutating *admissionregistrationv1.MutatingWebhookConfiguration
	var validating *admissionregistrationv1.ValidatingWebhookConfiguration
	for _, w := range r.webhooks {
		common := commonWebhook(w, opts)
		if w.Type == TypeMutating {
			if mutating == nil {
				mutating = &admissionregistrationv1.MutatingWebhookConfiguration{
					TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
					ObjectMeta: metav1.ObjectMeta{Name: opts.Name},
				}
			}
			never := admissionregistrationv1.NeverReinvocationPolicy
			mutating.Webhooks = append(mutating.Webhooks, admissionregistrationv1.MutatingWebhook{
				Name: common.Name, ClientConfig: common.ClientConfig, Rules: common.Rules,
				FailurePolicy: common.FailurePolicy, MatchPolicy: common.MatchPolicy,
				NamespaceSelector: common.NamespaceSelector, ObjectSelector: common.ObjectSelector,
				SideEffects: common.SideEffects, TimeoutSeconds: common.TimeoutSeconds,
				AdmissionReviewVersions: common.AdmissionReviewVersions, ReinvocationPolicy: &never,
			})
			continue
		}
		if validating == nil {
			validating = &admissionregistrationv1.ValidatingWebhookConfiguration{
				TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
				ObjectMeta: metav1.ObjectMeta{Name: opts.Name},
			}
		}
		validating.Webhooks = append(validating.Webhooks, common)
	}
	return mutating, validating, nil
}

// commonWebhook builds the fields both configuration types share.
func commonWebhook(w Webhook, opts ConfigOptions) admissionregistrationv1.ValidatingWebhook {
	client := admissionregistrationv1.WebhookClientConfig{CABundle: opts.CABundle}
	if opts.Service != "" {
		port, path := opts.servicePort(), w.Path
		client.Service = &admissionregistrationv1.ServiceReference{Name: opts.Service, Namespace: opts.Namespace, Port: &port, Path: &path}
	} else {
		url := opts.urlOf(w.Path)
		client.URL = &url
	}
	scope := w.Scope
	if scope == "" {
		scope = admissionregistrationv1.AllScopes
	}
	failure := w.FailurePolicy
	if failure == "" {
		failure = admissionregistrationv1.Fail
	}
	timeout := w.TimeoutSeconds
	if timeout == 0 {
		timeout = DefaultTimeoutSeconds
	}
	equivalent := admissionregistrationv1.Equivalent
	none := admissionregistrationv1.SideEffectClassNone
	exempt := map[string]bool{"kube-system": true}
	if opts.Namespace != "" && !opts.ServeOwnNamespace {
		exempt[opts.Namespace] = true
	}
	for _, ns := range opts.ExemptNamespaces {
		exempt[ns] = true
	}
	exemptList := make([]string, 0, len(exempt))
	for ns := range exempt {
		exemptList = append(exemptList, ns)
	}
	sort.Strings(exemptList)
	runlevel := opts.Runlevel
	if runlevel <= 0 {
		runlevel = DefaultRunlevel
	}
	var exemptLevels []string
	for level := 0; level <= runlevel; level++ {
		exemptLevels = append(exemptLevels, strconv.Itoa(level))
	}
	return admissionregistrationv1.ValidatingWebhook{
		Name:         w.Name,
		ClientConfig: client,
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: w.Operations,
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{w.Kind.Group}, APIVersions: []string{w.Kind.Version},
				Resources: []string{w.Resource}, Scope: &scope,
			},
		}},
		FailurePolicy: &failure,
		MatchPolicy:   &equivalent,
		NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: exemptList},
			{Key: RunlevelLabel, Operator: metav1.LabelSelectorOpNotIn, Values: exemptLevels},
		}},
		ObjectSelector:          &metav1.LabelSelector{},
		SideEffects:             &none,
		TimeoutSeconds:          &timeout,
		AdmissionReviewVersions: []string{"v1", "v1beta1"},
	}
}

// ConfigurationsYAML renders Configurations as a multi-document YAML stream, ready for kubectl apply.
func (r *Registry) ConfigurationsYAML(opts ConfigOptions) ([]byte, error) {
	m, v, err := r.Configurations(opts)
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	for _, obj := range []any{m, v} {
		if reflect.ValueOf(obj).IsNil() {
			continue
		}
		doc, err := yaml.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("encoding webhook configuration: %w", err)
		}
		docs = append(docs, doc)
	}
	return bytes.Join(docs, []byte("---\n")), nil
}
