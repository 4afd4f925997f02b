package testsuite

import (
	"strings"

	"github.com/admitkit/admit/engine"
)

// Record adds what one case's result exercised: each row of a webhook, policy or binding of the
// suite hits the units it shows. A row shows only what the apiserver says of a step, so Record
// credits a unit only when the row proves it (docs/testing.md, "Coverage", says what rows cannot
// tell).
func (c *Coverage) Record(name string, r *engine.Result) {
	if r == nil {
		return
	}
	for i := range r.Rows {
		row := &r.Rows[i]
		switch {
		case row.Type.IsWebhook():
			kind := KindMutatingWebhook
			if row.Type == engine.TypeValidatingWebhook {
				kind = KindValidatingWebhook
			}
			if item := c.find(kind, row.Configuration, row.Name); item != nil {
				item.recordWebhook(name, row)
			}
		case row.Type.IsPolicy():
			policyKind, bindingKind := KindMutatingPolicy, KindMutatingBinding
			if row.Type == engine.TypeValidatingPolicy {
				policyKind, bindingKind = KindValidatingPolicy, KindValidatingBinding
			}
			binding := c.find(bindingKind, "", row.Binding)
			if binding != nil && reached(row.Outcome) {
				binding.hit(binding.unit(partBind, unitMatched, 0), name)
				binding.count(row.Outcome)
			}
			if policy := c.find(policyKind, "", row.Name); policy != nil {
				policy.recordPolicy(name, row, binding)
			}
		}
	}
	c.sum()
}

// reached says a step was not skipped: its rules, selectors and matchConditions (or its
// bindings' and policy's constraints) let the request through to it.
func reached(o engine.Outcome) bool { return o != engine.OutcomeSkipped && o != engine.OutcomeInert }

// find is the item of kind named name (in configuration, for a webhook).
func (c *Coverage) find(kind, configuration, name string) *CoverageItem {
	if c.index == nil {
		c.index = map[string]*CoverageItem{}
		for _, item := range c.Items {
			c.index[itemKey(item.Kind, item.Configuration, item.Name)] = item
		}
	}
	return c.index[itemKey(kind, configuration, name)]
}

// itemKey finds an item: a webhook by its configuration too, a policy or binding by its name.
func itemKey(kind, configuration, name string) string {
	if kind != KindMutatingWebhook && kind != KindValidatingWebhook {
		configuration = ""
	}
	return kind + "\x00" + configuration + "\x00" + name
}

// unit is the item's unit of part, branch and index; nil when it has none.
func (item *CoverageItem) unit(part, branch string, index int) *CoverageUnit {
	for _, u := range item.Units {
		if u.Part == part && u.Branch == branch && u.Index == index {
			return u
		}
	}
	return nil
}

func (item *CoverageItem) count(o engine.Outcome) {
	if item.Outcomes == nil {
		item.Outcomes = map[engine.Outcome]int{}
	}
	item.Outcomes[o]++
}

// conditionsHeld hits every matchCondition's true: the call went ahead.
func (item *CoverageItem) conditionsHeld(name string) {
	for j := 0; j < item.conditions; j++ {
		item.hit(item.unit(partMatchCondition, unitTrue, j), name)
	}
}

// recordWebhook: a webhook not skipped was called; one that answered, or whose call failed open,
// had every matchCondition true (an error may be a condition's own); one skipped because "a matchCondition is false" had its only condition false (of
// several, the row does not say which).
func (item *CoverageItem) recordWebhook(name string, row *engine.Row) {
	if reached(row.Outcome) {
		item.hit(item.unit(partWebhook, unitCalled, 0), name)
		item.count(row.Outcome)
	}
	switch row.Outcome {
	case engine.OutcomeAllowed, engine.OutcomePatched, engine.OutcomeDenied, engine.OutcomeFailedOpen:
		item.conditionsHeld(name)
	case engine.OutcomeSkipped:
		if row.Reason == matchConditionIsFalse && item.conditions == 1 {
			item.hit(item.unit(partMatchCondition, unitFalse, 0), name)
		}
	}
}

// recordPolicy reads a policy's row (of the binding given, when it is one of the suite's).
func (item *CoverageItem) recordPolicy(name string, row *engine.Row, binding *CoverageItem) {
	if !reached(row.Outcome) {
		return
	}
	item.count(row.Outcome)
	switch {
	case item.Kind == KindMutatingPolicy && row.Outcome == engine.OutcomePatched:
		item.conditionsHeld(name)
		if item.mutations == 1 {
			item.hit(item.unit(partMutation, unitApply, 0), name)
		}
	case item.Kind == KindValidatingPolicy && row.Outcome == engine.OutcomeDenied:
		failed := item.failedValidation(row.Reason)
		if failed < 0 {
			return
		}
		item.conditionsHeld(name)
		item.hit(item.unit(partValidation, unitFailed, failed), name)
		// The plugin denies with the first validation that fails: those before it held.
		for i := 0; i < failed; i++ {
			item.hit(item.unit(partValidation, unitHeld, i), name)
		}
	case item.Kind == KindValidatingPolicy && row.Outcome == engine.OutcomeAllowed:
		// Allowed is every validation held only when no matchCondition can have excluded the
		// request and a failure would have denied it.
		if item.conditions == 0 && binding != nil && binding.denies {
			for i := range item.validations {
				item.hit(item.unit(partValidation, unitHeld, i), name)
			}
		}
	}
}

// failedValidation is the index of the validation a denial's reason names — by its message, or
// "failed expression: ..." for one without — or of the only validation with a
// messageExpression when none does; -1 when the reason names none surely.
func (item *CoverageItem) failedValidation(reason string) int {
	_, cause, ok := strings.Cut(reason, " denied request: ")
	if !ok || strings.HasPrefix(cause, "failed to configure binding") || strings.Contains(cause, " resulted in error: ") {
		return -1
	}
	byMessage, byExpression := -1, -1
	for i, v := range item.validations {
		if v.message == cause {
			byMessage = one(byMessage, i)
		}
		if v.messageExpression {
			byExpression = one(byExpression, i)
		}
	}
	if byMessage != -1 {
		return max(byMessage, -1)
	}
	return max(byExpression, -1)
}

// one is i when found is -1 (none yet), else -2: two candidates, either may be the one.
func one(found, i int) int {
	if found == -1 {
		return i
	}
	return -2
}
