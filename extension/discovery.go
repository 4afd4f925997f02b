package extension

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// DiscoveryGroup and DiscoveryVersion identify the discovery hook every extension server
	// answers at /<DiscoveryGroup>/<DiscoveryVersion>/discovery.
	DiscoveryGroup   = "hooks.admitkit.io"
	DiscoveryVersion = "v1alpha1"
)

// DiscoveryHook is the hook an extension server answers with the list of its handlers.
func DiscoveryHook() Hook {
	return Hook{Group: DiscoveryGroup, Version: DiscoveryVersion, Name: "Discovery"}
}

// DiscoveryPath is the path, relative to an extension server's base URL, at which the server
// answers discovery.
func DiscoveryPath() string {
	return DiscoveryHook().path()
}

// DiscoveryRequest is the body of a discovery call; it carries nothing yet.
type DiscoveryRequest struct{}

// DiscoveryResponse is an extension server's answer to discovery.
type DiscoveryResponse struct {
	CommonResponse
	Handlers []DiscoveredHandler `json:"handlers"`
}

// DiscoveredHandler describes one handler an extension server serves.
type DiscoveredHandler struct {
	// Name is a DNS-1123 label, unique within the server. The handler is served at
	// HandlerPath(hook, Name) and registered as "<Name>.<server name>".
	Name string `json:"name"`
	// RequestHook is the hook the handler serves.
	RequestHook HookReference `json:"requestHook"`
	// TimeoutSeconds is between 0 and 30; unset or 0 means DefaultTimeout.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
	// FailurePolicy is Fail or Ignore; unset means Fail.
	FailurePolicy *FailurePolicy `json:"failurePolicy,omitempty"`
}

// HookReference names a hook in a discovery response.
type HookReference struct {
	APIVersion string `json:"apiVersion"` // group/version
	Hook       string `json:"hook"`       // hook name
}

// ExtensionServer is a server hosting one or more extension handlers, asked what it serves
// through Discover.
type ExtensionServer struct {
	// Name prefixes the names of the discovered extensions; a DNS-1123 subdomain.
	Name string
	// ClientConfig locates the server; handler paths are appended to its URL or service path.
	ClientConfig ClientConfig
	// NamespaceSelector is given to every discovered extension.
	NamespaceSelector *metav1.LabelSelector
}

// Discover asks server which handlers it serves and returns them as extensions ready to
// Register, sorted by name. Discovery has no failure policy: a calling error is returned as an
// *CallingError and a Failure answer as an *FailureError. A response that
// describes invalid handlers is rejected as a whole, the error listing every problem.
func (c *Caller) Discover(ctx context.Context, server ExtensionServer) ([]Extension, error) {
	endpoint := Extension{
		Name:              server.Name,
		Hook:              DiscoveryHook(),
		ClientConfig:      withPathSuffix(server.ClientConfig, DiscoveryPath()),
		FailurePolicy:     FailurePolicyFail,
		NamespaceSelector: server.NamespaceSelector,
	}
	p, errs := endpoint.prepare(field.NewPath("server"))
	if len(errs) > 0 {
		return nil, fmt.Errorf("discovering extension server %q: %w", server.Name, joinFieldErrors(errs))
	}
	body, err := json.Marshal(DiscoveryRequest{})
	if err != nil {
		return nil, fmt.Errorf("discovering extension server %q: encoding request: %w", server.Name, err)
	}
	var resp DiscoveryResponse
	if result := c.call(ctx, p, body, &resp); result.err != nil {
		return nil, fmt.Errorf("discovering extension server %q: %w", server.Name, result.err)
	}
	extensions, errs := extensionsFrom(server, resp.Handlers)
	if len(errs) > 0 {
		return nil, fmt.Errorf("discovering extension server %q: invalid discovery response: %w", server.Name, joinFieldErrors(errs))
	}
	return extensions, nil
}

// extensionsFrom validates the handlers of a discovery response and turns them into extensions.
func extensionsFrom(server ExtensionServer, handlers []DiscoveredHandler) ([]Extension, field.ErrorList) {
	var errs field.ErrorList
	var extensions []Extension
	seen := map[string]bool{}
	for i, h := range handlers {
		path := field.NewPath("handlers").Index(i)
		for _, msg := range validation.IsDNS1123Label(h.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), h.Name, msg))
		}
		if seen[h.Name] {
			errs = append(errs, field.Duplicate(path.Child("name"), h.Name))
		}
		seen[h.Name] = true

		hook, hookErrs := hookFrom(h.RequestHook, path.Child("requestHook"))
		errs = append(errs, hookErrs...)

		var timeout time.Duration
		if h.TimeoutSeconds != nil {
			seconds := *h.TimeoutSeconds
			if seconds < 0 || time.Duration(seconds)*time.Second > MaxTimeout {
				errs = append(errs, field.Invalid(path.Child("timeoutSeconds"), seconds,
					fmt.Sprintf("must be between 0 and %d", int(MaxTimeout/time.Second))))
			}
			timeout = time.Duration(seconds) * time.Second
		}
		policy := FailurePolicyFail
		if h.FailurePolicy != nil {
			policy = *h.FailurePolicy
			if policy != FailurePolicyFail && policy != FailurePolicyIgnore {
				errs = append(errs, field.NotSupported(path.Child("failurePolicy"), policy,
					[]FailurePolicy{FailurePolicyFail, FailurePolicyIgnore}))
			}
		}
		extensions = append(extensions, Extension{
			Name:              h.Name + "." + server.Name,
			Hook:              hook,
			ClientConfig:      withPathSuffix(server.ClientConfig, HandlerPath(hook, h.Name)),
			Timeout:           timeout,
			FailurePolicy:     policy,
			NamespaceSelector: server.NamespaceSelector,
		})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	// The registered names must be valid too (a long server name can push them past 253).
	for i, e := range extensions {
		if _, eErrs := e.prepare(field.NewPath("handlers").Index(i)); len(eErrs) > 0 {
			errs = append(errs, eErrs...)
		}
	}
	slices.SortFunc(extensions, func(a, b Extension) int { return strings.Compare(a.Name, b.Name) })
	return extensions, errs
}

func hookFrom(ref HookReference, path *field.Path) (Hook, field.ErrorList) {
	var errs field.ErrorList
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	switch {
	case err != nil:
		errs = append(errs, field.Invalid(path.Child("apiVersion"), ref.APIVersion, err.Error()))
	case gv.Group == "" || gv.Version == "":
		errs = append(errs, field.Invalid(path.Child("apiVersion"), ref.APIVersion, "must be <group>/<version>"))
	}
	switch {
	case ref.Hook == "":
		errs = append(errs, field.Required(path.Child("hook"), "the name of the hook the handler serves"))
	case !isHookName(ref.Hook):
		errs = append(errs, field.Invalid(path.Child("hook"), ref.Hook, "must be letters and digits, starting with a letter (e.g. BeforeClusterUpgrade)"))
	}
	hook := Hook{Group: gv.Group, Version: gv.Version, Name: ref.Hook}
	if len(errs) == 0 {
		// Group and version parsed; they must still be path-safe names.
		for _, e := range validateHook(hook, path) {
			errs = append(errs, field.Invalid(path.Child("apiVersion"), ref.APIVersion, e.Detail))
		}
	}
	return hook, errs
}

// withPathSuffix returns config with suffix appended to its URL path or service path. A URL that
// does not parse is left alone for validation to report.
func withPathSuffix(config ClientConfig, suffix string) ClientConfig {
	out := config
	switch {
	case config.Service != nil:
		svc := *config.Service
		svc.Path = strings.TrimSuffix(svc.Path, "/") + suffix
		out.Service = &svc
	case config.URL != "":
		u, err := url.Parse(config.URL)
		if err != nil {
			return out
		}
		u.Path = strings.TrimSuffix(u.Path, "/") + suffix
		u.RawPath = ""
		out.URL = u.String()
	}
	return out
}
