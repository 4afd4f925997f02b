package webhook

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// describedConverter is what a converter may say of itself; *conversion.Hub says it. A
// converter of your own that does not is taken on trust.
type describedConverter interface {
	Kind() string
	HubVersion() string
	Versions() []string
}

// checkConversion returns the problems of c: a name that is not a CRD's, and a converter that
// cannot convert every version of the CRD through its hub.
func (r *Registry) checkConversion(c Conversion) field.ErrorList {
	var errs field.ErrorList
	plural, group, ok := strings.Cut(c.CRD, ".")
	if !ok || plural == "" || !strings.Contains(group, ".") || c.CRD != strings.ToLower(c.CRD) {
		errs = append(errs, field.Invalid(field.NewPath("crd"), c.CRD, "want the CustomResourceDefinition's name, PLURAL.GROUP in lower case, e.g. widgets.example.com"))
	}
	path := field.NewPath("converter")
	if c.Converter == nil || isNilValue(c.Converter) {
		return append(errs, field.Required(path, "a *conversion.Hub"))
	}
	hub, ok := c.Converter.(describedConverter)
	if !ok || len(errs) > 0 {
		return errs
	}
	versions := hub.Versions()
	if len(versions) == 0 {
		return append(errs, field.Invalid(path, hub.Kind(), "the hub converts no version: add them with conversion.AddHubVersion and conversion.AddVersion"))
	}
	if hub.HubVersion() == "" {
		errs = append(errs, field.Invalid(path, hub.Kind(), fmt.Sprintf(
			"the version of the hub type is not registered (conversion.AddHubVersion): objects stored in it could not be converted (versions: %s)", strings.Join(versions, ", "))))
	}
	for _, v := range versions {
		if g, _, _ := strings.Cut(v, "/"); g != group {
			errs = append(errs, field.Invalid(path, v, fmt.Sprintf("is not a version of the CRD's group %s", group)))
		}
	}
	if kind, how := r.conversionKind(c, plural, group); kind != "" && kind != hub.Kind() {
		errs = append(errs, field.Invalid(path, hub.Kind(), fmt.Sprintf("the hub converts kind %s, but %s holds %s (%s)", hub.Kind(), c.CRD, kind, how)))
	} else if kind == "" {
		guessed, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Kind: hub.Kind()})
		if guessed.Resource != plural {
			errs = append(errs, field.Invalid(path, hub.Kind(), fmt.Sprintf(
				"the hub converts kind %s, whose plural is %q, not %q: a hub for another kind? If %s's plural is irregular, set kind", hub.Kind(), guessed.Resource, plural, hub.Kind())))
		}
	}
	return errs
}

// conversionKind is the CRD's kind as the Registry knows it: Conversion.Kind, else the kind
// of its admission webhooks for the CRD's resource; "" when it knows none. how says which.
func (r *Registry) conversionKind(c Conversion, plural, group string) (kind, how string) {
	if c.Kind != "" {
		return c.Kind, "its kind"
	}
	for _, w := range r.webhooks {
		for _, rule := range w.rules() {
			for _, res := range rule.Resources {
				if parent, _, _ := strings.Cut(res, "/"); parent == plural && w.Kind.Group == group && w.Kind.Kind != "" {
					return w.Kind.Kind, fmt.Sprintf("the kind of webhook %q", w.Name)
				}
			}
		}
	}
	return "", ""
}
