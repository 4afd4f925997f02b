package testsuite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/review"
)

// A case is vacuous when it passes without what it tests: its expectations hold whatever the
// webhooks and policies under test do, so no change to them can make it fail — a case expecting
// a denial that a built-in plugin or the schema gives anyway, or expecting "allowed" of an object
// the policy never matches. What a case tests is what its `tests` names, by default every
// webhook and admission policy of its file; each case that passed is admitted once more without
// them (a control run), and one that passes again fails, with the step that decided.

// checkTests refuses a case's `tests` naming nothing of the file's configurations (known).
func (r *run) checkTests(known map[string]bool, c *Case) error {
	for _, name := range c.Tests {
		if !known[name] {
			return fmt.Errorf("%s:%d: case %q: tests: no webhook, webhook configuration, admission policy or binding of the file is named %q", r.suite.Path, c.Line, c.Name, name)
		}
	}
	return nil
}

// configurationNames are the names `tests` may give: webhooks, their configurations, policies
// and bindings.
func configurationNames(cfg review.Config) map[string]bool {
	known := map[string]bool{}
	for _, m := range cfg.Mutating {
		known[m.Name] = true
		for _, w := range m.Webhooks {
			known[w.Name] = true
		}
	}
	for _, v := range cfg.Validating {
		known[v.Name] = true
		for _, w := range v.Webhooks {
			known[w.Name] = true
		}
	}
	for _, p := range cfg.Policies {
		known[p.Object.GetName()] = true
	}
	return known
}

// controlGroups are the cases that passed, grouped by what they test, for the control runs.
type controlGroups struct {
	index   map[string]int
	tests   [][]string
	members [][]int
}

// add puts the passed case c, at position k, in the group of what it tests; a case that tests
// none of the file's configurations has no control run.
func (g *controlGroups) add(k int, c *Case) {
	if testsNothing(c) {
		return
	}
	key := strings.Join(c.Tests, "\x00")
	i, seen := g.index[key]
	if !seen {
		if g.index == nil {
			g.index = map[string]int{}
		}
		i = len(g.tests)
		g.index[key] = i
		g.tests, g.members = append(g.tests, c.Tests), append(g.members, nil)
	}
	g.members[i] = append(g.members[i], k)
}

// findVacuous admits each case that passed once more, without what it tests, and fails those
// that pass again: a control run for each group of cases that test the same.
func (r *run) findVacuous(ctx context.Context, cfg review.Config, crds []review.Input) error {
	log := r.report.cases
	tested, members := r.control.tests, r.control.members
	for g, tests := range tested {
		// A case whose request cannot be built without them is no vacuous case.
		err := r.admit(ctx, without(cfg, tests), crds, members[g], func(a admitted, _ fieldSchemas) error {
			if a.err != nil || a.o.Err != nil || a.o.Result == nil || len(Check(a.c.Expect, a.o.Result)) > 0 {
				return nil
			}
			log.failVacuous(a.k, vacuousFailure(a.c, a.o.Result))
			return nil
		})
		if err != nil {
			return fmt.Errorf("the control run without %s: %w", testedWhat(tests), err)
		}
	}
	return nil
}

// testsNothing says the case names no configuration of the file as what it tests (`tests: []`).
func testsNothing(c *Case) bool { return c.Tests != nil && len(c.Tests) == 0 }

// vacuousFailure says a case passes without what it tests, and what decided then.
func vacuousFailure(c *Case, res *engine.Result) string {
	decided := "admitted"
	if !res.Allowed {
		decided = "rejected before admission: " + statusLine(res)
		if row := res.Rejecting(); row != nil {
			decided = "rejected by " + stepName(*row)
		}
	}
	return fmt.Sprintf("vacuous: it passes without %s too (%s), so it cannot fail whatever they do: expect what only they decide — who is called (called), what each does (outcomes, skipped for one that must not apply), a message of theirs",
		testedWhat(c.Tests), decided)
}

// testedWhat names what a case tests, in messages.
func testedWhat(tests []string) string {
	if len(tests) == 0 {
		return "the file's webhooks and policies"
	}
	quoted := make([]string, len(tests))
	for i, t := range tests {
		quoted[i] = fmt.Sprintf("%q", t)
	}
	return strings.Join(quoted, ", ")
}

// stepName says which step of admission a row is, in messages.
func stepName(row engine.Row) string {
	switch {
	case row.Type.IsWebhook():
		return fmt.Sprintf("the %s webhook %q", row.Type, row.Name)
	case row.Type == engine.TypeValidatingPolicy:
		return fmt.Sprintf("the ValidatingAdmissionPolicy %q", row.Name)
	case row.Type == engine.TypeMutatingPolicy:
		return fmt.Sprintf("the MutatingAdmissionPolicy %q", row.Name)
	case row.Type == engine.TypeAdmissionPlugin:
		return fmt.Sprintf("the built-in admission plugin %s", row.Name)
	case row.Type == engine.TypePreparation:
		return "the registry's validation: " + row.Reason
	}
	return row.Name
}

// without is cfg without the webhooks, configurations, policies and bindings named (all of them
// when none is named); a policy's bindings go with it.
func without(cfg review.Config, names []string) review.Config {
	drop := func(name string) bool { return len(names) == 0 || slices.Contains(names, name) }
	out := cfg
	out.Mutating, out.Validating, out.Policies = nil, nil, nil
	for _, m := range cfg.Mutating {
		if drop(m.Name) {
			continue
		}
		kept := m.DeepCopy()
		kept.Webhooks = slices.DeleteFunc(kept.Webhooks, func(w admissionregistrationv1.MutatingWebhook) bool { return drop(w.Name) })
		if len(kept.Webhooks) > 0 {
			out.Mutating = append(out.Mutating, kept)
		}
	}
	for _, v := range cfg.Validating {
		if drop(v.Name) {
			continue
		}
		kept := v.DeepCopy()
		kept.Webhooks = slices.DeleteFunc(kept.Webhooks, func(w admissionregistrationv1.ValidatingWebhook) bool { return drop(w.Name) })
		if len(kept.Webhooks) > 0 {
			out.Validating = append(out.Validating, kept)
		}
	}
	for _, p := range cfg.Policies {
		if drop(p.Object.GetName()) || drop(boundPolicy(p.Object)) {
			continue
		}
		out.Policies = append(out.Policies, p)
	}
	return out
}

// boundPolicy is the policy a binding binds, "" for a policy.
func boundPolicy(obj *unstructured.Unstructured) string {
	name, _, _ := unstructured.NestedString(obj.Object, "spec", "policyName")
	return name
}
