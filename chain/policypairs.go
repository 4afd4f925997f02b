package chain

import (
	"sort"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// policyPair is a binding and the policy it names, or a policy no binding names (unbound), or a
// binding whose policy does not exist (missing). name is the policy's name and the binding's.
type policyPair struct {
	policy  runtime.Object
	binding runtime.Object
	name    [2]string
	missing bool
	unbound bool
}

// pairPolicies pairs the bindings of the given kind among policies with their policies, and
// adds a pair for each policy no binding names, in the order the rows go in: by policy name,
// then binding name.
func pairPolicies(mutating bool, policies []runtime.Object) []policyPair {
	byName := map[string]runtime.Object{}
	var pairs []policyPair
	for _, obj := range policies {
		switch o := obj.(type) {
		case *admissionregistrationv1.ValidatingAdmissionPolicy:
			if !mutating {
				byName[o.Name] = o
			}
		case *admissionregistrationv1.MutatingAdmissionPolicy:
			if mutating {
				byName[o.Name] = o
			}
		}
	}
	for _, obj := range policies {
		switch o := obj.(type) {
		case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
			if !mutating {
				p, ok := byName[o.Spec.PolicyName]
				pairs = append(pairs, policyPair{policy: p, binding: o, name: [2]string{o.Spec.PolicyName, o.Name}, missing: !ok})
			}
		case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
			if mutating {
				p, ok := byName[o.Spec.PolicyName]
				pairs = append(pairs, policyPair{policy: p, binding: o, name: [2]string{o.Spec.PolicyName, o.Name}, missing: !ok})
			}
		}
	}
	// A policy no binding names never runs: it still gets a row, which says so.
	named := map[string]bool{}
	for _, p := range pairs {
		named[p.name[0]] = true
	}
	for name := range byName {
		if !named[name] {
			pairs = append(pairs, policyPair{name: [2]string{name, ""}, unbound: true})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].name[0] != pairs[j].name[0] {
			return pairs[i].name[0] < pairs[j].name[0]
		}
		return pairs[i].name[1] < pairs[j].name[1]
	})
	return pairs
}
