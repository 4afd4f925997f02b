package config

import (
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Set is what was loaded: webhook configurations (defaulted) and every other object, each with
// its source, in input order.
type Set struct {
	Mutating   []Mutating
	Validating []Validating
	// Others are the objects of other kinds (Deployments, Services, Namespaces, CRDs...), as
	// read, for tools that look at a webhook's surroundings.
	Others []Object
	// Dropped counts the objects of other kinds read and not kept (Options.Others).
	Dropped int
}

// Mutating is a loaded MutatingWebhookConfiguration.
type Mutating struct {
	Source Source
	Config *admissionregistrationv1.MutatingWebhookConfiguration
}

// Validating is a loaded ValidatingWebhookConfiguration.
type Validating struct {
	Source Source
	Config *admissionregistrationv1.ValidatingWebhookConfiguration
}

// Object is a loaded object of another kind.
type Object struct {
	Source Source
	Object *unstructured.Unstructured
}

var (
	mutatingKind       = schema.GroupKind{Group: admissionregistrationv1.GroupName, Kind: "MutatingWebhookConfiguration"}
	validatingKind     = schema.GroupKind{Group: admissionregistrationv1.GroupName, Kind: "ValidatingWebhookConfiguration"}
	mutatingResource   = admissionregistrationv1.Resource("mutatingwebhookconfigurations")
	validatingResource = admissionregistrationv1.Resource("validatingwebhookconfigurations")
)

// MutatingConfigs returns the mutating configurations, in input order.
func (s *Set) MutatingConfigs() []*admissionregistrationv1.MutatingWebhookConfiguration {
	out := make([]*admissionregistrationv1.MutatingWebhookConfiguration, len(s.Mutating))
	for i, m := range s.Mutating {
		out[i] = m.Config
	}
	return out
}

// ValidatingConfigs returns the validating configurations, in input order.
func (s *Set) ValidatingConfigs() []*admissionregistrationv1.ValidatingWebhookConfiguration {
	out := make([]*admissionregistrationv1.ValidatingWebhookConfiguration, len(s.Validating))
	for i, v := range s.Validating {
		out[i] = v.Config
	}
	return out
}

// Append adds the contents of other to s, after its own.
func (s *Set) Append(other *Set) {
	s.Mutating = append(s.Mutating, other.Mutating...)
	s.Validating = append(s.Validating, other.Validating...)
	s.Others = append(s.Others, other.Others...)
	s.Dropped += other.Dropped
}

// Validate validates every configuration as kube-apiserver does when it is created, and checks
// that no two configurations of the same kind share a name (the second create would fail).
// It returns the warnings the apiserver would send and an error joining one error per problem,
// each starting with the source of the configuration, e.g.
//
//	webhooks.yaml:3: MutatingWebhookConfiguration.admissionregistration.k8s.io "pods" is invalid: webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds
//
// The errors wrap the apiserver's status errors: apierrors.IsInvalid and IsAlreadyExists work.
func (s *Set) Validate() (warnings []string, err error) {
	var errs []error
	firstMutating := map[string]Source{}
	for _, m := range s.Mutating {
		if fieldErrs := ValidateMutating(m.Config); len(fieldErrs) > 0 {
			errs = append(errs, fmt.Errorf("%s: %w", m.Source, apierrors.NewInvalid(mutatingKind, m.Config.Name, fieldErrs)))
		}
		errs = append(errs, checkUnique(firstMutating, m.Config.Name, m.Source, mutatingResource))
		for _, w := range WarningsMutating(m.Config) {
			warnings = append(warnings, fmt.Sprintf("%s: %s %q: %s", m.Source, mutatingKind.Kind, m.Config.Name, w))
		}
	}
	firstValidating := map[string]Source{}
	for _, v := range s.Validating {
		if fieldErrs := ValidateValidating(v.Config); len(fieldErrs) > 0 {
			errs = append(errs, fmt.Errorf("%s: %w", v.Source, apierrors.NewInvalid(validatingKind, v.Config.Name, fieldErrs)))
		}
		errs = append(errs, checkUnique(firstValidating, v.Config.Name, v.Source, validatingResource))
		for _, w := range WarningsValidating(v.Config) {
			warnings = append(warnings, fmt.Sprintf("%s: %s %q: %s", v.Source, validatingKind.Kind, v.Config.Name, w))
		}
	}
	return warnings, errors.Join(errs...)
}

func checkUnique(first map[string]Source, name string, source Source, resource schema.GroupResource) error {
	if name == "" {
		return nil // reported by validation
	}
	if earlier, ok := first[name]; ok {
		return fmt.Errorf("%s: %w (first defined at %s)", source, apierrors.NewAlreadyExists(resource, name), earlier)
	}
	first[name] = source
	return nil
}
