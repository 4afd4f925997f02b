package webhook

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// celCompatibilityVersion is the CEL compatibility version of kube-apiserver 1.36 run with its
// defaults (1.35): the libraries new expressions may use are those every apiserver from then on
// understands. It is the version matchconditions compiles with, so a condition Register
// accepts is one the dispatcher, admit lint and kube-apiserver accept; a test holds the two
// together.
func celCompatibilityVersion() *version.Version { return version.MajorMinor(1, 35) }

// maxMatchConditions is the most match conditions kube-apiserver accepts on a webhook.
const maxMatchConditions = 64

// conditionCompiler compiles match conditions as kube-apiserver does when a configuration is
// created. Building its environments takes tens of milliseconds, so a Registry builds one, the
// first time a webhook has conditions.
type conditionCompiler struct{ compiler plugincel.Compiler }

func newConditionCompiler() *conditionCompiler {
	return &conditionCompiler{compiler: plugincel.NewCompiler(environment.MustBaseEnvSet(celCompatibilityVersion()))}
}

// validate checks conditions as kube-apiserver validates a configuration's matchConditions:
// at most 64; each with a qualified name, unique in the webhook, and an expression that
// compiles to a bool with the variables webhooks' conditions have (object, oldObject,
// request, authorizer and authorizer.requestResource, namespaceObject, which is always null for
// webhooks; no params). Errors carry the apiserver's words and field paths.
func (c *conditionCompiler) validate(conditions []admissionregistrationv1.MatchCondition, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conditions) > maxMatchConditions {
		errs = append(errs, field.TooMany(path, len(conditions), maxMatchConditions))
	}
	names := sets.New[string]()
	for i, mc := range conditions {
		at := path.Index(i)
		// The apiserver compiles (and reports) the expression without surrounding whitespace.
		expression := strings.TrimSpace(mc.Expression)
		if expression == "" {
			errs = append(errs, field.Required(at.Child("expression"), ""))
		} else if err := c.compile(mc.Name, expression); err != nil {
			errs = append(errs, celFieldError(at.Child("expression"), expression, err))
		}
		if mc.Name == "" {
			errs = append(errs, field.Required(at.Child("name"), ""))
			continue
		}
		for _, msg := range utilvalidation.IsQualifiedName(mc.Name) {
			errs = append(errs, field.Invalid(at.Child("name"), mc.Name, msg))
		}
		if names.Has(mc.Name) {
			errs = append(errs, field.Duplicate(at.Child("name"), mc.Name))
		}
		names.Insert(mc.Name)
	}
	return errs
}

func (c *conditionCompiler) compile(name, expression string) *apiservercel.Error {
	// Webhooks' conditions have an authorizer and no params.
	variables := plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}
	result := c.compiler.CompileCELExpression(&celCondition{name: name, expression: expression}, variables, environment.NewExpressions)
	return result.Error
}

// celCondition is one condition as the apiserver's compiler takes it.
type celCondition struct{ name, expression string }

func (c *celCondition) GetExpression() string { return c.expression }

// ReturnTypes makes the compiler refuse expressions that are not booleans, such as a bare
// object.spec.enabled, whose type is dyn.
func (c *celCondition) ReturnTypes() []*cel.Type { return []*cel.Type{cel.BoolType} }

// celFieldError is the field error the apiserver reports for a compilation error.
func celFieldError(path *field.Path, expression string, err *apiservercel.Error) *field.Error {
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(path, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(path, expression, err.Detail)
	default:
		return field.InternalError(path, fmt.Errorf("compiling the expression: %w", err))
	}
}
