package testsuite

import (
	"fmt"
	"math"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/review"
)

// The kinds of the items coverage lists.
const (
	KindMutatingWebhook    = "MutatingWebhook"
	KindValidatingWebhook  = "ValidatingWebhook"
	KindValidatingPolicy   = "ValidatingAdmissionPolicy"
	KindMutatingPolicy     = "MutatingAdmissionPolicy"
	KindValidatingBinding  = "ValidatingAdmissionPolicyBinding"
	KindMutatingBinding    = "MutatingAdmissionPolicyBinding"
	coverageCasesPerUnit   = 3
	matchConditionIsFalse  = "a matchCondition is false"
	unitCalled, unitTrue   = "called", "true"
	unitFalse, unitHeld    = "false", "held"
	unitFailed, unitApply  = "failed", "applied"
	unitMatched            = "matched"
	partMatchCondition     = "matchCondition"
	partValidation         = "validation"
	partMutation           = "mutation"
	partWebhook, partBind  = "webhook", "binding"
	outcomeDeniedOrPatched = "denied or patched"
)

// Coverage is what a suite's cases exercised of its webhooks and admission policies: for each
// webhook, policy and binding, units like a program's branches — a webhook called, each
// matchCondition seen true and false, each validation seen holding and failing, each mutation
// applied, each binding matched — and which cases hit each. Percent is Hit of Units.
type Coverage struct {
	Units   int             `json:"units"`
	Hit     int             `json:"hit"`
	Percent float64         `json:"percent"`
	Items   []*CoverageItem `json:"items"`

	// index finds the items by kind, configuration and name, as Record reads rows.
	index map[string]*CoverageItem
}

// CoverageItem is one webhook, admission policy or binding of the suite's configurations.
type CoverageItem struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Configuration is a webhook's configuration, a binding's policy.
	Configuration string `json:"configuration,omitempty"`
	// File and Line are where the item is written, when it was read from a file.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Outcomes count the item's outcomes other than skipped, over the cases.
	Outcomes map[engine.Outcome]int `json:"outcomes,omitempty"`
	Units    []*CoverageUnit        `json:"units"`
	// Cases are the first cases that hit any of the item's units; Count is how many did.
	Cases []string `json:"cases,omitempty"`
	Count int      `json:"count,omitempty"`

	// conditions, validations, mutations and actions are what Record reads results with.
	conditions  int
	validations []validation
	mutations   int
	denies      bool
	last        string
}

// CoverageUnit is one thing a case may exercise: Part (webhook, matchCondition, validation,
// mutation, binding) and, of a matchCondition, validation or mutation, its Index, Name and
// Expression; Branch is what was to be seen (called, true, false, held, failed, applied,
// matched).
type CoverageUnit struct {
	Part       string `json:"part"`
	Index      int    `json:"index"`
	Name       string `json:"name,omitempty"`
	Expression string `json:"expression,omitempty"`
	Branch     string `json:"branch"`
	Hit        bool   `json:"hit"`
	// Cases are the first cases that hit the unit; Count is how many did.
	Cases []string `json:"cases,omitempty"`
	Count int      `json:"count,omitempty"`
	// Line is where the unit is written in the item's File.
	Line int `json:"line,omitempty"`

	path, last string
	// column is the 1-based column of the unit's key: lines below indented further are its
	// value's.
	column int
}

// String names the unit as the text output does: "validation[1] failed".
func (u *CoverageUnit) String() string {
	switch u.Part {
	case partWebhook, partBind:
		return u.Branch
	case partMatchCondition:
		return fmt.Sprintf("matchCondition %s %s", u.Name, u.Branch)
	}
	return fmt.Sprintf("%s[%d] %s", u.Part, u.Index, u.Branch)
}

// validation is what tells a ValidatingAdmissionPolicy's denial by one validation: its message
// (or "failed expression: ..."), which a messageExpression replaces unless it fails.
type validation struct {
	message           string
	messageExpression bool
}

// NewCoverage lists the units of cfg's webhooks, policies and bindings, none hit yet.
func NewCoverage(cfg review.Config) *Coverage {
	c := &Coverage{}
	for _, m := range cfg.Mutating {
		for i, w := range m.Webhooks {
			c.addWebhook(KindMutatingWebhook, m.Name, i, w.Name, w.MatchConditions)
		}
	}
	for _, v := range cfg.Validating {
		for i, w := range v.Webhooks {
			c.addWebhook(KindValidatingWebhook, v.Name, i, w.Name, w.MatchConditions)
		}
	}
	for _, p := range cfg.Policies {
		c.addPolicy(p.Object)
	}
	c.sum()
	return c
}

func (c *Coverage) addWebhook(kind, configuration string, index int, name string, conditions []admissionregistrationv1.MatchCondition) {
	at := fmt.Sprintf("webhooks[%d]", index)
	item := &CoverageItem{Kind: kind, Name: name, Configuration: configuration, conditions: len(conditions)}
	item.Units = append(item.Units, &CoverageUnit{Part: partWebhook, Branch: unitCalled, path: at + ".name"})
	for j, mc := range conditions {
		item.addCondition(j, mc.Name, mc.Expression, fmt.Sprintf("%s.matchConditions[%d].expression", at, j))
	}
	c.Items = append(c.Items, item)
}

func (item *CoverageItem) addCondition(index int, name, expression, path string) {
	for _, branch := range []string{unitTrue, unitFalse} {
		item.Units = append(item.Units, &CoverageUnit{Part: partMatchCondition, Index: index, Name: name, Expression: expression, Branch: branch, path: path})
	}
}

// addPolicy lists a policy's or binding's units, read from the object as written.
func (c *Coverage) addPolicy(obj *unstructured.Unstructured) {
	item := &CoverageItem{Kind: obj.GetKind(), Name: obj.GetName()}
	switch item.Kind {
	case KindValidatingBinding, KindMutatingBinding:
		item.Configuration, _, _ = unstructured.NestedString(obj.Object, "spec", "policyName")
		actions, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "validationActions")
		item.denies = item.Kind == KindMutatingBinding || containsString(actions, string(admissionregistrationv1.Deny))
		item.Units = append(item.Units, &CoverageUnit{Part: partBind, Branch: unitMatched, path: "spec.policyName"})
	case KindValidatingPolicy, KindMutatingPolicy:
		conditions, _, _ := unstructured.NestedSlice(obj.Object, "spec", "matchConditions")
		for j, mc := range conditions {
			m, _ := mc.(map[string]any)
			item.addCondition(j, stringField(m, "name"), stringField(m, "expression"), fmt.Sprintf("spec.matchConditions[%d].expression", j))
		}
		item.conditions = len(conditions)
		if item.Kind == KindValidatingPolicy {
			item.addValidations(obj)
		} else {
			item.addMutations(obj)
		}
	default:
		return
	}
	c.Items = append(c.Items, item)
}

func (item *CoverageItem) addValidations(obj *unstructured.Unstructured) {
	validations, _, _ := unstructured.NestedSlice(obj.Object, "spec", "validations")
	for i, v := range validations {
		m, _ := v.(map[string]any)
		expr, message := stringField(m, "expression"), stringField(m, "message")
		if message == "" {
			message = "failed expression: " + expr
		}
		item.validations = append(item.validations, validation{message: message, messageExpression: stringField(m, "messageExpression") != ""})
		path := fmt.Sprintf("spec.validations[%d].expression", i)
		for _, branch := range []string{unitHeld, unitFailed} {
			item.Units = append(item.Units, &CoverageUnit{Part: partValidation, Index: i, Expression: expr, Branch: branch, path: path})
		}
	}
}

func (item *CoverageItem) addMutations(obj *unstructured.Unstructured) {
	mutations, _, _ := unstructured.NestedSlice(obj.Object, "spec", "mutations")
	item.mutations = len(mutations)
	for i, mu := range mutations {
		m, _ := mu.(map[string]any)
		path := fmt.Sprintf("spec.mutations[%d].applyConfiguration.expression", i)
		expr, _, _ := unstructured.NestedString(m, "applyConfiguration", "expression")
		if expr == "" {
			path = fmt.Sprintf("spec.mutations[%d].jsonPatch.expression", i)
			expr, _, _ = unstructured.NestedString(m, "jsonPatch", "expression")
		}
		item.Units = append(item.Units, &CoverageUnit{Part: partMutation, Index: i, Expression: expr, Branch: unitApply, path: path})
	}
}

func stringField(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// sum counts the units hit and the percentage; no unit at all is 100%, nothing left unexercised.
func (c *Coverage) sum() {
	c.Units, c.Hit = 0, 0
	for _, item := range c.Items {
		for _, u := range item.Units {
			c.Units++
			if u.Hit {
				c.Hit++
			}
		}
	}
	c.Percent = 100
	if c.Units > 0 {
		c.Percent = math.Round(1000*float64(c.Hit)/float64(c.Units)) / 10
	}
}

// hit records that the named case hit the item's unit u; a case counts once, however many
// rounds or bindings hit it.
func (item *CoverageItem) hit(u *CoverageUnit, name string) {
	if !u.Hit || u.last != name {
		u.Hit, u.last = true, name
		u.Count++
		if len(u.Cases) < coverageCasesPerUnit {
			u.Cases = append(u.Cases, name)
		}
	}
	if item.Count == 0 || item.last != name {
		item.last = name
		item.Count++
		if len(item.Cases) < coverageCasesPerUnit {
			item.Cases = append(item.Cases, name)
		}
	}
}

// locate sets where each item and unit is written, from the configurations and policies as set
// read them.
func (c *Coverage) locate(set *config.Set) {
	sources := map[string]config.Source{}
	for _, m := range set.Mutating {
		sources[KindMutatingWebhook+"/"+m.Config.Name] = m.Source
	}
	for _, v := range set.Validating {
		sources[KindValidatingWebhook+"/"+v.Config.Name] = v.Source
	}
	for _, o := range set.Others {
		sources[o.Object.GetKind()+"/"+o.Object.GetName()] = o.Source
	}
	for _, item := range c.Items {
		key := item.Kind + "/" + item.Name
		if item.Kind == KindMutatingWebhook || item.Kind == KindValidatingWebhook {
			key = item.Kind + "/" + item.Configuration
		}
		source, ok := sources[key]
		if !ok || source.File == "" {
			continue
		}
		item.File, item.Line = source.File, source.Line
		for _, u := range item.Units {
			if pos, _, ok := source.Field(u.path); ok {
				u.Line, u.column = pos.Line, pos.Column
			}
		}
		if len(item.Units) > 0 && item.Kind != KindValidatingPolicy && item.Kind != KindMutatingPolicy {
			item.Line = item.Units[0].Line // a webhook's name, a binding's policyName
		}
	}
}
