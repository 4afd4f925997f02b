package lint

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// checkPolicyKubeSystem (F03): fail-closed policies whose denying bindings reach the writes the
// control plane needs in kube-system.
func checkPolicyKubeSystem(a *analysis) []finding {
	var out []finding
	nsLabels, _ := a.inv.namespaceLabels(kubeSystem)
	for _, p := range a.policies {
		if !p.constraints.failClosed() {
			continue
		}
		for _, b := range p.bindings {
			if !b.denies(p.mutating) {
				continue
			}
			writes := a.policyIntercepts(p, b, kubeSystem)
			if len(writes) == 0 {
				continue
			}
			out = append(out, finding{
				config: p.config, field: "spec.matchConstraints.namespaceSelector",
				message: fmt.Sprintf("fails closed and, through binding %q, applies to %s in kube-system (labels %s): an expression that fails at runtime, or parameters that go missing, deny the control plane's writes there",
					b.config.name, describeRequests(writes), describeLabels(nsLabels)),
				hint: "exclude kube-system: " + excludeNamespaceHint(kubeSystem) + " in spec.matchConstraints, or in the binding's matchResources",
			})
		}
	}
	return out
}

// policyIntercepts lists the restart writes in namespace that a policy applies to through a
// binding: those its matchConstraints and the binding's matchResources both match.
func (a *analysis) policyIntercepts(p *admissionPolicy, b *policyBinding, namespace string) []request {
	writes := a.interceptedRestartWrites(p.constraints, namespace, labels.Set{}, "")
	if b.resources == nil {
		return writes
	}
	narrowed := map[request]bool{}
	for _, w := range a.interceptedRestartWrites(b.resources, namespace, labels.Set{}, "") {
		narrowed[w] = true
	}
	var out []request
	for _, w := range writes {
		if narrowed[w] {
			out = append(out, w)
		}
	}
	return out
}

// checkPolicyOnOwnParams (F04): fail-closed policies matching writes of their own parameters.
func checkPolicyOnOwnParams(a *analysis) []finding {
	var out []finding
	for _, p := range a.policies {
		if p.paramKind == nil || !p.constraints.failClosed() {
			continue
		}
		gv, err := schema.ParseGroupVersion(p.paramKind.APIVersion)
		if err != nil {
			continue
		}
		res, err := a.mapper.ResourceFor(gv.WithKind(p.paramKind.Kind))
		if err != nil {
			continue // F02
		}
		for _, op := range []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update} {
			req := request{gvr: res.GVR, operation: op, namespaced: res.Namespaced}
			if !p.constraints.matchesRules(a.mapper, req) {
				continue
			}
			out = append(out, finding{
				config: p.config, field: "spec.matchConstraints",
				message: fmt.Sprintf("fails closed and applies to %s, the kind of its own parameters (%s): a change to its parameters goes through the policy, so a mistake in them can deny the change that fixes it",
					req, p.paramKind.Kind),
				hint: "exclude the parameters from spec.matchConstraints: by namespace (namespaceSelector), by label (objectSelector) or with excludeResourceRules",
			})
			break
		}
	}
	return out
}

// checkPolicyTypes (F05): expressions that do not type-check, from the PolicyChecker.
func checkPolicyTypes(a *analysis) []finding {
	if a.checker == nil {
		return nil
	}
	var out []finding
	for _, p := range a.policies {
		// An expression that does not compile is A01's: the apiserver refuses the policy.
		invalid := map[string]bool{}
		for _, err := range p.config.validate() {
			invalid[err.Field] = true
		}
		// One finding per expression, naming every kind it does not fit.
		var fields []string
		errors := map[string][]string{}
		for _, w := range a.checker.TypeCheck(p.object) {
			if invalid[w.Field] {
				continue
			}
			if _, ok := errors[w.Field]; !ok {
				fields = append(fields, w.Field)
			}
			errors[w.Field] = append(errors[w.Field], w.Message)
		}
		for _, f := range fields {
			out = append(out, finding{
				config: p.config, field: f, message: "does not type-check " + strings.Join(errors[f], "; "),
				hint: "fix the expression for the kinds spec.matchConstraints matches, or narrow them",
			})
		}
	}
	return out
}

// checkWarnOnlyBinding (F06): validating bindings without Deny.
func checkWarnOnlyBinding(a *analysis) []finding {
	var out []finding
	for _, b := range a.bindings {
		if b.config.kind != validatingBindingKind || b.denies(false) || len(b.actions) == 0 {
			continue
		}
		var actions []string
		for _, x := range b.actions {
			actions = append(actions, string(x))
		}
		out = append(out, finding{
			config: b.config, field: "spec.validationActions",
			message: fmt.Sprintf("has validationActions %s: policy %q's violations are reported, never denied", strings.Join(actions, ", "), b.policy),
			hint:    "add Deny once the policy has been observed in Warn or Audit",
		})
	}
	return out
}

// describeKind names a kind the way people write it: ReplicaLimit (limits.example.com/v1).
func describeKind(gvk schema.GroupVersionKind) string {
	return fmt.Sprintf("%s (%s)", gvk.Kind, gvk.GroupVersion())
}
