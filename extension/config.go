package extension

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// DefaultTimeout bounds a call when an extension sets no timeout.
	DefaultTimeout = 10 * time.Second
	// MaxTimeout is the longest timeout an extension may ask for: lifecycle hooks sit in
	// reconcile loops, and an extension must not be able to stall them for longer.
	MaxTimeout = 30 * time.Second
	// defaultServicePort is the port of a service reference that names none, as in Kubernetes.
	defaultServicePort = 443
)

// Extension is one registered handler of an external extension: where it listens, which hook it
// serves, and how the caller treats it.
type Extension struct {
	// Name identifies the extension in the registry, in errors, logs, metrics and aggregated
	// messages. It must be a DNS-1123 subdomain (Discover names handlers "<handler>.<server>").
	Name string
	// Hook is the one hook this extension serves.
	Hook Hook
	// ClientConfig says how to reach the extension.
	ClientConfig ClientConfig
	// Timeout bounds each call; 0 means DefaultTimeout, and more than MaxTimeout is invalid.
	Timeout time.Duration
	// FailurePolicy decides what a calling error means; "" means FailurePolicyFail.
	FailurePolicy FailurePolicy
	// NamespaceSelector restricts calls to requests about objects in namespaces whose labels
	// match. nil and the empty selector both select every namespace (Cluster API defaults the
	// field to {}; an unset selector here means the same, not "nothing"). Requests about
	// cluster-scoped objects (empty namespace) are never filtered, as in kube-apiserver.
	NamespaceSelector *metav1.LabelSelector
}

// ClientConfig says how to reach an extension: exactly one of URL and Service.
type ClientConfig struct {
	// URL is the https URL the request is POSTed to, used verbatim. It may not carry user info,
	// a query or a fragment (the caller adds ?timeout=).
	URL string
	// Service refers to a Kubernetes Service; it is turned into a URL by the caller's
	// ServiceResolver, and the TLS server name is <name>.<namespace>.svc.
	Service *ServiceReference
	// CABundle is a PEM bundle of the CAs trusted to sign the extension's serving certificate.
	// Empty means the system roots.
	CABundle []byte
}

// ServiceReference names a Kubernetes Service that fronts an extension.
type ServiceReference struct {
	Namespace string
	Name      string
	// Path is the URL path requests are sent to; it must start with "/" when set.
	Path string
	// Port is the service port; 0 means 443.
	Port int32
}

// serverName is the DNS name the serving certificate of a service must carry.
func (s ServiceReference) serverName() string {
	return s.Name + "." + s.Namespace + ".svc"
}

func (s ServiceReference) port() int32 {
	if s.Port == 0 {
		return defaultServicePort
	}
	return s.Port
}

// registered is an Extension validated and prepared for calls; it never changes after
// registration, so callers may hold it without locks.
type registered struct {
	Extension
	selector labels.Selector
	url      *url.URL // nil for a service reference, resolved per call
	timeout  time.Duration
	policy   FailurePolicy
}

// prepare validates e, reporting every problem at once under path, and fills in defaults.
func (e Extension) prepare(path *field.Path) (*registered, field.ErrorList) {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(e.Name) {
		errs = append(errs, field.Invalid(path.Child("name"), e.Name, msg))
	}
	errs = append(errs, validateHook(e.Hook, path.Child("hook"))...)

	out := &registered{Extension: e, timeout: e.Timeout, policy: e.FailurePolicy}
	u, clientErrs := validateClientConfig(e.ClientConfig, path.Child("clientConfig"))
	errs = append(errs, clientErrs...)
	out.url = u

	switch {
	case e.Timeout == 0:
		out.timeout = DefaultTimeout
	case e.Timeout < 0 || e.Timeout > MaxTimeout:
		errs = append(errs, field.Invalid(path.Child("timeout"), e.Timeout.String(),
			fmt.Sprintf("must be between 0 and %s", MaxTimeout)))
	}
	switch e.FailurePolicy {
	case "":
		out.policy = FailurePolicyFail
	case FailurePolicyFail, FailurePolicyIgnore:
	default:
		errs = append(errs, field.NotSupported(path.Child("failurePolicy"), e.FailurePolicy,
			[]FailurePolicy{FailurePolicyFail, FailurePolicyIgnore}))
	}
	selector, err := selectorFor(e.NamespaceSelector)
	if err != nil {
		errs = append(errs, field.Invalid(path.Child("namespaceSelector"), selectorJSON(e.NamespaceSelector), err.Error()))
	}
	out.selector = selector
	return out, errs
}

func selectorFor(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Everything(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}

// selectorJSON renders a selector the way users write it, for error messages.
func selectorJSON(s *metav1.LabelSelector) string {
	out, err := json.Marshal(s)
	if err != nil {
		return s.String()
	}
	return string(out)
}

// validateHook also keeps hook parts safe to use as URL path segments (HandlerPath).
func validateHook(h Hook, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if h.Group == "" {
		errs = append(errs, field.Required(path.Child("group"), "a hook belongs to an API group"))
	}
	for _, msg := range validation.IsDNS1123Subdomain(h.Group) {
		if h.Group != "" {
			errs = append(errs, field.Invalid(path.Child("group"), h.Group, msg))
		}
	}
	if h.Version == "" {
		errs = append(errs, field.Required(path.Child("version"), "a hook has an API version"))
	}
	for _, msg := range validation.IsDNS1123Label(h.Version) {
		if h.Version != "" {
			errs = append(errs, field.Invalid(path.Child("version"), h.Version, msg))
		}
	}
	switch {
	case h.Name == "":
		errs = append(errs, field.Required(path.Child("name"), "a hook has a name"))
	case !isHookName(h.Name):
		errs = append(errs, field.Invalid(path.Child("name"), h.Name, "must be letters and digits, starting with a letter (e.g. BeforeClusterUpgrade)"))
	}
	return errs
}

func isHookName(name string) bool {
	for i, r := range name {
		letter := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return name != ""
}

// validateClientConfig returns the parsed URL of a URL config (nil for a service reference).
func validateClientConfig(c ClientConfig, path *field.Path) (*url.URL, field.ErrorList) {
	var errs field.ErrorList
	if len(c.CABundle) > 0 && !x509.NewCertPool().AppendCertsFromPEM(c.CABundle) {
		errs = append(errs, field.Invalid(path.Child("caBundle"), "<PEM bytes>", "contains no PEM-encoded certificate"))
	}
	switch {
	case c.URL == "" && c.Service == nil:
		return nil, append(errs, field.Required(path, "exactly one of url and service is required"))
	case c.URL != "" && c.Service != nil:
		return nil, append(errs, field.Invalid(path, "url and service", "exactly one of url and service may be set"))
	case c.Service != nil:
		return nil, append(errs, validateService(*c.Service, path.Child("service"))...)
	}
	urlPath := path.Child("url")
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, append(errs, field.Invalid(urlPath, c.URL, err.Error()))
	}
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(urlPath, c.URL, fmt.Sprintf("scheme must be https, got %q", u.Scheme)))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(urlPath, c.URL, "host is required"))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(urlPath, c.URL, "user information is not allowed"))
	}
	if u.RawQuery != "" || u.ForceQuery {
		errs = append(errs, field.Invalid(urlPath, c.URL, "query parameters are not allowed"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(urlPath, c.URL, "fragments are not allowed"))
	}
	return u, errs
}

func validateService(s ServiceReference, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1035Label(s.Name) {
		errs = append(errs, field.Invalid(path.Child("name"), s.Name, msg))
	}
	for _, msg := range validation.IsDNS1123Label(s.Namespace) {
		errs = append(errs, field.Invalid(path.Child("namespace"), s.Namespace, msg))
	}
	if s.Port != 0 {
		for _, msg := range validation.IsValidPortNum(int(s.Port)) {
			errs = append(errs, field.Invalid(path.Child("port"), s.Port, msg))
		}
	}
	if s.Path != "" && s.Path[0] != '/' {
		errs = append(errs, field.Invalid(path.Child("path"), s.Path, `must start with "/"`))
	}
	return errs
}
