package lint

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// The parameter rules follow what kube-apiserver does with a policy's paramKind and a
// binding's paramRef (k8s.io/apiserver/pkg/admission/plugin/policy/generic: policySource and
// CollectParams; the validating and mutating dispatchers):
//
//   - a paramKind it cannot map to a resource is a configuration error of the policy: every
//     request the policy matches is denied under failurePolicy Fail, whichever binding applies;
//   - a binding without paramRef evaluates the policy with params null; a paramRef whose
//     policy has no paramKind is ignored;
//   - a paramRef without namespace, for namespaced parameters, looks in the request's
//     namespace, and is a configuration error for a request without one (cluster-scoped
//     resources; a Namespace's own updates carry its name); a namespace for cluster-scoped
//     parameters is a configuration error for every request;
//   - no parameter found is a configuration error under parameterNotFoundAction Deny, and
//     evaluates nothing under Allow.
//
// Configuration errors go to failurePolicy, not to validationActions: under Fail they deny the
// request even through a binding that only warns or audits.

// checkParams (F02): a paramKind the cluster would not serve, or parameters a binding selects
// that the input does not have although it has others of their kind where the binding looks.
func checkParams(a *analysis) []finding {
	var out []finding
	for _, p := range a.policies {
		if p.paramKind == nil || len(p.bindings) == 0 {
			continue // without a binding, the apiserver does not configure the policy at all
		}
		gvk, ok := paramGVK(p.paramKind)
		if !ok {
			continue // A01
		}
		res, err := a.mapper.ResourceFor(gvk)
		if err != nil {
			out = append(out, unknownParamKind(a, p, gvk))
			continue
		}
		for _, b := range p.bindings {
			if b.paramRef == nil {
				continue // F08
			}
			candidates := a.paramCandidates(gvk.GroupKind(), res, b.paramRef)
			if len(candidates) == 0 || len(selectParams(candidates, b.paramRef)) > 0 {
				continue
			}
			severity, consequence := Warning, "with parameterNotFoundAction Allow, the binding evaluates nothing: it enforces nothing while they are missing"
			switch {
			case deniesWithoutParams(b.paramRef) && p.constraints.failClosed():
				severity, consequence = Error, "with parameterNotFoundAction Deny, the binding fails to configure, and failurePolicy Fail denies every request it matches while they are missing, whatever its validationActions"
			case deniesWithoutParams(b.paramRef):
				consequence = "with parameterNotFoundAction Deny and failurePolicy Ignore, the policy is skipped: it enforces nothing while they are missing"
			}
			out = append(out, finding{config: b.config, field: "spec.paramRef", severity: severity,
				message: fmt.Sprintf("selects %s, which the input does not have, although it has other %s objects: %s", describeParamRef(b.paramRef, res.Namespaced), gvk.Kind, consequence),
				hint:    "correct spec.paramRef, or add the parameter objects to the input"})
		}
	}
	return out
}

// unknownParamKind is F02's finding on a policy whose paramKind the input does not define.
func unknownParamKind(a *analysis, p *admissionPolicy, gvk schema.GroupVersionKind) finding {
	severity, consequence := Error, "failurePolicy Fail denies every request the policy matches, through any binding, whatever its paramRef and validationActions"
	if !p.constraints.failClosed() {
		severity, consequence = Warning, "failurePolicy Ignore skips the policy: it enforces nothing"
	}
	what := "which is neither built in nor defined by a CustomResourceDefinition in the input"
	hint := "ship the CustomResourceDefinition of " + gvk.Kind + " with the policy, or correct spec.paramKind"
	if !a.servesGroup(gvk.Group) {
		// Nothing in Kubernetes or the input serves the group: its definition may be
		// installed apart (an operator's CRDs, applied before its policies), as C05 assumes
		// of rules.
		return finding{config: p.config, field: "spec.paramKind", severity: Info,
			message: fmt.Sprintf("names %s, of %s, which neither Kubernetes nor the input's CustomResourceDefinitions serve: assumed served by a definition installed apart; if it is not, the apiserver cannot configure the policy (\"failed to find resource referenced by paramKind\"), and %s",
				describeKind(gvk), groupName(gvk.Group), consequence),
			hint: "lint the CustomResourceDefinition of " + gvk.Kind + " with the policy to have spec.paramKind checked"}
	}
	if versions := servedVersions(a.mapper, gvk.GroupKind()); len(versions) > 0 {
		what = fmt.Sprintf("a version in which %s is not served (it is in %s)", gvk.Kind, strings.Join(versions, ", "))
		hint = "set spec.paramKind.apiVersion to a served version: " + schema.GroupVersion{Group: gvk.Group, Version: versions[0]}.String()
	}
	return finding{config: p.config, field: "spec.paramKind", severity: severity,
		message: fmt.Sprintf("names %s, %s: the apiserver cannot configure the policy (\"failed to find resource referenced by paramKind\"), and %s",
			describeKind(gvk), what, consequence),
		hint: hint}
}

// servesGroup says whether Kubernetes or a CustomResourceDefinition of the input serves
// resources of the group: only then can the input tell what the group serves.
func (a *analysis) servesGroup(group string) bool {
	return slices.ContainsFunc(a.mapper.Resources(), func(r resources.Resource) bool { return r.GVR.Group == group })
}

// checkParamRefMismatch (F08): a binding without paramRef for a policy whose expressions read
// their parameters, or with a paramRef the policy does not take.
func checkParamRefMismatch(a *analysis) []finding {
	var out []finding
	for _, p := range a.policies {
		var reads, guarded bool
		if p.paramKind != nil {
			reads, guarded = paramsUse(p.expressions)
		}
		for _, b := range p.bindings {
			switch {
			case p.paramKind == nil && b.paramRef != nil:
				out = append(out, finding{config: b.config, field: "spec.paramRef", severity: Info,
					message: fmt.Sprintf("is set, but policy %q takes no parameters (it has no spec.paramKind): the apiserver ignores paramRef and evaluates the policy without them", p.config.name),
					hint:    "remove spec.paramRef, or give the policy the spec.paramKind of its parameters"})
			case p.paramKind != nil && b.paramRef == nil && reads && !guarded:
				severity, consequence := Error, "failurePolicy Fail denies every request the binding matches"
				switch {
				case !p.constraints.failClosed():
					severity, consequence = Warning, "failurePolicy Ignore drops the errors: the binding enforces nothing"
				case !b.denies(p.mutating):
					severity, consequence = Warning, fmt.Sprintf("every request the binding matches is reported as failing (validationActions %s) and none is denied", describeActions(b.actions))
				}
				out = append(out, finding{config: b.config, field: "spec.paramRef", severity: severity,
					message: fmt.Sprintf("is unset, but policy %q takes parameters (%s) and its expressions read them: without paramRef the apiserver evaluates the policy with params null, the expressions that read them fail, and %s",
						p.config.name, p.paramKind.Kind, consequence),
					hint: "add spec.paramRef (a name or selector, the namespace of namespaced parameters, parameterNotFoundAction), or write the policy's expressions for params == null"})
			}
		}
	}
	return out
}

// checkParamScope (F09): a paramRef whose namespace does not fit the scope of the parameters'
// kind, so that the binding fails to configure for every request it matches, or for the
// requests to cluster-scoped resources.
func checkParamScope(a *analysis) []finding {
	var out []finding
	for _, p := range a.policies {
		if p.paramKind == nil {
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
		severity, consequence := Error, "failurePolicy Fail denies them, whatever parameterNotFoundAction and validationActions say"
		if !p.constraints.failClosed() {
			severity, consequence = Warning, "failurePolicy Ignore skips the policy for them: they are never checked"
		}
		for _, b := range p.bindings {
			if b.paramRef == nil {
				continue
			}
			switch {
			case !res.Namespaced && b.paramRef.Namespace != "":
				out = append(out, finding{config: b.config, field: "spec.paramRef.namespace", severity: severity,
					message: fmt.Sprintf("is %q, but policy %q's parameters (%s) are cluster-scoped: the binding fails to configure for every request it matches (\"paramRef.namespace must not be provided for a cluster-scoped `paramKind`\"), and %s",
						b.paramRef.Namespace, p.config.name, gvk.Kind, consequence),
					hint: "remove spec.paramRef.namespace"})
			case res.Namespaced && b.paramRef.Namespace == "":
				reqs := a.clusterScopedRequests(p, b)
				if len(reqs) == 0 {
					continue
				}
				out = append(out, finding{config: b.config, field: "spec.paramRef.namespace", severity: severity,
					message: fmt.Sprintf("is unset, and policy %q's parameters (%s) are namespaced: the apiserver looks them up in the request's namespace, and the binding also matches requests that have none (%s); for those it fails to configure (\"cannot use namespaced paramRef in policy binding that matches cluster-scoped resources\"), and %s",
						p.config.name, gvk.Kind, describeRequests(reqs), consequence),
					hint: "set spec.paramRef.namespace to the namespace of the parameters, or keep cluster-scoped resources out of the binding (scope: Namespaced in the resource rules)"})
			}
		}
	}
	return out
}

// clusterScopedRequests lists the requests without a namespace that reach the binding: every
// operation on cluster-scoped resources, except a Namespace's own updates and deletes, which
// the apiserver admits in the namespace's name. Selectors and matchConditions are not
// consulted: selectors can only spare objects by label, and matchConditions run after the
// parameters are looked up.
func (a *analysis) clusterScopedRequests(p *admissionPolicy, b *policyBinding) []request {
	var out []request
	seen := map[request]bool{}
	for _, res := range a.mapper.Resources() {
		if res.Namespaced {
			continue
		}
		operations := operationsFor(res.Verbs)
		if res.GVR.GroupResource() == (schema.GroupResource{Resource: "namespaces"}) {
			operations = ops(admissionregistrationv1.Create)
		}
		for _, op := range operations {
			r := request{gvr: res.GVR, operation: op}
			key := request{gvr: res.GVR.GroupResource().WithVersion(""), operation: op}
			if seen[key] || !a.bindingMatches(p, b, r) {
				continue
			}
			seen[key] = true
			out = append(out, r)
		}
	}
	return out
}

// paramCandidates lists the input's objects of the parameters' kind where ref looks for them.
// For namespaced parameters without a namespace in ref, the binding looks in each request's
// namespace: objects of a kind made for parameters (a custom resource) are candidates wherever
// they are, while those of a built-in kind (ConfigMaps, Secrets) are too often something else
// to tell a missing parameter from parameters created apart.
func (a *analysis) paramCandidates(kind schema.GroupKind, res resources.Resource, ref *admissionregistrationv1.ParamRef) []objectRef {
	var out []objectRef
	for _, o := range a.inv.objects[kind] {
		switch {
		case !res.Namespaced:
		case ref.Namespace != "":
			if !inNamespace(o.namespace, ref.Namespace) {
				continue
			}
		case a.builtin[res.GVR.GroupResource()]:
			continue
		}
		out = append(out, o)
	}
	return out
}

// selectParams lists the candidates ref selects, by name or label selector.
func selectParams(candidates []objectRef, ref *admissionregistrationv1.ParamRef) []objectRef {
	selector := labels.Everything()
	if ref.Selector != nil {
		s, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return candidates // A01
		}
		selector = s
	}
	var out []objectRef
	for _, o := range candidates {
		if (ref.Name == "" || o.name == ref.Name) && selector.Matches(o.labels) {
			out = append(out, o)
		}
	}
	return out
}

// bindingMatches says whether a request reaches the binding of p by its resource and
// operation: the policy's matchConstraints and the binding's matchResources both match it, and
// neither excludes it.
func (a *analysis) bindingMatches(p *admissionPolicy, b *policyBinding, r request) bool {
	if !p.constraints.matchesRules(a.mapper, r) || (p.excluded != nil && p.excluded.matchesRules(a.mapper, r)) {
		return false
	}
	if b.resources == nil {
		return true
	}
	return b.resources.matchesRules(a.mapper, r) && (b.excluded == nil || !b.excluded.matchesRules(a.mapper, r))
}

// deniesWithoutParams reports parameterNotFoundAction Deny. admissionregistration.k8s.io/v1
// requires the field (A01 reports it missing); unset, it is taken for Deny, the default
// v1alpha1 gave it.
func deniesWithoutParams(ref *admissionregistrationv1.ParamRef) bool {
	return ref.ParameterNotFoundAction == nil || *ref.ParameterNotFoundAction == admissionregistrationv1.DenyAction
}

func paramGVK(kind *admissionregistrationv1.ParamKind) (schema.GroupVersionKind, bool) {
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil || kind.Kind == "" {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(kind.Kind), true
}

// servedVersions lists the versions in which the mapper serves a kind, preferred first.
func servedVersions(mapper *resources.Mapper, kind schema.GroupKind) []string {
	var out []string
	for _, r := range mapper.Resources() {
		if r.Kind.GroupKind() == kind && !slices.Contains(out, r.Kind.Version) {
			out = append(out, r.Kind.Version)
		}
	}
	return out
}

func describeParamRef(ref *admissionregistrationv1.ParamRef, namespaced bool) string {
	var parts []string
	if ref.Name != "" {
		parts = append(parts, fmt.Sprintf("named %q", ref.Name))
	}
	if ref.Selector != nil {
		if s, err := metav1.LabelSelectorAsSelector(ref.Selector); err == nil {
			parts = append(parts, fmt.Sprintf("selected by %q", s.String()))
		}
	}
	switch {
	case ref.Namespace != "":
		parts = append(parts, fmt.Sprintf("in namespace %q", ref.Namespace))
	case namespaced:
		parts = append(parts, "in the request's namespace")
	}
	return "parameters " + strings.Join(parts, " ")
}

func describeActions(actions []admissionregistrationv1.ValidationAction) string {
	names := make([]string, len(actions))
	for i, x := range actions {
		names[i] = string(x)
	}
	return strings.Join(names, ", ")
}
