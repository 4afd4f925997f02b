package matchconditions

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// CompatibilityVersion is the CEL compatibility version of kube-apiserver 1.36 run with its
// defaults: the libraries and language features new expressions may use are those every
// apiserver from this version on understands, so that a rollback to 1.35 keeps them working.
//
// It is pinned rather than read from the process (environment.DefaultCompatibilityVersion) so
// that upgrading the k8s.io libraries never silently changes which expressions are accepted.
func CompatibilityVersion() *version.Version { return version.MajorMinor(1, 35) }

// declarations are the optional variables of webhook match conditions: the authorizer, no params.
var declarations = plugincel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}

// sharedCompiler builds the apiserver's admission CEL environments once per process. Building
// them takes tens of milliseconds and the result is immutable and safe for concurrent use, so
// every Compile and Validate shares it (kube-apiserver does the same).
var sharedCompiler = sync.OnceValue(func() plugincel.Compiler {
	return plugincel.NewCompiler(environment.MustBaseEnvSet(CompatibilityVersion()))
})

// condition is one match condition as the apiserver's compiler sees it.
type condition struct {
	name, expression string
}

func (c *condition) GetExpression() string { return c.expression }

// ReturnTypes makes the compiler reject expressions that are not booleans, e.g. a bare
// `object.spec.enabled`, whose type is dyn ("must evaluate to bool but got dyn").
func (c *condition) ReturnTypes() []*cel.Type { return []*cel.Type{cel.BoolType} }

func compile(c *condition, envType environment.Type) plugincel.CompilationResult {
	return sharedCompiler().CompileCELExpression(c, declarations, envType)
}

// fieldError turns a compilation error into the field error the apiserver reports for it.
func fieldError(fldPath *field.Path, expression string, err *apiservercel.Error) *field.Error {
	switch err.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(fldPath, err.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(fldPath, expression, err.Detail)
	case apiservercel.ErrorTypeInternal:
		return field.InternalError(fldPath, err)
	default:
		return field.InternalError(fldPath, fmt.Errorf("unsupported error type: %w", err))
	}
}
