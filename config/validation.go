package config

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/internal/rulecheck"
	"github.com/admitkit/admit/matchconditions"
)

// The values the apiserver accepts, in the sorted order its messages list them.
var (
	failurePolicies      = []string{string(admissionregistrationv1.Fail), string(admissionregistrationv1.Ignore)}
	matchPolicies        = []string{string(admissionregistrationv1.Equivalent), string(admissionregistrationv1.Exact)}
	reinvocationPolicies = []string{string(admissionregistrationv1.IfNeededReinvocationPolicy), string(admissionregistrationv1.NeverReinvocationPolicy)}
	// Creating a configuration requires webhooks without side effects; Some and Unknown are
	// only tolerated by the apiserver on updates of configurations that already had them.
	noSideEffectClasses = []string{string(admissionregistrationv1.SideEffectClassNone), string(admissionregistrationv1.SideEffectClassNoneOnDryRun)}
	// admissionReviewVersions the apiserver can send.
	reviewVersions = []string{"v1", "v1beta1"}
)

// ValidateMutating validates c as kube-apiserver 1.36 validates a MutatingWebhookConfiguration
// being created, with its field paths and messages. As in the apiserver, the v1 defaults are
// applied first (to a copy; c is not modified), so c may be defaulted or not.
func ValidateMutating(c *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	c = c.DeepCopy()
	SetDefaultsMutating(c)
	errs := validateMetadata(&c.ObjectMeta)
	names := sets.New[string]()
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		path := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(webhookFields{
			name: w.Name, rules: w.Rules, failurePolicy: w.FailurePolicy, matchPolicy: w.MatchPolicy,
			sideEffects: w.SideEffects, timeoutSeconds: w.TimeoutSeconds,
			namespaceSelector: w.NamespaceSelector, objectSelector: w.ObjectSelector,
			mutating: true, reinvocationPolicy: w.ReinvocationPolicy,
			clientConfig: w.ClientConfig, matchConditions: w.MatchConditions,
		}, path)...)
		errs = append(errs, validateAdmissionReviewVersions(w.AdmissionReviewVersions, path.Child("admissionReviewVersions"))...)
		errs = append(errs, validateUniqueName(names, w.Name, path.Child("name"))...)
	}
	return errs
}

// ValidateValidating validates c as kube-apiserver 1.36 validates a
// ValidatingWebhookConfiguration being created, with its field paths and messages, after
// applying the v1 defaults to a copy.
func ValidateValidating(c *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	c = c.DeepCopy()
	SetDefaultsValidating(c)
	errs := validateMetadata(&c.ObjectMeta)
	names := sets.New[string]()
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		path := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(webhookFields{
			name: w.Name, rules: w.Rules, failurePolicy: w.FailurePolicy, matchPolicy: w.MatchPolicy,
			sideEffects: w.SideEffects, timeoutSeconds: w.TimeoutSeconds,
			namespaceSelector: w.NamespaceSelector, objectSelector: w.ObjectSelector,
			clientConfig: w.ClientConfig, matchConditions: w.MatchConditions,
		}, path)...)
		errs = append(errs, validateAdmissionReviewVersions(w.AdmissionReviewVersions, path.Child("admissionReviewVersions"))...)
		errs = append(errs, validateUniqueName(names, w.Name, path.Child("name"))...)
	}
	return errs
}

func validateMetadata(meta *metav1.ObjectMeta) field.ErrorList {
	// Webhook configurations are cluster-scoped. A namespace in the object is not an error: the
	// apiserver's handler clears it before validating, as it does for every cluster-scoped kind
	// (rest.EnsureObjectNamespaceMatchesRequestNamespace), so a chart that sets one installs.
	const namespaced = false
	cleared := *meta
	cleared.Namespace = ""
	return genericvalidation.ValidateObjectMeta(&cleared, namespaced, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

// webhookFields are the fields of a mutating or a validating webhook, so both are validated by
// the same code, in the apiserver's order.
type webhookFields struct {
	name                              string
	rules                             []admissionregistrationv1.RuleWithOperations
	failurePolicy                     *admissionregistrationv1.FailurePolicyType
	matchPolicy                       *admissionregistrationv1.MatchPolicyType
	sideEffects                       *admissionregistrationv1.SideEffectClass
	timeoutSeconds                    *int32
	namespaceSelector, objectSelector *metav1.LabelSelector
	mutating                          bool
	reinvocationPolicy                *admissionregistrationv1.ReinvocationPolicyType
	clientConfig                      admissionregistrationv1.WebhookClientConfig
	matchConditions                   []admissionregistrationv1.MatchCondition
}

func validateWebhook(w webhookFields, path *field.Path) field.ErrorList {
	// The name must be a domain of at least three segments, e.g. pod-policy.example.com.
	errs := utilvalidation.IsFullyQualifiedName(path.Child("name"), w.name)
	for i := range w.rules {
		errs = append(errs, rulecheck.Rule(&w.rules[i], path.Child("rules").Index(i))...)
	}
	if w.failurePolicy != nil && !slices.Contains(failurePolicies, string(*w.failurePolicy)) {
		errs = append(errs, field.NotSupported(path.Child("failurePolicy"), *w.failurePolicy, failurePolicies))
	}
	if w.matchPolicy != nil && !slices.Contains(matchPolicies, string(*w.matchPolicy)) {
		errs = append(errs, field.NotSupported(path.Child("matchPolicy"), *w.matchPolicy, matchPolicies))
	}
	if w.sideEffects == nil {
		errs = append(errs, field.Required(path.Child("sideEffects"), fmt.Sprintf("must specify one of %v", strings.Join(noSideEffectClasses, ", "))))
	} else if !slices.Contains(noSideEffectClasses, string(*w.sideEffects)) {
		errs = append(errs, field.NotSupported(path.Child("sideEffects"), *w.sideEffects, noSideEffectClasses))
	}
	if w.timeoutSeconds != nil && (*w.timeoutSeconds > 30 || *w.timeoutSeconds < 1) {
		errs = append(errs, field.Invalid(path.Child("timeoutSeconds"), *w.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"))
	}
	// Label values are validated strictly: the apiserver only tolerates invalid ones on updates
	// of configurations that already had them.
	selectorOptions := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}
	if w.namespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(w.namespaceSelector, selectorOptions, path.Child("namespaceSelector"))...)
	}
	if w.objectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(w.objectSelector, selectorOptions, path.Child("objectSelector"))...)
	}
	if w.mutating && w.reinvocationPolicy != nil && !slices.Contains(reinvocationPolicies, string(*w.reinvocationPolicy)) {
		errs = append(errs, field.NotSupported(path.Child("reinvocationPolicy"), *w.reinvocationPolicy, reinvocationPolicies))
	}
	errs = append(errs, validateClientConfig(w.clientConfig, path.Child("clientConfig"))...)
	errs = append(errs, matchconditions.Validate(w.matchConditions, path.Child("matchConditions"))...)
	return errs
}

func validateClientConfig(cc admissionregistrationv1.WebhookClientConfig, path *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(path, "exactly one of url or service is required")}
	case cc.URL != nil:
		return validateURL(path.Child("url"), *cc.URL)
	default:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		return validateService(path.Child("service"), cc.Service, port)
	}
}

func validateAdmissionReviewVersions(versions []string, path *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(path, fmt.Sprintf("must specify one of %v", strings.Join(reviewVersions, ", ")))}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	known := false
	for i, version := range versions {
		if seen.Has(version) {
			errs = append(errs, field.Invalid(path.Index(i), version, "duplicate version"))
			continue
		}
		seen.Insert(version)
		for _, msg := range utilvalidation.IsDNS1035Label(version) {
			errs = append(errs, field.Invalid(path.Index(i), version, msg))
		}
		known = known || slices.Contains(reviewVersions, version)
	}
	if !known {
		errs = append(errs, field.Invalid(path, versions, fmt.Sprintf("must include at least one of %v", strings.Join(reviewVersions, ", "))))
	}
	return errs
}

func validateUniqueName(seen sets.Set[string], name string, path *field.Path) field.ErrorList {
	if name == "" {
		return nil // already reported as required
	}
	if seen.Has(name) {
		return field.ErrorList{field.Duplicate(path, name)}
	}
	seen.Insert(name)
	return nil
}
