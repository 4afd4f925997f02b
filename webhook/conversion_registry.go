package webhook

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

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
	// Kind is the CRD's kind (spec.names.kind), which a Hub must convert. It defaults to the
	// kind of the Registry's admission webhooks for the CRD's resource, else to the Hub's kind
	// when the CRD's plural is that kind's: set it for a kind whose plural is irregular.
	Kind string
}

// RegisterConversion adds a conversion webhook for c.CRD, served on its path. It refuses, naming
// the field, a name that is not PLURAL.GROUP, a CRD registered twice, and a converter that
// cannot convert the CRD: none, or a *conversion.Hub with no version, without the version of
// its hub type (AddHubVersion), of another kind, or with versions of another group.
func (r *Registry) RegisterConversion(c Conversion) error {
	errs := r.checkConversion(c)
	for _, existing := range r.conversions {
		if existing.CRD == c.CRD {
			errs = append(errs, field.Duplicate(field.NewPath("crd"), c.CRD))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("registering the conversion webhook for %q: %w", c.CRD, registrationErrors(errs))
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
	// A Hub can still change after it was registered: write no stanza for one that no longer
	// converts the CRD.
	if errs := r.checkConversion(*found); len(errs) > 0 {
		return nil, fmt.Errorf("the conversion webhook for %s: %w", crd, registrationErrors(errs))
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
