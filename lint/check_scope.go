package lint

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// mirrorPodAnnotation marks the API copy of a static pod.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// checkWildcards (C01): rules matching everything along some axis.
func checkWildcards(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			for j, rule := range w.spec.Rules {
				wild := ruleWildcards(rule)
				if len(wild) == 0 {
					continue
				}
				f := finding{
					config: c, webhook: w, field: w.path().Child("rules").Index(j).String(),
					message: fmt.Sprintf("matches %s: the webhook receives requests it was not written for, including resources that CRDs and upgrades add later", joinAnd(wild)),
					hint:    "list the API groups, resources and operations the webhook handles",
				}
				switch groups := rule.APIGroups; {
				case !slices.Contains(groups, "*") && !slices.ContainsFunc(groups, func(g string) bool { return a.builtinGroups[g] }):
					// A project's wildcard over its own API groups reaches only its own kinds.
					f.severity = Info
					f.message = fmt.Sprintf("matches %s of its own API groups (%s): new kinds added to them later reach the webhook too", joinAnd(wild), strings.Join(groups, ", "))
				case w.objectSelector != nil && !w.objectSelector.Matches(labels.Set{}):
					// The apiserver calls the webhook only for objects whose labels its
					// objectSelector selects: the wildcard reaches the objects opted in, whatever
					// their kind, not every write of the cluster.
					f.severity = Info
					f.message = fmt.Sprintf("matches %s, but only for objects labelled as its objectSelector requires (%s): whatever carries the label reaches the webhook, of any kind, now or added later", joinAnd(wild), w.objectSelector)
				}
				out = append(out, f)
			}
		}
	}
	return out
}

func ruleWildcards(rule admissionregistrationv1.RuleWithOperations) []string {
	var wild []string
	if slices.Contains(rule.APIGroups, "*") {
		wild = append(wild, "every API group")
	}
	switch {
	case slices.Contains(rule.Resources, "*/*"):
		wild = append(wild, "every resource with its subresources")
	case slices.Contains(rule.Resources, "*"):
		wild = append(wild, "every resource")
	}
	if slices.Contains(rule.Operations, admissionregistrationv1.OperationAll) {
		wild = append(wild, "every operation")
	}
	return wild
}

func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// checkMatchConditions (C02): webhooks with wildcard rules that the apiserver calls for
// everything they match.
func checkMatchConditions(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if len(w.spec.MatchConditions) > 0 || !hasWildcardScope(w.spec.Rules) {
				continue
			}
			message := "has wildcard rules and no matchConditions: the apiserver calls it for every request they match"
			if w.namespaceSelector != nil && w.objectSelector != nil && w.namespaceSelector.Empty() && w.objectSelector.Empty() {
				message = "has wildcard rules, selectors that match every namespace and object, and no matchConditions: the apiserver calls it for every request they match"
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("matchConditions").String(), message: message,
				hint: `add matchConditions (CEL) so the apiserver skips what the webhook always allows, e.g. {name: not-system-users, expression: "!request.userInfo.username.startsWith('system:')"}`,
			})
		}
	}
	return out
}

// hasWildcardScope is true when a rule matches every API group or every resource of a group.
func hasWildcardScope(rules []admissionregistrationv1.RuleWithOperations) bool {
	for _, rule := range rules {
		if slices.Contains(rule.APIGroups, "*") || slices.Contains(rule.Resources, "*") || slices.Contains(rule.Resources, "*/*") {
			return true
		}
	}
	return false
}

// checkMatchPolicy (C03): matchPolicy Exact lets requests through other versions of a resource
// by. The apiserver asks of each request whether a rule matches its resource; under Exact it
// stops there, under Equivalent it also tries the other versions and groups that serve the same
// objects, converting the request for the one matched. So Exact misses a request exactly when its
// resource is served in another version or group that a rule names, and no rule names its own.
// A webhook of the same configuration whose rules name it sees the request all the same: an
// operator registering one Exact webhook per served version misses nothing. Resources of groups
// the input does not show (a CRD not in the input) may be served in versions lint cannot see:
// reported as assumed (info).
func checkMatchPolicy(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if w.spec.MatchPolicy == nil || *w.spec.MatchPolicy != admissionregistrationv1.Exact {
				continue
			}
			f := finding{config: c, webhook: w, field: w.path().Child("matchPolicy").String(),
				hint: "remove matchPolicy (Equivalent is the default): the apiserver then converts requests to the version the rules name"}
			if missed := a.exactMisses(c, w); len(missed) > 0 {
				f.message = fmt.Sprintf("is Exact: requests through %s, served and equivalent to a resource the rules name, bypass the webhook", joinAnd(missed))
				out = append(out, f)
			} else if unseen := a.unseenGroups(w); len(unseen) > 0 {
				f.severity = Info
				f.message = fmt.Sprintf("is Exact on resources of %s, which the input does not define: assumed served in no version the rules leave out", groupNames(unseen))
				f.hint = "lint the CustomResourceDefinitions with the configuration to have their versions checked; " + f.hint
				out = append(out, f)
			}
		}
	}
	return out
}

// exactMisses lists the requests matchPolicy Exact keeps from w: to a served resource
// equivalent to one a rule of w matches, that no rule of w, nor of another webhook of the same
// configuration, matches itself. They are named by resource ("autoscaling/v1
// horizontalpodautoscalers"), in the mapper's order.
func (a *analysis) exactMisses(c *configuration, w *webhook) []string {
	var missed []string
	seen := map[string]bool{}
	for _, res := range a.mapper.Resources() {
		subs := []string{""}
		for _, s := range res.Subresources {
			subs = append(subs, s.Name)
		}
		for _, sub := range subs {
			for _, op := range ops(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete, admissionregistrationv1.Connect) {
				r := request{gvr: res.GVR, subresource: sub, operation: op, namespaced: res.Namespaced}
				if !matchesExactly(w, r) {
					continue
				}
				for _, eq := range a.mapper.Equivalents(res.GVR, sub) {
					other := request{gvr: eq, subresource: sub, operation: op, namespaced: res.Namespaced}
					name := eq.GroupVersion().String() + " " + resourceName("", eq.Resource, sub)
					if eq == res.GVR || seen[name] || !a.served(eq) || slices.ContainsFunc(c.webhooks, func(s *webhook) bool { return matchesExactly(s, other) }) {
						continue
					}
					seen[name] = true
					missed = append(missed, name)
				}
			}
		}
	}
	return missed
}

// matchesExactly says a rule of w names r's own resource, as Exact requires.
func matchesExactly(w *webhook, r request) bool {
	return slices.ContainsFunc(w.spec.Rules, func(rule admissionregistrationv1.RuleWithOperations) bool { return ruleMatches(rule, r, r.gvr) })
}

// served says clients can send requests through gvr (a CRD's unserved version is only stored).
func (a *analysis) served(gvr schema.GroupVersionResource) bool {
	_, err := a.mapper.Resource(gvr)
	return err == nil
}

// unseenGroups are the API groups w's rules name that neither Kubernetes nor the input's CRDs
// serve.
func (a *analysis) unseenGroups(w *webhook) []string {
	known := map[string]bool{}
	for _, r := range a.mapper.Resources() {
		known[r.GVR.Group] = true
	}
	var out []string
	for _, rule := range w.spec.Rules {
		for _, g := range rule.APIGroups {
			if g != "*" && !known[g] && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// checkMirrorPods (C04): mutating webhooks that would change the API copies of static pods.
// Namespace selectors are not consulted: static pods can be put in any namespace.
func checkMirrorPods(a *analysis) []finding {
	res, ok := preferredResource(a.mapper, schema.GroupResource{Resource: "pods"})
	if !ok {
		return nil
	}
	mirror := write{
		request:      request{gvr: res.GVR, operation: admissionregistrationv1.Create, namespaced: true},
		objectLabels: labels.Set{}, annotations: map[string]string{mirrorPodAnnotation: "0123456789abcdef"},
		user: authenticationv1.UserInfo{Username: "system:node:node-1", Groups: []string{"system:nodes", "system:authenticated"}},
	}
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if !w.mutating || !a.intercepts(w, mirror) {
				continue
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("matchConditions").String(),
				message: fmt.Sprintf("mutates pods without excluding mirror pods (annotated %s): they are API copies of static pods the kubelet runs from files, so a mutation changes what the API shows, not what runs", mirrorPodAnnotation),
				hint:    fmt.Sprintf(`add a matchCondition {name: not-mirror-pod, expression: "!has(object.metadata.annotations) || !('%s' in object.metadata.annotations)"}`, mirrorPodAnnotation),
			})
		}
	}
	return out
}
