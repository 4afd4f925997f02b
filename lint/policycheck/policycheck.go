package policycheck

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/resources"
)

// Needed reports whether linting set asks a Checker anything: the set has admission policies
// or bindings, or webhooks with match conditions to type-check.
func Needed(set *config.Set) bool {
	for _, m := range set.Mutating {
		for _, w := range m.Config.Webhooks {
			if len(w.MatchConditions) > 0 {
				return true
			}
		}
	}
	for _, v := range set.Validating {
		for _, w := range v.Config.Webhooks {
			if len(w.MatchConditions) > 0 {
				return true
			}
		}
	}
	return HasPolicies(set)
}

// HasPolicies reports whether the set has admission policies or bindings.
func HasPolicies(set *config.Set) bool {
	for _, obj := range set.Others {
		if resources.IsPolicy(obj.Object.GroupVersionKind().GroupKind()) {
			return true
		}
	}
	return false
}

// Checker answers lint's questions about admission policies and the types of match conditions
// (lint.PolicyChecker) with kube-apiserver's own validation, type checking and schemas, from
// package chain.
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

// TypeCheckCondition type-checks a webhook's match condition against the published schemas of
// kinds (built-in ones, and custom resources of the set's CRDs).
func (c *Checker) TypeCheckCondition(expression string, kinds []schema.GroupVersionKind) []string {
	errs, err := c.types.CheckCondition(expression, kinds)
	if err != nil {
		return nil // a schema the checker cannot type: nothing is known of the condition
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.String()
	}
	return out
}
