package lint

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/resources"
)

// chainPolicies is the PolicyChecker the CLI gives lint: kube-apiserver's own validation and
// type checking from package chain. The fixtures match built-in kinds only, so by default it
// knows no CRDs.
type chainPolicies struct {
	types *chain.PolicyTypeChecker
}

func newChainPolicies(t *testing.T) *chainPolicies {
	t.Helper()
	return newChainPoliciesFor(t, nil)
}

// newChainPoliciesFor knows the kinds of the CRDs in set, as the CLI's does.
func newChainPoliciesFor(t *testing.T, set *config.Set) *chainPolicies {
	t.Helper()
	var crds resources.CRDs
	if set != nil {
		for _, obj := range set.Others {
			if err := crds.AddObject(obj.Object, obj.Source.String()); err != nil {
				t.Fatal(err)
			}
		}
	}
	types, err := chain.NewPolicyTypeChecker(crds.List())
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

func (c *chainPolicies) TypeCheckCondition(expression string, kinds []schema.GroupVersionKind) []string {
	errs, err := c.types.CheckCondition(expression, kinds)
	if err != nil {
		return nil // a schema the checker cannot type: nothing is known
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.String()
	}
	return out
}
