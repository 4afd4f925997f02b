package audit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/admitkit/admit/audit/policyreport"
	"github.com/admitkit/admit/engine"
)

// A write's Policy Report results: one for each step an effect of the write is attributed to,
// its status the worst of what the step newly does to the write —
//
//	denied                                   fail   high
//	a call that fails, failurePolicy Fail    error  high
//	a call that fails, failurePolicy Ignore  error  medium
//	warned                                   warn   low (not scored)
//	mutated, or admitted where the baseline  pass
//	rejected
//
// — and the effects no single step is known to have caused (a warning several changed webhooks
// may have sent, or none; a mutation no step newly made) gathered in one result of policy
// UnattributedPolicy.

// UnattributedPolicy is the policy of a write's result that gathers the effects no single step is
// known to have caused; its property "steps" names the steps that may have.
const UnattributedPolicy = "unattributed"

// policyResult is one result of a write, before it is written in a report.
type policyResult struct {
	// step is the step the result is about; nil for UnattributedPolicy's, whose candidates are
	// the steps that may have caused it.
	step       *Step
	candidates []Step
	status     policyreport.Status
	severity   policyreport.Severity
	messages   []string
	properties map[string]string
}

// policyResults are the write's results, in the order of its effects, worst first.
func (f *Finding) policyResults() []policyResult {
	var c resultCollector
	if d := f.Denial; d != nil {
		props := map[string]string{"code": strconv.Itoa(int(d.Code))}
		if d.Reason != "" {
			props["reason"] = d.Reason
		}
		var step *Step
		if d.Step != (Step{}) {
			step = &d.Step
		}
		c.add(step, nil, policyreport.StatusFail, policyreport.SeverityHigh, d.Message, props)
	}
	for i, failure := range f.Failures {
		severity, failurePolicy := policyreport.SeverityMedium, "Ignore"
		if failure.Rejected {
			severity, failurePolicy = policyreport.SeverityHigh, "Fail"
		}
		c.add(&f.Failures[i].Step, nil, policyreport.StatusError, severity, failure.Message, map[string]string{"failurePolicy": failurePolicy})
	}
	for _, w := range f.Warnings {
		if len(w.Steps) == 1 {
			c.add(&w.Steps[0], nil, policyreport.StatusWarn, policyreport.SeverityLow, w.Text, nil)
		} else {
			c.add(nil, w.Steps, policyreport.StatusWarn, policyreport.SeverityLow, w.Text, nil)
		}
	}
	if len(f.Patch) > 0 {
		message := mutationMessage(f)
		if len(f.MutatedBy) == 0 {
			c.add(nil, nil, policyreport.StatusPass, "", message, nil)
		}
		for i := range f.MutatedBy {
			c.add(&f.MutatedBy[i], nil, policyreport.StatusPass, "", message, nil)
		}
	}
	if f.BaselineRejection != "" {
		c.add(f.BaselineRejectedBy, nil, policyreport.StatusPass, "", "admitted; the baseline rejects it: "+f.BaselineRejection, nil)
	}
	return c.results
}

// resultCollector merges a write's effects into one result per step.
type resultCollector struct {
	results []policyResult
	index   map[string]int
}

func (c *resultCollector) add(step *Step, candidates []Step, status policyreport.Status, severity policyreport.Severity, message string, properties map[string]string) {
	key := ""
	if step != nil {
		key = step.sortKey()
	}
	if c.index == nil {
		c.index = map[string]int{}
	}
	i, ok := c.index[key]
	if !ok {
		c.index[key] = len(c.results)
		c.results = append(c.results, policyResult{step: step, status: status, severity: severity})
		i = len(c.results) - 1
	}
	r := &c.results[i]
	if status.Rank() < r.status.Rank() {
		r.status = status
	}
	if severity.Rank() < r.severity.Rank() {
		r.severity = severity
	}
	if !slices.Contains(r.messages, message) {
		r.messages = append(r.messages, message)
	}
	for _, k := range candidates {
		if !slices.Contains(r.candidates, k) {
			r.candidates = append(r.candidates, k)
		}
	}
	for k, v := range properties {
		if r.properties == nil {
			r.properties = map[string]string{}
		}
		if _, set := r.properties[k]; !set {
			r.properties[k] = v
		}
	}
}

// mutationMessage says how the proposal changes the object: its patch's first operations.
func mutationMessage(f *Finding) string {
	ops := make([]string, 0, maxPatchLines+1)
	for i, op := range f.Patch {
		if i == maxPatchLines {
			ops = append(ops, fmt.Sprintf("and %d more operations", len(f.Patch)-i))
			break
		}
		ops = append(ops, patchLine(op.Op, op.Path, op.From, op.Value))
	}
	return "mutated: " + strings.Join(ops, "; ")
}

// reportPolicy is how a step is named in a result: a webhook by its configuration (the policy)
// and its name (the rule), an admission policy by its name, a built-in step by its name; the
// category is the kind of step.
func (k Step) reportPolicy() (policy, rule, category string) {
	switch k.Type {
	case engine.TypeMutatingWebhook:
		return k.Configuration, k.Name, "MutatingWebhookConfiguration"
	case engine.TypeValidatingWebhook:
		return k.Configuration, k.Name, "ValidatingWebhookConfiguration"
	case engine.TypeMutatingPolicy:
		return k.Name, "", "MutatingAdmissionPolicy"
	case engine.TypeValidatingPolicy:
		return k.Name, "", "ValidatingAdmissionPolicy"
	case engine.TypeAdmissionPlugin:
		return k.Name, "", "admission plugin"
	}
	return k.Name, "", "kube-apiserver"
}
