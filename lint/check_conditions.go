package lint

import (
	"cmp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// checkConditionTypes (C06): match conditions that do not type-check against a kind the
// webhook's rules match, from the PolicyChecker, which holds the kinds' schemas.
func checkConditionTypes(a *analysis) []finding {
	if a.checker == nil {
		return nil
	}
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if w.conditions == nil {
				continue // no conditions, or some do not compile: A01's
			}
			kinds := conditionKinds(w.spec.Rules, a.mapper)
			if len(kinds) == 0 {
				continue
			}
			for i, mc := range w.spec.MatchConditions {
				// The apiserver compiles the expression without surrounding whitespace.
				errs := a.checker.TypeCheckCondition(strings.TrimSpace(mc.Expression), kinds)
				if len(errs) == 0 {
					continue
				}
				out = append(out, finding{
					config: c, webhook: w, field: w.path().Child("matchConditions").Index(i).Child("expression").String(),
					message: "does not type-check " + strings.Join(errs, "; ") + ": " + conditionFailure(w),
					hint:    "correct the expression for the kinds the rules match, guard the part meant for one kind (object.kind == 'Pod' || ...), or narrow the rules",
				})
			}
		}
	}
	return out
}

// conditionFailure says what a condition that fails when evaluated does to the request.
func conditionFailure(w *webhook) string {
	if w.failClosed() {
		return "evaluating it fails, and with failurePolicy Fail the apiserver rejects the request"
	}
	return "evaluating it fails, and with failurePolicy Ignore the apiserver skips the webhook: it never sees the request"
}

// conditionKinds are the kinds of the objects a webhook's match conditions see, read from its
// rules as kube-apiserver's type checker reads a policy's: each group, version and resource a
// rule names, in the version the rule names (matchPolicy Equivalent converts requests for
// other versions to it). A rule with a wildcard group or version names no kind, nor does a
// wildcard resource or a subresource (its object may be of another kind); a resource the mapper
// does not know has no kind.
func conditionKinds(rules []admissionregistrationv1.RuleWithOperations, mapper *resources.Mapper) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	wild := func(s string) bool { return strings.Contains(s, "*") }
	for _, rule := range rules {
		if slices.ContainsFunc(rule.APIGroups, wild) || slices.ContainsFunc(rule.APIVersions, wild) {
			continue
		}
		for _, group := range rule.APIGroups {
			for _, version := range rule.APIVersions {
				for _, resource := range rule.Resources {
					if strings.ContainsAny(resource, "*/") {
						continue
					}
					kind, err := mapper.KindFor(schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, "")
					if err == nil && !slices.Contains(out, kind) {
						out = append(out, kind)
					}
				}
			}
		}
	}
	slices.SortFunc(out, func(x, y schema.GroupVersionKind) int {
		return cmp.Or(cmp.Compare(x.Group, y.Group), cmp.Compare(x.Version, y.Version), cmp.Compare(x.Kind, y.Kind))
	})
	return out
}
