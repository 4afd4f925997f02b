package lint

import (
	"cmp"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
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
// binding, in the apiserver's order: its matchConstraints and the binding's matchResources both
// match the write (selectors and resource rules, less their excludeResourceRules), then, for a
// policy without parameters, its matchConditions. A policy with parameters has the binding look
// them up before the conditions run, and a failed lookup denies under failurePolicy Fail
// whatever the conditions would say: they are not applied.
func (a *analysis) policyIntercepts(p *admissionPolicy, b *policyBinding, namespace string) []request {
	constraints := p.constraints
	if p.paramKind == nil && p.conditions != nil {
		conditioned := *p.constraints
		conditioned.conditions = p.conditions
		constraints = &conditioned
	}
	writes := a.interceptedWrites(constraints, restartWrites, namespace, labels.Set{}, "")
	type writer struct {
		request
		user string
	}
	narrowed := map[writer]bool{}
	if b.resources != nil {
		for _, w := range a.interceptedWrites(b.resources, restartWrites, namespace, labels.Set{}, "") {
			narrowed[writer{w.request, w.user.Username}] = true
		}
	}
	var out []controlPlaneWrite
	for _, w := range writes {
		if (b.resources == nil || narrowed[writer{w.request, w.user.Username}]) && a.bindingMatches(p, b, w.request) {
			out = append(out, w)
		}
	}
	return requestsOf(out)
}

// checkPolicyOnOwnParams (F04): fail-closed policies that apply, through a binding that can
// deny, to writes of their own parameters. The parameters are the objects of the input a
// binding's paramRef selects; a write to one reaches the binding when the policy's
// matchConstraints and the binding's matchResources match it (its namespace's labels, its own,
// the resource rules less their exclusions). Without such objects in the input, an assumed one
// is unlabelled, in the paramRef's namespace; a verdict that rests on labels the input does not
// show is info.
func checkPolicyOnOwnParams(a *analysis) []finding {
	var out []finding
	for _, p := range a.policies {
		if p.paramKind == nil || !p.constraints.failClosed() {
			continue
		}
		gvk, ok := paramGVK(p.paramKind)
		if !ok {
			continue
		}
		res, err := a.mapper.ResourceFor(gvk)
		if err != nil {
			continue // F02
		}
		if f, ok := a.ownParamsFinding(p, res); ok {
			out = append(out, f)
		}
	}
	return out
}

// ownParamsFinding looks through p's denying bindings for one that applies to writes of its
// parameters, preferring a verdict the input shows to an assumed one.
func (a *analysis) ownParamsFinding(p *admissionPolicy, res resources.Resource) (finding, bool) {
	var assumed *finding
	for _, b := range p.bindings {
		if b.paramRef == nil || !b.denies(p.mutating) {
			continue // without paramRef nothing is read; a binding that only warns cannot deny
		}
		for _, op := range ops(admissionregistrationv1.Create, admissionregistrationv1.Update) {
			req := request{gvr: res.GVR, operation: op, namespaced: res.Namespaced}
			if !a.bindingMatches(p, b, req) {
				continue
			}
			target, unknown, ok := a.paramsReached(p, b, res, req)
			if !ok {
				continue
			}
			f := finding{
				config: p.config, field: "spec.matchConstraints",
				message: fmt.Sprintf("fails closed and, through binding %q, applies to %s of %s, its own parameters: a change to them goes through the policy, so a mistake in them can deny the change that fixes it",
					b.config.name, req, target),
				hint: "exclude the parameters from spec.matchConstraints (or the binding's matchResources): by namespace (namespaceSelector), by label (objectSelector) or with excludeResourceRules",
			}
			if unknown == "" {
				return f, true
			}
			if assumed == nil {
				f.severity = Info
				f.message += "; but " + unknown + ", taken as absent: if they are there, the selector may exempt them"
				assumed = &f
			}
		}
	}
	if assumed != nil {
		return *assumed, true
	}
	return finding{}, false
}

// paramsReached says which of the parameters b's paramRef selects a write req reaches, as
// far as the input shows them: target describes it, and unknown names the labels the verdict
// took as absent ("" when the input shows every label a selector reads).
func (a *analysis) paramsReached(p *admissionPolicy, b *policyBinding, res resources.Resource, req request) (target, unknown string, ok bool) {
	reaches := func(wr write) bool {
		return a.intercepts(p.constraints, wr) && (b.resources == nil || a.intercepts(b.resources, wr))
	}
	selectors := []*webhook{p.constraints}
	if b.resources != nil {
		selectors = append(selectors, b.resources)
	}
	selected := selectParams(a.paramCandidates(res.Kind.GroupKind(), res, b.paramRef), b.paramRef)
	for _, o := range selected {
		wr := write{request: req, objectLabels: o.labels, user: administrator()}
		if res.Namespaced {
			// An object given without a namespace is where paramRef looks for it, if it says.
			wr.namespace = cmp.Or(o.namespace, b.paramRef.Namespace)
			wr.nsLabels, _ = a.inv.namespaceLabels(wr.namespace)
		}
		if !reaches(wr) || excludesByName(p.excludedNames, req, o.name) || excludesByName(b.excludedNames, req, o.name) {
			continue
		}
		target = fmt.Sprintf("%s %s", p.paramKind.Kind, namespacedName{wr.namespace, o.name})
		if res.Namespaced && wr.namespace == "" {
			return target, a.unknownNamespaceLabels(selectors, ""), true
		}
		return target, "", true
	}
	if len(selected) > 0 {
		return "", "", false // the input holds the parameters, and the write reaches none
	}
	// The input does not hold the parameters: an unlabelled object where paramRef looks.
	wr := write{request: req, objectLabels: labels.Set{}, user: administrator()}
	if res.Namespaced && b.paramRef.Namespace != "" {
		wr.namespace = b.paramRef.Namespace
		wr.nsLabels, _ = a.inv.namespaceLabels(wr.namespace)
	}
	if !reaches(wr) {
		return "", "", false
	}
	var missing []string
	for _, s := range selectors {
		if keys := unknownKeys(s.objectSelector, func(string) bool { return false }); len(keys) > 0 {
			missing = append(missing, fmt.Sprintf("the objectSelector reads %s of the parameters, which the input does not hold", describeKeys(keys)))
			break
		}
	}
	if ns := a.unknownNamespaceLabels(selectors, wr.namespace); ns != "" {
		missing = append(missing, ns)
	}
	return describeParamRef(b.paramRef, res.Namespaced), strings.Join(missing, ", and "), true
}

// unknownNamespaceLabels names the labels the selectors' namespaceSelectors read of a namespace
// the input does not show ("" for namespace when it is not known), or "" when there are none.
func (a *analysis) unknownNamespaceLabels(selectors []*webhook, namespace string) string {
	known := func(string) bool { return false }
	if namespace != "" {
		if _, ok := a.inv.namespaces[namespace]; ok {
			return ""
		}
		known = func(key string) bool { return key == corev1.LabelMetadataName }
	}
	for _, s := range selectors {
		if keys := unknownKeys(s.namespaceSelector, known); len(keys) > 0 {
			if namespace == "" {
				return fmt.Sprintf("the namespaceSelector reads %s of the parameters' namespace, which the input does not say", describeKeys(keys))
			}
			return fmt.Sprintf("the namespaceSelector reads %s of %q, whose Namespace the input lacks", describeKeys(keys), namespace)
		}
	}
	return ""
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
