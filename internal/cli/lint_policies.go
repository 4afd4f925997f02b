package cli

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/review"
)

// hasPolicies reports whether the set has admission policies or bindings.
func hasPolicies(set *config.Set) bool {
	for _, obj := range set.Others {
		if review.IsPolicy(obj.Object) {
			return true
		}
	}
	return false
}

// policyChecker answers lint's questions about admission policies with kube-apiserver's own
// validation and type checking, from package chain.
type policyChecker struct {
	types *chain.PolicyTypeChecker
}

func newPolicyChecker(set *config.Set) (*policyChecker, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, obj := range set.Others {
		if gvk := obj.Object.GroupVersionKind(); gvk.Group != "apiextensions.k8s.io" || gvk.Kind != "CustomResourceDefinition" {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object.Object, &crd); err != nil {
			return nil, fmt.Errorf("%s: reading CustomResourceDefinition: %w", obj.Source, err)
		}
		crds = append(crds, &crd)
	}
	types, err := chain.NewPolicyTypeChecker(crds)
	if err != nil {
		return nil, err
	}
	return &policyChecker{types: types}, nil
}

func (c *policyChecker) Validate(obj *unstructured.Unstructured) field.ErrorList {
	errs, _, err := chain.PolicyErrors(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return errs
}

func (c *policyChecker) TypeCheck(obj *unstructured.Unstructured) []lint.TypeWarning {
	warnings, err := c.types.Check(obj)
	if err != nil {
		return nil // an object that does not decode: Validate reports it
	}
	out := make([]lint.TypeWarning, len(warnings))
	for i, w := range warnings {
		out[i] = lint.TypeWarning{Field: w.Field, Message: w.String()}
	}
	return out
}
