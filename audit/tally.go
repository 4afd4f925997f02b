package audit

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/admitkit/admit/engine"
)

// tally accumulates a run's comparisons: totals, steps, namespaces, and the writes with an
// effect, at most limit of them kept (the worst first, then in input order).
type tally struct {
	limit      int
	totals     Totals
	steps      map[Step]*StepCount
	namespaces map[string]*NamespaceCount
	// byRank keeps, per rank, the first limit findings: the report lists the worst limit.
	byRank     [][]Finding
	found      int
	unreviewed groups
	refused    groups
}

// groups count writes by a reason, keeping the first write of each and the reasons' order.
type groups struct {
	byReason map[string]*Unreviewed
	order    []string
}

func (g *groups) add(reason, source string) {
	if g.byReason == nil {
		g.byReason = map[string]*Unreviewed{}
	}
	u, ok := g.byReason[reason]
	if !ok {
		u = &Unreviewed{Reason: reason, First: source}
		g.byReason[reason] = u
		g.order = append(g.order, reason)
	}
	u.Count++
}

// sorted are the groups, the most frequent first.
func (g *groups) sorted() []Unreviewed {
	out := make([]Unreviewed, 0, len(g.order))
	for _, r := range g.order {
		out = append(out, *g.byReason[r])
	}
	slices.SortStableFunc(out, func(a, b Unreviewed) int { return cmp.Compare(b.Count, a.Count) })
	return out
}

func newTally(limit int, changed []Change) *tally {
	t := &tally{limit: limit, steps: map[Step]*StepCount{}, namespaces: map[string]*NamespaceCount{},
		byRank: make([][]Finding, len(effects()))}
	for _, c := range changed {
		t.steps[c.Step] = &StepCount{Step: c.Step, Change: c.What}
	}
	return t
}

func (t *tally) step(k Step) *StepCount {
	s, ok := t.steps[k]
	if !ok {
		s = &StepCount{Step: k}
		t.steps[k] = s
	}
	return s
}

// add counts one write's comparison; base and proposed are its admissions, to count which
// changed steps were called.
func (t *tally) add(f Finding, base, proposed *engine.Result) {
	t.totals.Audited++
	ns := t.namespaces[f.Namespace]
	if ns == nil {
		ns = &NamespaceCount{Namespace: f.Namespace}
		t.namespaces[f.Namespace] = ns
	}
	ns.Audited++
	t.countMatches(base, proposed)
	if !base.Allowed && !proposed.Allowed {
		t.totals.RefusedByBoth++
		t.refused.add(refusal(base, f.Name), f.Source)
	}
	if len(f.Effects) == 0 {
		return
	}
	for _, e := range f.Effects {
		t.countEffect(e, f, ns)
	}
	for _, res := range f.policyResults() {
		ns.Results.Add(res.status)
	}
	t.found++
	if rank := f.rank(); len(t.byRank[rank]) < t.limit {
		t.byRank[rank] = append(t.byRank[rank], f)
	}
}

// countMatches counts, for each changed step, a write it was called for: the proposal's steps,
// and the removed ones under the baseline.
func (t *tally) countMatches(base, proposed *engine.Result) {
	called := map[Step]bool{}
	count := func(rows []engine.Row, removed bool) {
		for _, row := range rows {
			k := StepOf(row)
			s, changed := t.steps[k]
			if !changed || called[k] || (s.Change == "removed") != removed {
				continue
			}
			if row.Outcome != engine.OutcomeSkipped && row.Outcome != engine.OutcomeInert {
				called[k] = true
				s.Matched++
			}
		}
	}
	count(proposed.Rows, false)
	count(base.Rows, true)
}

// countEffect counts one effect of a write, in the totals, its namespace and its steps.
func (t *tally) countEffect(e Effect, f Finding, ns *NamespaceCount) {
	switch e {
	case EffectDenied:
		t.totals.NewlyDenied++
		ns.Denied++
		t.step(f.Denial.Step).Denied++
	case EffectFailing:
		t.totals.NewlyFailing++
		ns.Failing++
		for _, failure := range f.Failures {
			t.step(failure.Step).Failed++
		}
	case EffectWarned:
		t.totals.NewlyWarned++
		ns.Warned++
		// A step counts the warnings that are surely its own.
		counted := map[Step]bool{}
		for _, w := range f.Warnings {
			if len(w.Steps) == 1 && !counted[w.Steps[0]] {
				counted[w.Steps[0]] = true
				t.step(w.Steps[0]).Warned++
			}
		}
	case EffectMutated:
		t.totals.NewlyMutated++
		ns.Mutated++
		for _, k := range f.MutatedBy {
			t.step(k).Mutated++
		}
	case EffectAllowed:
		t.totals.NewlyAllowed++
	}
}

// refusal is why the baseline refused a write: the step that refused it, and its message with
// the object's name taken out, so that the writes refused for one reason count together.
func refusal(base *engine.Result, name string) string {
	message := "rejected"
	if base.Status != nil {
		message = base.Status.Message
	}
	if name != "" {
		message = strings.ReplaceAll(message, strconv.Quote(name), `"<name>"`)
	}
	if row := base.Rejecting(); row != nil {
		return StepOf(*row).String() + ": " + message
	}
	return message
}

// addUnreviewed counts a write that could not be reviewed, grouped by why.
func (t *tally) addUnreviewed(source string, err error) {
	t.totals.Unreviewed++
	t.unreviewed.add(strings.TrimPrefix(err.Error(), source+": "), source)
}

// findings are the findings kept, worst first, at most limit; omitted counts the others.
func (t *tally) findings() (listed []Finding, omitted int) {
	for _, rank := range t.byRank {
		for _, f := range rank {
			if len(listed) == t.limit {
				break
			}
			listed = append(listed, f)
		}
	}
	return listed, t.found - len(listed)
}

// sortedSteps are the steps, the worst first: most new denials and failures, then warnings,
// mutations, matches; changed steps before others at equal counts.
func (t *tally) sortedSteps() []StepCount {
	return sortedValues(t.steps, func(a, b StepCount) int {
		return cmp.Or(cmp.Compare(b.Bad(), a.Bad()), cmp.Compare(b.Warned, a.Warned), cmp.Compare(b.Mutated, a.Mutated),
			cmp.Compare(b.Matched, a.Matched), cmp.Compare(boolRank(a.Change == ""), boolRank(b.Change == "")),
			strings.Compare(a.String(), b.String()))
	})
}

// sortedNamespaces are the namespaces, the worst first.
func (t *tally) sortedNamespaces() []NamespaceCount {
	return sortedValues(t.namespaces, func(a, b NamespaceCount) int {
		return cmp.Or(cmp.Compare(b.Bad(), a.Bad()), cmp.Compare(b.Warned, a.Warned), cmp.Compare(b.Mutated, a.Mutated),
			cmp.Compare(b.Audited, a.Audited), strings.Compare(a.Namespace, b.Namespace))
	})
}

// sortedValues are the values m points to, in the order compare gives.
func sortedValues[K comparable, V any](m map[K]*V, compare func(a, b V) int) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	slices.SortFunc(out, compare)
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
