package lint

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/chain"
)

// chainPolicies is the PolicyChecker the CLI gives lint: kube-apiserver's own validation and
// type checking from package chain. The fixtures match built-in kinds only, so it knows no CRDs.
type chainPolicies struct {
	types *chain.PolicyTypeChecker
}

func newChainPolicies(t *testing.T) *chainPolicies {
	t.Helper()
	types, err := chain.NewPolicyTypeChecker(nil)
	if err != nil {
		t.Fatalf("NewPolicyTypeChecker: %v", err)
	}
	return &chainPolicies{types: types}
}

func (c *chainPolicies) Validate(obj *unstructured.Unstructured) field.ErrorList {
	errs, _, err := chain.PolicyErrors(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return errs
}

func (c *chainPolicies) TypeCheck(obj *unstructured.Unstructured) []TypeWarning {
	warnings, err := c.types.Check(obj)
	if err != nil {
		return nil // an object that does not decode: Validate reports it
	}
	out := make([]TypeWarning, len(warnings))
	for i, w := range warnings {
		out[i] = TypeWarning{Field: w.Field, Message: w.String()}
	}
	return out
}
