package lint

import (
	"fmt"
	"strings"

	"github.com/admitkit/admit/internal/words"
)

// kube-apiserver pairs policies and bindings by name: it builds one hook per policy that a
// binding names, with those bindings, and nothing for a binding whose policy it does not have
// (k8s.io/apiserver/pkg/admission/plugin/policy/generic, policySource.calculatePolicyData).
// A policy no binding names is never evaluated, and a binding without its policy is dropped.

// checkBindingWithoutPolicy (F01): bindings whose policy the input does not have.
func checkBindingWithoutPolicy(a *analysis) []finding {
	var out []finding
	for _, b := range a.bindings {
		if b.policy == "" || a.policyOf(b) != nil {
			continue // a binding without policyName is A01's: the apiserver refuses it
		}
		kind := b.policyKind()
		out = append(out, finding{
			config: b.config, field: "spec.policyName",
			message: fmt.Sprintf("names %s %q, which is not in the input: the apiserver ignores the binding, and nothing is enforced", kind, b.policy),
			hint:    fmt.Sprintf("apply %s %q with the binding, or correct spec.policyName", kind, b.policy),
		})
	}
	return out
}

// checkUnboundPolicy (F07): policies no binding of the input names. A set without any binding
// of the policy's kind is taken for a policy library that administrators bind themselves, and
// is not reported; nor are the policies and bindings the apiserver refuses (A01), such as the
// stubs that test suites list to assert that objects do not exist. A set whose bindings name
// fewer than half its policies of a kind reads as a library with example bindings, not an
// installation that forgot some: it is reported once, as info, on its first unbound policy.
// A binding naming a missing policy (F01) is evidence of an installation: then each unbound
// policy is reported, with the binding as the likely fix.
func checkUnboundPolicy(a *analysis) []finding {
	var out []finding
	for _, mutating := range []bool{false, true} {
		bindingKind := validatingBindingKind
		if mutating {
			bindingKind = mutatingBindingKind
		}
		var unbound []*admissionPolicy
		valid := 0
		for _, p := range a.policies {
			if p.mutating != mutating || len(p.config.validate()) > 0 {
				continue
			}
			valid++
			if len(p.bindings) == 0 {
				unbound = append(unbound, p)
			}
		}
		bindings, dangling := a.bindingsOfKind(bindingKind)
		if bindings == 0 || len(unbound) == 0 {
			continue
		}
		if len(dangling) == 0 && 2*(valid-len(unbound)) < valid {
			first := unbound[0]
			out = append(out, finding{
				config: first.config, field: "metadata.name", severity: Info,
				message: fmt.Sprintf("%d of the input's %d %s, this one first, are named by none of its %s: the input reads as a policy library with examples, whose policies administrators bind themselves; installed as it is, they never run",
					len(unbound), valid, strings.TrimSuffix(first.config.kind, "y")+"ies", words.Plural(bindings, bindingKind, bindingKind+"s")),
				hint: fmt.Sprintf("if this is an installation, bind each policy with a %s; if a library, nothing to do", bindingKind),
			})
			continue
		}
		for _, p := range unbound {
			hint := fmt.Sprintf("bind it with a %s whose spec.policyName is %q, or remove the policy", bindingKind, p.config.name)
			if len(dangling) > 0 {
				// A binding whose policy is missing is most often this one's, misspelt (F01).
				hint = fmt.Sprintf("if %s %s is meant for this policy, set its spec.policyName to %q; else bind the policy, or remove it",
					bindingKind, strings.Join(dangling, ", "), p.config.name)
			}
			out = append(out, finding{
				config: p.config, field: "metadata.name",
				message: unnamedBy(bindings, bindingKind) + ": the apiserver evaluates a policy only through its bindings, so this one never runs and enforces nothing",
				hint:    hint,
			})
		}
	}
	return out
}

// bindingsOfKind counts the valid bindings of kind that name a policy, and describes those whose
// policy the input does not have.
func (a *analysis) bindingsOfKind(kind string) (n int, dangling []string) {
	for _, b := range a.bindings {
		if b.config.kind != kind || b.policy == "" || len(b.config.validate()) > 0 {
			continue
		}
		n++
		if a.policyOf(b) == nil {
			dangling = append(dangling, fmt.Sprintf("%q (policyName %q)", b.config.name, b.policy))
		}
	}
	return n, dangling
}

// policyOf is the policy a binding names, nil when the input does not have it.
func (a *analysis) policyOf(b *policyBinding) *admissionPolicy {
	for _, p := range a.policies {
		for _, pb := range p.bindings {
			if pb == b {
				return p
			}
		}
	}
	return nil
}

// policyKind is the kind of policy a binding names.
func (b *policyBinding) policyKind() string {
	if b.config.kind == mutatingBindingKind {
		return mutatingPolicyKind
	}
	return validatingPolicyKind
}

// unnamedBy says that none of the input's n bindings of kind names the policy.
func unnamedBy(n int, kind string) string {
	if n == 1 {
		return "is not named by the input's only " + kind
	}
	return fmt.Sprintf("is named by none of the input's %d %ss", n, kind)
}
