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
				if groups := rule.APIGroups; !slices.Contains(groups, "*") && !slices.ContainsFunc(groups, func(g string) bool { return a.builtinGroups[g] }) {
					// A project's wildcard over its own API groups reaches only its own kinds.
					f.severity = Info
					f.message = fmt.Sprintf("matches %s of its own API groups (%s): new kinds added to them later reach the webhook too", joinAnd(wild), strings.Join(groups, ", "))
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

// checkMatchPolicy (C03): matchPolicy Exact lets other versions of a resource through.
func checkMatchPolicy(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if w.spec.MatchPolicy == nil || *w.spec.MatchPolicy != admissionregistrationv1.Exact || a.exactCannotMiss(w) {
				continue
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("matchPolicy").String(),
				message: "is Exact: a request through another version of a matched resource bypasses the webhook",
				hint:    "remove matchPolicy (Equivalent is the default): the apiserver then converts requests to the version the rules name",
			})
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

// exactCannotMiss is true when matchPolicy Exact changes nothing: every rule matches every
// version, and no resource it matches has an equivalent in a group the rule leaves out (events
// are served by the core group and events.k8s.io).
func (a *analysis) exactCannotMiss(w *webhook) bool {
	for _, rule := range w.spec.Rules {
		if !slices.Contains(rule.APIVersions, "*") {
			return false
		}
		if slices.Contains(rule.APIGroups, "*") {
			continue
		}
		for _, res := range a.mapper.Resources() {
			matched := slices.ContainsFunc(ops(admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete, admissionregistrationv1.Connect),
				func(op admissionregistrationv1.OperationType) bool {
					return ruleMatches(rule, request{gvr: res.GVR, operation: op, namespaced: res.Namespaced}, res.GVR)
				})
			if !slices.Contains(rule.APIGroups, res.GVR.Group) || !matched {
				continue
			}
			for _, eq := range a.mapper.Equivalents(res.GVR, "") {
				if !slices.Contains(rule.APIGroups, eq.Group) {
					return false
				}
			}
		}
	}
	return true
}
