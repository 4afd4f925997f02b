package audit

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	admissionregistrationdefaults "k8s.io/kubernetes/pkg/apis/admissionregistration/v1"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/review"
)

// Step names a step of the chain as result rows name it: a webhook by its type and
// configuration, an admission policy by its type and name, a built-in step by its type and
// name.
type Step struct {
	Type          engine.RowType `json:"type"`
	Configuration string         `json:"configuration,omitempty"`
	Name          string         `json:"name"`
}

// StepOf is a result row's step.
func StepOf(row engine.Row) Step {
	return Step{Type: row.Type, Configuration: row.Configuration, Name: row.Name}
}

// String names the step for people, as its configuration names it.
func (k Step) String() string {
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

// sortKey orders steps: by type, configuration and name.
func (k Step) sortKey() string { return string(k.Type) + "/" + k.Configuration + "/" + k.Name }

// policyStep is the step of a policy kind's policy named name.
func policyStep(kind, name string) Step {
	if kind == "MutatingAdmissionPolicy" {
		return Step{Type: engine.TypeMutatingPolicy, Name: name}
	}
	return Step{Type: engine.TypeValidatingPolicy, Name: name}
}

// Change is a step the proposal adds, changes or removes.
type Change struct {
	Step
	// What is "added", "changed" or "removed".
	What string `json:"change"`
	// Detail says what changed of a policy whose own spec did not: its bindings.
	Detail string `json:"detail,omitempty"`
	// rules are what the step can match, for the baseline's and the proposal's versions of it:
	// an object none of them matches is admitted alike by both.
	rules []admissionregistrationv1.RuleWithOperations
}

// Changes compares the baseline with the proposal, step by step: webhooks by configuration and
// name (their caBundle aside, which a file often leaves to an injector), policies by name with
// their bindings (a binding added, changed or removed changes its policy). Policies and bindings
// are compared with the apiserver's defaults: one read from a cluster has them, the same one in
// a file does not.
func Changes(base, proposed review.Admission) []Change {
	var c changeList
	c.compare(webhookSpecs(base), webhookSpecs(proposed))
	defaults := policyDefaults()
	c.compare(policySpecs(base, defaults), policySpecs(proposed, defaults))
	out := make([]Change, len(c.order))
	for i, k := range c.order {
		out[i] = *c.byStep[k]
	}
	return out
}

// changeList collects changes in the order they are found, one per step.
type changeList struct {
	byStep map[Step]*Change
	order  []Step
}

// spec is what a step is, for comparing, and the rules it matches with; a policy's bindings
// by name apart.
type spec struct {
	value    any
	rules    []admissionregistrationv1.RuleWithOperations
	bindings map[string]any
}

func (c *changeList) note(k Step, what string, rules []admissionregistrationv1.RuleWithOperations) {
	if c.byStep == nil {
		c.byStep = map[Step]*Change{}
	}
	ch, ok := c.byStep[k]
	if !ok {
		ch = &Change{Step: k, What: what}
		c.byStep[k] = ch
		c.order = append(c.order, k)
	} else if ch.What != what {
		ch.What = "changed"
	}
	ch.rules = append(ch.rules, rules...)
}

func (c *changeList) compare(before, after map[Step]spec) {
	for _, k := range sortedSteps(after) {
		b, existed := before[k]
		switch {
		case !existed:
			c.note(k, "added", after[k].rules)
		case !reflect.DeepEqual(b.value, after[k].value) || !reflect.DeepEqual(b.bindings, after[k].bindings):
			c.note(k, "changed", append(slices.Clone(b.rules), after[k].rules...))
			if reflect.DeepEqual(b.value, after[k].value) {
				c.byStep[k].Detail = bindingsChange(b.bindings, after[k].bindings)
			}
		}
	}
	for _, k := range sortedSteps(before) {
		if _, kept := after[k]; !kept {
			c.note(k, "removed", before[k].rules)
		}
	}
}

// webhookSpecs are the webhooks of a, their caBundle aside.
func webhookSpecs(a review.Admission) map[Step]spec {
	out := map[Step]spec{}
	for _, c := range a.Mutating {
		for _, w := range c.Webhooks {
			w.ClientConfig.CABundle = nil
			out[Step{Type: engine.TypeMutatingWebhook, Configuration: c.Name, Name: w.Name}] = spec{value: w, rules: w.Rules}
		}
	}
	for _, c := range a.Validating {
		for _, w := range c.Webhooks {
			w.ClientConfig.CABundle = nil
			out[Step{Type: engine.TypeValidatingWebhook, Configuration: c.Name, Name: w.Name}] = spec{value: w, rules: w.Rules}
		}
	}
	return out
}

// policySpecs are the policies of a, each with its bindings by name: a policy's bindings are
// part of what it does.
func policySpecs(a review.Admission, defaults *runtime.Scheme) map[Step]spec {
	out := map[Step]spec{}
	for _, p := range a.Policies {
		value := defaultedSpec(defaults, p.Object)
		switch p.Object.GetKind() {
		case "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
			k := policyStep(p.Object.GetKind(), p.Object.GetName())
			s := out[k]
			s.value, s.rules = value, policyRules(p.Object)
			out[k] = s
		default:
			name, _, _ := unstructured.NestedString(p.Object.Object, "spec", "policyName")
			k := policyStep(strings.TrimSuffix(p.Object.GetKind(), "Binding"), name)
			s := out[k]
			if s.bindings == nil {
				s.bindings = map[string]any{}
			}
			s.bindings[p.Object.GetName()] = value
			out[k] = s
		}
	}
	return out
}

// bindingsChange says which of a policy's bindings the proposal adds, changes or removes.
func bindingsChange(before, after map[string]any) string {
	var parts []string
	for _, name := range sortedNames(after) {
		b, existed := before[name]
		switch {
		case !existed:
			parts = append(parts, "binding "+name+" added")
		case !reflect.DeepEqual(b, after[name]):
			parts = append(parts, "binding "+name+" changed")
		}
	}
	for _, name := range sortedNames(before) {
		if _, kept := after[name]; !kept {
			parts = append(parts, "binding "+name+" removed")
		}
	}
	return strings.Join(parts, ", ")
}

func sortedNames(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// policyDefaults is a scheme that defaults admission policies and bindings as the apiserver
// does when it stores them.
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

func sortedSteps[V any](m map[Step]V) []Step {
	keys := make([]Step, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Step) int { return strings.Compare(a.sortKey(), b.sortKey()) })
	return keys
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
