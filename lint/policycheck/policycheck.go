package policycheck

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/resources"
)

// HasPolicies reports whether the set has admission policies or bindings.
func HasPolicies(set *config.Set) bool {
	for _, obj := range set.Others {
		if resources.IsPolicy(obj.Object.GroupVersionKind().GroupKind()) {
			return true
		}
	}
	return false
}

// Checker answers lint's questions about admission policies (lint.PolicyChecker) with
// kube-apiserver's own validation and type checking, from package chain.
type Checker struct {
	types *chain.PolicyTypeChecker
}

// New is a Checker that knows the kinds of the CustomResourceDefinitions in set.
func New(set *config.Set) (*Checker, error) {
	var crds resources.CRDs
	for _, obj := range set.Others {
		if err := crds.AddObject(obj.Object, obj.Source.String()); err != nil {
			return nil, err
		}
	}
	types, err := chain.NewPolicyTypeChecker(crds.List())
	if err != nil {
		return nil, err
	}
	return &Checker{types: types}, nil
}

// Validate is kube-apiserver's validation of a policy or binding being created.
func (c *Checker) Validate(obj *unstructured.Unstructured) field.ErrorList {
	errs, _, err := chain.PolicyErrors(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return errs
}

// TypeCheck is kube-apiserver's type checking of a ValidatingAdmissionPolicy's expressions.
func (c *Checker) TypeCheck(obj *unstructured.Unstructured) []lint.TypeWarning {
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
