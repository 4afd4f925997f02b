package matchconditions

import (
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/environment"
)

// MaxConditions is the most match conditions a webhook may have.
const MaxConditions = 64

// Validate checks a webhook's matchConditions as kube-apiserver 1.36 does when a webhook
// configuration is created, and returns its errors with its paths and words, fldPath being the
// path of the matchConditions field (e.g. webhooks[0].matchConditions): at most 64 conditions;
// each with a name that is a qualified name, unique in the webhook, and an expression that
// compiles to a boolean in the environment for new expressions.
func Validate(conditions []admissionregistrationv1.MatchCondition, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conditions) > MaxConditions {
		errs = append(errs, field.TooMany(fldPath, len(conditions), MaxConditions))
	}
	names := sets.New[string]()
	for i, c := range conditions {
		errs = append(errs, validateCondition(c, fldPath.Index(i))...)
		if c.Name == "" {
			continue
		}
		if names.Has(c.Name) {
			errs = append(errs, field.Duplicate(fldPath.Index(i).Child("name"), c.Name))
		}
		names.Insert(c.Name)
	}
	return errs
}

func validateCondition(c admissionregistrationv1.MatchCondition, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	// The apiserver compiles (and reports) the expression without surrounding whitespace.
	expression := strings.TrimSpace(c.Expression)
	if expression == "" {
		errs = append(errs, field.Required(fldPath.Child("expression"), ""))
	} else if result := compile(&condition{name: c.Name, expression: expression}, environment.NewExpressions); result.Error != nil {
		errs = append(errs, fieldError(fldPath.Child("expression"), expression, result.Error))
	}
	if c.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), ""))
	} else {
		for _, msg := range utilvalidation.IsQualifiedName(c.Name) {
			errs = append(errs, field.Invalid(fldPath.Child("name"), c.Name, msg).WithOrigin("format=qualified-name"))
		}
	}
	return errs
}
