package celconditions

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/matchconditions"
)

// Compiler compiles a webhook's matchConditions with kube-apiserver's CEL environment, for
// dispatch.Options.Conditions. authz answers the expressions' authorizer checks; nil denies
// every check.
func Compiler(authz authorizer.Authorizer) dispatch.ConditionCompiler {
	return func(conditions []admissionregistrationv1.MatchCondition, failurePolicy *admissionregistrationv1.FailurePolicyType) (dispatch.ConditionMatcher, error) {
		m, err := matchconditions.Compile(conditions)
		if err != nil {
			return nil, err
		}
		ignore := failurePolicy != nil && *failurePolicy == admissionregistrationv1.Ignore
		return &celConditions{matcher: m, authz: authz, ignoreErrors: ignore}, nil
	}
}

type celConditions struct {
	matcher      *matchconditions.Matcher
	authz        authorizer.Authorizer
	ignoreErrors bool
}

// Match evaluates the conditions; with failurePolicy Ignore an evaluation error skips the
// webhook silently, as in the apiserver (the errors are still counted).
func (c *celConditions) Match(ctx context.Context, in dispatch.ConditionInput) (bool, int, error) {
	res, err := c.matcher.Match(ctx, matchconditions.Input{Request: in.Request, Object: in.Object, OldObject: in.OldObject, Authorizer: c.authz})
	if err != nil {
		n := matchconditions.EvaluationErrors(err)
		if c.ignoreErrors {
			return false, n, nil
		}
		return false, n, err
	}
	return res.Matched, res.EvaluationErrors, nil
}
