package webhook

import (
	"fmt"
	"slices"

	"github.com/admitkit/admit/internal/rulecheck"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// check returns every problem of w, as field errors named by the field of Webhook (and of the
// configuration) they are about. w has its defaults filled in.
func (r *Registry) check(w Webhook, hk handlerKind) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, r.checkName(w)...)
	if w.Type != TypeMutating && w.Type != TypeValidating {
		errs = append(errs, field.NotSupported(field.NewPath("type"), w.Type, []string{string(TypeMutating), string(TypeValidating)}))
	}
	errs = append(errs, checkHandler(w)...)
	errs = append(errs, checkKind(w, hk)...)
	errs = append(errs, checkResource(w)...)
	if len(w.Rules) > 0 {
		errs = append(errs, checkRules(w)...)
	}
	errs = append(errs, checkPolicies(w)...)
	errs = append(errs, checkSelectors(w)...)
	if len(w.MatchConditions) > 0 {
		if r.conditions == nil {
			r.conditions = newConditionCompiler()
		}
		invalid := r.conditions.validate(w.MatchConditions, field.NewPath("matchConditions"))
		errs = append(errs, invalid...)
		errs = append(errs, r.checkConditionTypes(w, hk, invalid)...)
	}
	return errs
}

// checkName checks the name as kube-apiserver does, and that it is unique among the registered
// webhooks of its type (they share a configuration).
func (r *Registry) checkName(w Webhook) field.ErrorList {
	path := field.NewPath("name")
	switch {
	case w.Name == "":
		return field.ErrorList{field.Required(path, "")}
	case r.names[string(w.Type)+"/"+w.Name]:
		return field.ErrorList{field.Invalid(path, w.Name, fmt.Sprintf("a %s webhook of that name is already registered (names are unique in a configuration)", w.Type))}
	}
	return utilvalidation.IsFullyQualifiedName(path, w.Name)
}

// checkHandler refuses a handler that would fail every request: nil, a nil HandlerFunc or
// pointer, a typed adapter without its Defaulter or Validator, and a DefaultingHandler in a
// validating webhook (kube-apiserver refuses a validating webhook's patch).
func checkHandler(w Webhook) field.ErrorList {
	path := field.NewPath("handler")
	switch {
	case w.Handler == nil:
		return field.ErrorList{field.Required(path, "")}
	case isNilValue(w.Handler):
		return field.ErrorList{field.Required(path, fmt.Sprintf("the %T is nil: it would panic at the first request", w.Handler))}
	}
	typed, ok := w.Handler.(typedHandler)
	if !ok {
		return nil
	}
	var errs field.ErrorList
	if typed.info.missing {
		errs = append(errs, field.Required(path, fmt.Sprintf("the %s's %s is nil", typed.info.adapter, map[bool]string{true: "Defaulter", false: "Validator"}[typed.info.mutates])))
	}
	if typed.info.mutates && w.Type == TypeValidating {
		errs = append(errs, field.Invalid(field.NewPath("type"), w.Type, "a DefaultingHandler changes objects: register it as TypeMutating (a validating webhook's patch is refused)"))
	}
	return errs
}

// checkPolicies checks the enumerations and numbers a configuration declares, with the values
// kube-apiserver accepts when a configuration is created.
func checkPolicies(w Webhook) field.ErrorList {
	var errs field.ErrorList
	oneOf := func(name string, value string, allowed ...string) {
		if value != "" && !slices.Contains(allowed, value) {
			errs = append(errs, field.NotSupported(field.NewPath(name), value, allowed))
		}
	}
	oneOf("scope", string(w.Scope), rulecheck.Scopes()...)
	for i, op := range w.Operations {
		if !slices.Contains(rulecheck.Operations(), string(op)) {
			errs = append(errs, field.NotSupported(field.NewPath("operations").Index(i), op, rulecheck.Operations()))
		}
	}
	oneOf("failurePolicy", string(w.FailurePolicy), string(admissionregistrationv1.Fail), string(admissionregistrationv1.Ignore))
	oneOf("matchPolicy", string(w.MatchPolicy), string(admissionregistrationv1.Equivalent), string(admissionregistrationv1.Exact))
	// Some and Unknown are only tolerated on configurations that had them before v1.
	oneOf("sideEffects", string(w.SideEffects), string(admissionregistrationv1.SideEffectClassNone), string(admissionregistrationv1.SideEffectClassNoneOnDryRun))
	switch {
	case w.ReinvocationPolicy != "" && w.Type == TypeValidating:
		errs = append(errs, field.Forbidden(field.NewPath("reinvocationPolicy"), "only mutating webhooks are reinvoked"))
	default:
		oneOf("reinvocationPolicy", string(w.ReinvocationPolicy), string(admissionregistrationv1.IfNeededReinvocationPolicy), string(admissionregistrationv1.NeverReinvocationPolicy))
	}
	if w.TimeoutSeconds < 0 || w.TimeoutSeconds > 30 {
		errs = append(errs, field.Invalid(field.NewPath("timeoutSeconds"), w.TimeoutSeconds, fmt.Sprintf("must be between 1 and 30 seconds (0 for the default, %d)", DefaultTimeoutSeconds)))
	}
	return errs
}

// checkSelectors validates the selectors as kube-apiserver does, label values included.
func checkSelectors(w Webhook) field.ErrorList {
	opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}
	var errs field.ErrorList
	if w.ObjectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(w.ObjectSelector, opts, field.NewPath("objectSelector"))...)
	}
	if w.NamespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(w.NamespaceSelector, opts, field.NewPath("namespaceSelector"))...)
	}
	return errs
}
