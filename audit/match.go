package audit

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/predicates"
	"github.com/admitkit/admit/resources"
)

// Matcher says whether a write could be matched by a changed step: if not, the baseline and the
// proposal admit it alike — the same steps are called, each as before — and it need not be
// admitted at all. It errs on the side of admitting: versions are not compared (matchPolicy
// Equivalent reaches the others), nor scopes, selectors and conditions.
type Matcher struct {
	rules  []admissionregistrationv1.RuleWithOperations
	mapper *resources.Mapper
}

// NewMatcher matches what the changed steps can; mapper knows the equivalent resources.
func NewMatcher(changed []Change, mapper *resources.Mapper) *Matcher {
	m := &Matcher{mapper: mapper}
	for _, c := range changed {
		m.rules = append(m.rules, c.rules...)
	}
	return m
}

// candidates are gvr and its equivalents.
func (m *Matcher) candidates(gvr schema.GroupVersionResource, subresource string) []schema.GroupVersionResource {
	out := []schema.GroupVersionResource{gvr}
	if m.mapper != nil {
		out = append(out, m.mapper.Equivalents(gvr, subresource)...)
	}
	return out
}

// Matches reports whether a changed step could match operation op on gvr's subresource
// (equivalent resources included).
func (m *Matcher) Matches(op admissionregistrationv1.OperationType, gvr schema.GroupVersionResource, subresource string) bool {
	candidates := m.candidates(gvr, subresource)
	for _, rule := range m.rules {
		if !predicates.Operation(rule.Operations, op) {
			continue
		}
		for _, c := range candidates {
			if predicates.AnyOrExact(rule.APIGroups, c.Group) && predicates.Resources(rule.Resources, c.Resource, subresource) {
				return true
			}
		}
	}
	return false
}

// MatchesGroup reports whether a changed step could match anything of group, for objects whose
// resource is not known.
func (m *Matcher) MatchesGroup(group string) bool {
	for _, rule := range m.rules {
		if predicates.AnyOrExact(rule.APIGroups, group) {
			return true
		}
	}
	return false
}

// MatchesResource reports whether a changed step could match any write to gvr — any operation,
// the resource or its subresources: whether an audit log's objects of gvr need following.
func (m *Matcher) MatchesResource(gvr schema.GroupVersionResource) bool {
	candidates := m.candidates(gvr, "")
	for _, rule := range m.rules {
		for _, c := range candidates {
			if predicates.AnyOrExact(rule.APIGroups, c.Group) && predicates.AnySubresource(rule.Resources, c.Resource) {
				return true
			}
		}
	}
	return false
}
