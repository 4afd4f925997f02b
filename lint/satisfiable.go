package lint

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// labelConstraints is what a conjunction of label selectors asks of one label set, key by key:
// whether some set of labels satisfies all of them at once (a namespace every webhook's
// namespaceSelector lets through, an object every objectSelector does).
type labelConstraints map[string]*keyConstraint

// keyConstraint is what the selectors ask of one key: its value among in (nil: any), not
// among notIn, present, absent.
type keyConstraint struct {
	in             map[string]bool
	notIn          map[string]bool
	exists, absent bool
}

// with returns the constraints and those of selector together; selector is unchanged. A nil
// selector (invalid, rule A01's) asks nothing.
func (c labelConstraints) with(selector labels.Selector) labelConstraints {
	out := labelConstraints{}
	for key, k := range c {
		copied := *k
		out[key] = &copied
	}
	if selector == nil {
		return out
	}
	requirements, _ := selector.Requirements()
	for _, r := range requirements {
		k := out[r.Key()]
		if k == nil {
			k = &keyConstraint{}
			out[r.Key()] = k
		}
		values := r.Values()
		switch r.Operator() {
		case selection.In, selection.Equals, selection.DoubleEquals:
			k.exists = true
			k.in = intersect(k.in, values.List())
		case selection.NotIn, selection.NotEquals:
			k.notIn = union(k.notIn, values.List())
		case selection.DoesNotExist:
			k.absent = true
		default: // Exists, and the numeric comparisons, which need the key
			k.exists = true
		}
	}
	return out
}

// satisfiable says whether some label set meets every constraint.
func (c labelConstraints) satisfiable() bool {
	for _, k := range c {
		if k.absent && k.exists {
			return false
		}
		if k.in == nil {
			continue
		}
		possible := false
		for v := range k.in {
			if !k.notIn[v] {
				possible = true
				break
			}
		}
		if !possible {
			return false
		}
	}
	return true
}

// intersect narrows allowed (nil: any value) to values.
func intersect(allowed map[string]bool, values []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range values {
		if allowed == nil || allowed[v] {
			out[v] = true
		}
	}
	return out
}

func union(set map[string]bool, values []string) map[string]bool {
	out := map[string]bool{}
	for v := range set {
		out[v] = true
	}
	for _, v := range values {
		out[v] = true
	}
	return out
}

// coMatch holds what a group of webhooks asks of one request's namespace and object: they can
// all be called for one request only when both are satisfiable.
type coMatch struct {
	namespace, object labelConstraints
}

// add returns the group's constraints with w's selectors. The apiserver consults a
// namespaceSelector for namespaced requests only, and for a Namespace itself, whose own labels
// it reads.
func (m coMatch) add(w *webhook, r request) coMatch {
	out := coMatch{namespace: m.namespace.with(nil), object: m.object.with(w.objectSelector)}
	switch {
	case r.namespaced:
		out.namespace = m.namespace.with(w.namespaceSelector)
	case r.gvr.Group == "" && r.gvr.Resource == "namespaces":
		out.object = out.object.with(w.namespaceSelector)
	}
	return out
}

func (m coMatch) satisfiable() bool {
	return m.namespace.satisfiable() && m.object.satisfiable()
}
