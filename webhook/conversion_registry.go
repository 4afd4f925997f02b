package webhook

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/admitkit/admit/webhook/conversion"
)

// Conversion is a CRD conversion webhook served beside the admission webhooks.
type Conversion struct {
	// CRD names the CustomResourceDefinition: PLURAL.GROUP, e.g. "widgets.example.com".
	CRD string
	// Path to serve; default "/convert-" + the CRD's name with dots as dashes.
	Path string
	// Converter converts the objects, typically a *conversion.Hub.
	Converter conversion.Converter
}

// RegisterConversion adds a conversion webhook for c.CRD, served on its path.
func (r *Registry) RegisterConversion(c Conversion) error {
	var problems []string
	plural, group, ok := strings.Cut(c.CRD, ".")
	if !ok || plural == "" || !strings.Contains(group, ".") || c.CRD != strings.ToLower(c.CRD) {
		problems = append(problems, fmt.Sprintf("CRD %q: want the CustomResourceDefinition's name, PLURAL.GROUP in lower case, e.g. widgets.example.com", c.CRD))
	}
	if c.Converter == nil || isNilValue(c.Converter) {
		problems = append(problems, "a Converter is required (a *conversion.Hub)")
	}
	for _, existing := range r.conversions {
		if existing.CRD == c.CRD {
			problems = append(problems, fmt.Sprintf("a conversion webhook for %s is already registered", c.CRD))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("registering the conversion webhook for %q: %s", c.CRD, strings.Join(problems, "; "))
	}
	if c.Path == "" {
		c.Path = "/convert-" + strings.ReplaceAll(c.CRD, ".", "-")
	}
	if !strings.HasPrefix(c.Path, "/") {
		return fmt.Errorf("registering the conversion webhook for %q: path %q must start with /", c.CRD, c.Path)
	}
	if owner, taken := r.paths[c.Path]; taken {
		return fmt.Errorf("registering the conversion webhook for %q: path %s is already served by webhook %q", c.CRD, c.Path, owner)
	}
	r.paths[c.Path] = c.CRD
	r.conversions = append(r.conversions, c)
	r.mux.Handle(c.Path, conversion.NewHTTPHandler(c.Converter, conversion.Options{MaxRequestBytes: r.opts.MaxRequestBytes, Logger: r.opts.Logger}))
	return nil
}

// Conversions returns the registered conversion webhooks, with their paths, in registration order.
func (r *Registry) Conversions() []Conversion { return append([]Conversion(nil), r.conversions...) }

// CRDConversion is the spec.conversion the CustomResourceDefinition crd needs to call this
// server at cc: strategy Webhook, ConversionReview v1, the path registered for it.
func (r *Registry) CRDConversion(crd string, cc ClientConfig) (*apiextensionsv1.CustomResourceConversion, error) {
	var found *Conversion
	for i := range r.conversions {
		if r.conversions[i].CRD == crd {
			found = &r.conversions[i]
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no conversion webhook is registered for %s", crd)
	}
	if (cc.Service == "") == (cc.URL == "") {
		return nil, fmt.Errorf("the conversion webhook for %s: exactly one of service or URL is required in the client config", crd)
	}
	client := &apiextensionsv1.WebhookClientConfig{CABundle: cc.CABundle}
	if cc.Service != "" {
		if cc.Namespace == "" {
			return nil, fmt.Errorf("the conversion webhook for %s: a service client config needs the service's namespace", crd)
		}
		port, path := cc.servicePort(), found.Path
		client.Service = &apiextensionsv1.ServiceReference{Name: cc.Service, Namespace: cc.Namespace, Port: &port, Path: &path}
	} else {
		url := cc.urlOf(found.Path)
		client.URL = &url
	}
	return &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: client, ConversionReviewVersions: []string{"v1"}},
	}, nil
}
