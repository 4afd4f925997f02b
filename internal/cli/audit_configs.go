package cli

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	admissionregistrationdefaults "k8s.io/kubernetes/pkg/apis/admissionregistration/v1"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// admissionSet is a cluster's admission configuration: webhook configurations, and admission
// policies with their bindings.
type admissionSet struct {
	mutating   []*admissionregistrationv1.MutatingWebhookConfiguration
	validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	policies   []review.Input
}

// admissionSetOf takes the configurations and policies of a loaded set; other objects are not
// part of it.
func admissionSetOf(set *config.Set) admissionSet {
	out := admissionSet{mutating: set.MutatingConfigs(), validating: set.ValidatingConfigs()}
	for _, obj := range set.Others {
		if review.IsPolicy(obj.Object) {
			out.policies = append(out.policies, review.Input{Source: obj.Source.String(), Object: obj.Object})
		}
	}
	return out
}

// size is how many configurations, policies and bindings the set has.
func (s admissionSet) size() int { return len(s.mutating) + len(s.validating) + len(s.policies) }

// overlay is the proposal: base with each configuration, policy or binding of changes in place
// of base's of the same kind and name, and those base does not have added — as applying changes
// to the cluster would leave it.
func overlay(base, changes admissionSet) admissionSet {
	return admissionSet{
		mutating:   replaceByKey(base.mutating, changes.mutating, func(c *admissionregistrationv1.MutatingWebhookConfiguration) string { return c.Name }),
		validating: replaceByKey(base.validating, changes.validating, func(c *admissionregistrationv1.ValidatingWebhookConfiguration) string { return c.Name }),
		policies:   replaceByKey(base.policies, changes.policies, func(p review.Input) string { return policyID(p.Object) }),
	}
}

// replaceByKey is base without the items changes has a key of, then changes.
func replaceByKey[T any](base, changes []T, key func(T) string) []T {
	replaced := make(map[string]bool, len(changes))
	for _, c := range changes {
		replaced[key(c)] = true
	}
	var out []T
	for _, b := range base {
		if !replaced[key(b)] {
			out = append(out, b)
		}
	}
	return append(out, changes...)
}

func policyID(obj *unstructured.Unstructured) string { return obj.GetKind() + "/" + obj.GetName() }

// stepKey names a step of the chain as result rows name it: a webhook by its type ("mutating",
// "validating") and configuration, an admission policy by its type ("mutating-policy",
// "validating-policy") and name, a built-in step by its type and name.
type stepKey struct {
	Type          engine.RowType `json:"type"`
	Configuration string         `json:"configuration,omitempty"`
	Name          string         `json:"name"`
}

// String names the step for people, as its configuration names it.
func (k stepKey) String() string {
	switch k.Type {
	case engine.TypeMutatingWebhook:
		return fmt.Sprintf("mutating webhook %s (MutatingWebhookConfiguration %s)", k.Name, k.Configuration)
	case engine.TypeValidatingWebhook:
		return fmt.Sprintf("validating webhook %s (ValidatingWebhookConfiguration %s)", k.Name, k.Configuration)
	case engine.TypeMutatingPolicy:
		return "MutatingAdmissionPolicy " + k.Name
	case engine.TypeValidatingPolicy:
		return "ValidatingAdmissionPolicy " + k.Name
	case engine.TypeAdmissionPlugin:
		return "admission plugin " + k.Name
	case "":
		return k.Name
	}
	return string(k.Type) + " " + k.Name
}

// change is a step the proposal adds, changes or removes.
type change struct {
	step stepKey
	// what is "added", "changed" or "removed".
	what string
	// rules are what the step can match, for the baseline's and the proposal's versions of it:
	// an object none of them matches is admitted alike by both.
	rules []admissionregistrationv1.RuleWithOperations
}

// changes compares the baseline with the proposal, step by step: webhooks by configuration and
// name (their caBundle aside, which a file often leaves to an injector), policies by name with
// their bindings (a binding added, changed or removed changes its policy).
func changes(base, proposed admissionSet) []change {
	byKey := map[stepKey]*change{}
	var order []stepKey
	note := func(k stepKey, what string, rules []admissionregistrationv1.RuleWithOperations) {
		c, ok := byKey[k]
		if !ok {
			c = &change{step: k, what: what}
			byKey[k] = c
			order = append(order, k)
		} else if c.what != what {
			c.what = "changed"
		}
		c.rules = append(c.rules, rules...)
	}
	type hook struct {
		spec  any
		rules []admissionregistrationv1.RuleWithOperations
	}
	webhooks := func(s admissionSet) map[stepKey]hook {
		out := map[stepKey]hook{}
		for _, c := range s.mutating {
			for _, w := range c.Webhooks {
				w.ClientConfig.CABundle = nil
				out[stepKey{Type: engine.TypeMutatingWebhook, Configuration: c.Name, Name: w.Name}] = hook{w, w.Rules}
			}
		}
		for _, c := range s.validating {
			for _, w := range c.Webhooks {
				w.ClientConfig.CABundle = nil
				out[stepKey{Type: engine.TypeValidatingWebhook, Configuration: c.Name, Name: w.Name}] = hook{w, w.Rules}
			}
		}
		return out
	}
	compare := func(before, after map[stepKey]hook) {
		for _, k := range sortedSteps(after) {
			b, existed := before[k]
			switch {
			case !existed:
				note(k, "added", after[k].rules)
			case !reflect.DeepEqual(b.spec, after[k].spec):
				note(k, "changed", append(slices.Clone(b.rules), after[k].rules...))
			}
		}
		for _, k := range sortedSteps(before) {
			if _, kept := after[k]; !kept {
				note(k, "removed", before[k].rules)
			}
		}
	}
	compare(webhooks(base), webhooks(proposed))

	defaults := policyDefaults()
	policies := func(s admissionSet) map[stepKey]hook {
		out := map[stepKey]hook{}
		bindings := map[stepKey][]any{}
		for _, p := range s.policies {
			spec := defaultedSpec(defaults, p.Object)
			switch p.Object.GetKind() {
			case "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
				k := policyStep(p.Object.GetKind(), p.Object.GetName())
				h := out[k]
				h.spec, h.rules = spec, policyRules(p.Object)
				out[k] = h
			default:
				name, _, _ := unstructured.NestedString(p.Object.Object, "spec", "policyName")
				k := policyStep(strings.TrimSuffix(p.Object.GetKind(), "Binding"), name)
				bindings[k] = append(bindings[k], []any{p.Object.GetName(), spec})
			}
		}
		for k, b := range bindings {
			// A policy's bindings are part of what it does: compared with it.
			h := out[k]
			slices.SortFunc(b, func(x, y any) int { return strings.Compare(x.([]any)[0].(string), y.([]any)[0].(string)) })
			h.spec = []any{h.spec, b}
			out[k] = h
		}
		return out
	}
	compare(policies(base), policies(proposed))

	out := make([]change, len(order))
	for i, k := range order {
		out[i] = *byKey[k]
	}
	return out
}

// policyDefaults is a scheme that defaults admission policies and bindings as the apiserver
// does when it stores them: a policy read from a cluster has its defaults, the same policy in a
// file does not, and the two must compare equal.
func policyDefaults() *runtime.Scheme {
	scheme := runtime.NewScheme()
	_ = admissionregistrationv1.AddToScheme(scheme)
	_ = admissionregistrationdefaults.RegisterDefaults(scheme)
	return scheme
}

// defaultedSpec is a policy's or binding's spec with the apiserver's defaults, as a typed value
// (the unstructured spec when it does not convert: then it is compared as written).
func defaultedSpec(scheme *runtime.Scheme, obj *unstructured.Unstructured) any {
	typed, err := scheme.New(obj.GroupVersionKind())
	if err == nil {
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed)
	}
	if err != nil {
		spec, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec")
		return spec
	}
	scheme.Default(typed)
	return reflect.ValueOf(typed).Elem().FieldByName("Spec").Interface()
}

func sortedSteps[V any](m map[stepKey]V) []stepKey {
	keys := make([]stepKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b stepKey) int {
		return strings.Compare(string(a.Type)+"/"+a.Configuration+"/"+a.Name, string(b.Type)+"/"+b.Configuration+"/"+b.Name)
	})
	return keys
}

// sortedKeys are a map's keys in order.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// policyStep is the step of a policy kind's policy named name.
func policyStep(kind, name string) stepKey {
	if kind == "MutatingAdmissionPolicy" {
		return stepKey{Type: engine.TypeMutatingPolicy, Name: name}
	}
	return stepKey{Type: engine.TypeValidatingPolicy, Name: name}
}

// policyRules are the resource rules of a policy's matchConstraints: what its bindings can match
// at most.
func policyRules(obj *unstructured.Unstructured) []admissionregistrationv1.RuleWithOperations {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "spec", "matchConstraints", "resourceRules")
	var out []admissionregistrationv1.RuleWithOperations
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		var rule admissionregistrationv1.NamedRuleWithOperations
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &rule); err == nil {
			out = append(out, rule.RuleWithOperations)
		}
	}
	return out
}

// changeMatcher says whether a write could be matched by a changed step: if not, the baseline and
// the proposal admit it alike — the same steps are called, each as before — and it need not be
// admitted at all. It errs on the side of admitting: versions are not compared (matchPolicy
// Equivalent reaches the others), nor scopes, selectors and conditions.
type changeMatcher struct {
	rules  []admissionregistrationv1.RuleWithOperations
	mapper *resources.Mapper
}

func newChangeMatcher(changed []change, mapper *resources.Mapper) *changeMatcher {
	m := &changeMatcher{mapper: mapper}
	for _, c := range changed {
		m.rules = append(m.rules, c.rules...)
	}
	return m
}

// matches reports whether a changed step could match operation op on gvr's subresource
// (equivalent resources included).
func (m *changeMatcher) matches(op admissionregistrationv1.OperationType, gvr schema.GroupVersionResource, subresource string) bool {
	candidates := []schema.GroupVersionResource{gvr}
	if m.mapper != nil {
		candidates = append(candidates, m.mapper.Equivalents(gvr, subresource)...)
	}
	for _, rule := range m.rules {
		if !slices.Contains(rule.Operations, op) && !slices.Contains(rule.Operations, admissionregistrationv1.OperationAll) {
			continue
		}
		for _, c := range candidates {
			if (slices.Contains(rule.APIGroups, "*") || slices.Contains(rule.APIGroups, c.Group)) && resourceRuleMatches(rule.Resources, c.Resource, subresource) {
				return true
			}
		}
	}
	return false
}

// matchesGroup reports whether a changed step could match anything of group, for objects whose
// resource is not known.
func (m *changeMatcher) matchesGroup(group string) bool {
	for _, rule := range m.rules {
		if slices.Contains(rule.APIGroups, "*") || slices.Contains(rule.APIGroups, group) {
			return true
		}
	}
	return false
}

// resourceRuleMatches is a rule's resources against a resource and subresource, as the apiserver
// reads them: "pods" the resource alone, "pods/status" one subresource, "pods/*" the resource and
// its subresources, "*" every resource alone, "*/status" a subresource of every resource, "*/*"
// everything.
func resourceRuleMatches(names []string, resource, subresource string) bool {
	for _, n := range names {
		res, sub, hasSub := strings.Cut(n, "/")
		if res != "*" && res != resource {
			continue
		}
		switch {
		case !hasSub && subresource == "":
			return true
		case hasSub && (sub == "*" || sub == subresource):
			return true
		}
	}
	return false
}

// matchesResource reports whether a changed step could match any write to gvr — any operation,
// the resource or its subresources: whether an audit log's objects of gvr need following.
func (m *changeMatcher) matchesResource(gvr schema.GroupVersionResource) bool {
	candidates := []schema.GroupVersionResource{gvr}
	if m.mapper != nil {
		candidates = append(candidates, m.mapper.Equivalents(gvr, "")...)
	}
	for _, rule := range m.rules {
		for _, c := range candidates {
			if !slices.Contains(rule.APIGroups, "*") && !slices.Contains(rule.APIGroups, c.Group) {
				continue
			}
			for _, n := range rule.Resources {
				if res, _, _ := strings.Cut(n, "/"); res == "*" || res == c.Resource {
					return true
				}
			}
		}
	}
	return false
}
