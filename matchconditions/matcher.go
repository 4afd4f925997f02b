package matchconditions

import (
	"context"
	"errors"

	celtypes "github.com/google/cel-go/common/types"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Matcher evaluates the compiled matchConditions of one webhook. It is immutable and safe for
// concurrent use; compile it once per webhook.
type Matcher struct {
	names     []string
	evaluator plugincel.ConditionEvaluator
	// budget is the total runtime cost all conditions may spend on one admission.
	budget int64
}

// Result is the outcome of a Match that did not fail.
type Result struct {
	// Matched is true when every condition evaluated to true.
	Matched bool
	// FalseCondition names the first condition, in order, that evaluated to false.
	FalseCondition string
	// EvaluationErrors counts the conditions that failed to evaluate before the outcome was
	// decided, as kube-apiserver counts them in
	// apiserver_admission_match_condition_evaluation_errors_total: conditions after the first
	// false one are not counted. When Match returns an error, the count is in the error (see
	// EvaluationErrors).
	EvaluationErrors int
}

// Compile compiles a webhook's matchConditions as kube-apiserver does when it loads webhook
// configurations, with the environment for stored expressions. Its error lists every condition
// that does not compile, with paths under "matchConditions". Conditions are not otherwise
// validated (names, count): Validate does that.
//
// kube-apiserver never stores a configuration whose conditions do not compile; one that stops
// compiling (after a downgrade) fails every evaluation instead. Compile refuses it up front,
// which says the same thing earlier.
//
// A Matcher without conditions always matches.
func Compile(conditions []admissionregistrationv1.MatchCondition) (*Matcher, error) {
	names := make([]string, len(conditions))
	results := make([]plugincel.CompilationResult, len(conditions))
	var errs field.ErrorList
	for i, c := range conditions {
		names[i] = c.Name
		results[i] = compile(&condition{name: c.Name, expression: c.Expression}, environment.StoredExpressions)
		if results[i].Error != nil {
			errs = append(errs, fieldError(field.NewPath("matchConditions").Index(i).Child("expression"), c.Expression, results[i].Error))
		}
	}
	if len(errs) > 0 {
		// The paths ("matchConditions[1].expression: ...") say what failed; callers add which
		// webhook.
		return nil, errs.ToAggregate()
	}
	return &Matcher{
		names:     names,
		evaluator: plugincel.NewCondition(results),
		budget:    celconfig.RuntimeCELCostBudgetMatchConditions,
	}, nil
}

// Match evaluates the conditions, in order, for one admission.
//
// It returns an error when no condition is false and at least one failed to evaluate, or when
// the conditions together ran out of their cost budget (whatever they evaluated to), or when
// the input cannot be prepared. An evaluation error is the aggregate of every failure, worded
// exactly as kube-apiserver words it; the caller wraps it for the client, e.g. with
// apierrors.NewForbidden, and applies the webhook's failurePolicy.
func (m *Matcher) Match(ctx context.Context, in Input) (Result, error) {
	if len(m.names) == 0 {
		return Result{Matched: true}, nil
	}
	attributes, request, err := in.prepare()
	if err != nil {
		return Result{}, err
	}
	evaluations, _, err := m.evaluator.ForInput(ctx, attributes, request,
		plugincel.OptionalVariableBindings{Authorizer: in.authorizer()}, nil, m.budget)
	if err != nil {
		return Result{}, err
	}
	var failures []error
	for i, evaluation := range evaluations {
		if evaluation.Error != nil {
			failures = append(failures, evaluation.Error)
		}
		// A false condition wins over errors, even over errors of earlier conditions.
		if evaluation.EvalResult == celtypes.False {
			return Result{FalseCondition: m.names[i], EvaluationErrors: len(failures)}, nil
		}
	}
	if len(failures) > 0 {
		return Result{}, &EvaluationError{aggregate: utilerrors.NewAggregate(failures)}
	}
	return Result{Matched: true}, nil
}

// EvaluationError is the error Match returns when conditions failed to evaluate and none was
// false. Its message is the apiserver's aggregate of the failures.
type EvaluationError struct {
	aggregate utilerrors.Aggregate
}

func (e *EvaluationError) Error() string { return e.aggregate.Error() }

// Unwrap returns the failures, one per condition that failed to evaluate.
func (e *EvaluationError) Unwrap() []error { return e.aggregate.Errors() }

// EvaluationErrors returns how many conditions failed to evaluate when err comes from Match,
// for apiserver_admission_match_condition_evaluation_errors_total; 0 for other errors.
func EvaluationErrors(err error) int {
	var evaluationErr *EvaluationError
	if errors.As(err, &evaluationErr) {
		return len(evaluationErr.aggregate.Errors())
	}
	return 0
}
