package audit

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/words"
)

// tally accumulates a run's comparisons — totals, steps, namespaces, the writes with an effect,
// at most limit of them kept (the worst first, then in the source's order) — or, in Merge, the
// shards' reports.
type tally struct {
	limit      int
	totals     Totals
	steps      map[Step]*StepCount
	namespaces map[string]*NamespaceCount
	// byRank keeps, per rank, the first limit findings: the report lists the worst limit.
	byRank     [][]placed[Finding]
	found      int
	unreviewed groups
	refused    groups
	// skipped counts the writes not audited, by why.
	skipped map[Skipped]int
	// keepAll keeps every finding, for findings to list the worst limit: in Merge, whose
	// findings do not come in the source's order.
	keepAll bool
}

// placed is something found at a write's position in the source.
type placed[T any] struct {
	at    int64
	value T
}

// groups count writes by a reason, keeping the first write of each, where it is in the source.
type groups struct {
	byReason map[string]*placed[Unreviewed]
}

// add counts n writes of reason, the first of them source at position at.
func (g *groups) add(reason, source string, at int64, n int) {
	if g.byReason == nil {
		g.byReason = map[string]*placed[Unreviewed]{}
	}
	u, ok := g.byReason[reason]
	if !ok {
		u = &placed[Unreviewed]{at: at, value: Unreviewed{Reason: reason, First: source}}
		g.byReason[reason] = u
	} else if at < u.at {
		u.at, u.value.First = at, source
	}
	u.value.Count += n
}

// sorted are the groups, the most frequent first, then in the order of their first writes; at
// are those writes' positions.
func (g *groups) sorted() (out []Unreviewed, at []int64) {
	all := make([]placed[Unreviewed], 0, len(g.byReason))
	for _, u := range g.byReason {
		all = append(all, *u)
	}
	slices.SortFunc(all, func(a, b placed[Unreviewed]) int {
		return cmp.Or(cmp.Compare(b.value.Count, a.value.Count), cmp.Compare(a.at, b.at))
	})
	for _, u := range all {
		out, at = append(out, u.value), append(at, u.at)
	}
	return out, at
}

func newTally(limit int, changed []Change) *tally {
	t := &tally{limit: limit, steps: map[Step]*StepCount{}, namespaces: map[string]*NamespaceCount{},
		byRank: make([][]placed[Finding], len(effects())), skipped: map[Skipped]int{}}
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
// changed steps were called; at is the write's position.
func (t *tally) add(f Finding, at int64, base, proposed *engine.Result) {
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
		t.refused.add(refusal(base, f.Name), f.Source, at, 1)
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
	t.keep(f, at)
}

// keep counts a finding at position at, and keeps it if it may be listed.
func (t *tally) keep(f Finding, at int64) {
	t.found++
	if rank := f.rank(); t.keepAll || len(t.byRank[rank]) < t.limit {
		t.byRank[rank] = append(t.byRank[rank], placed[Finding]{at: at, value: f})
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

// addUnreviewed counts a write that could not be reviewed, grouped by why; at is its position.
func (t *tally) addUnreviewed(source string, at int64, err error) {
	t.totals.Unreviewed++
	t.unreviewed.add(strings.TrimPrefix(err.Error(), source+": "), source, at, 1)
}

// findings are the findings kept, worst first, then in the source's order, at most limit, and
// their positions; omitted counts the others.
func (t *tally) findings() (listed []Finding, at []int64, omitted int) {
	for _, rank := range t.byRank {
		slices.SortStableFunc(rank, func(a, b placed[Finding]) int { return cmp.Compare(a.at, b.at) })
		for _, f := range rank {
			if len(listed) == t.limit {
				break
			}
			listed, at = append(listed, f.value), append(at, f.at)
		}
	}
	return listed, at, t.found - len(listed)
}

// skippedNotes say what was not audited and why, in the order of the reasons.
func (t *tally) skippedNotes() []string {
	var notes []string
	for _, s := range t.sortedSkipped() {
		notes = append(notes, words.Plural(s.Count, s.One, s.Many)+s.Why)
	}
	return notes
}

func (t *tally) sortedSkipped() []SkippedCount {
	out := make([]SkippedCount, 0, len(t.skipped))
	for s, n := range t.skipped {
		out = append(out, SkippedCount{Skipped: s, Count: n})
	}
	slices.SortFunc(out, func(a, b SkippedCount) int {
		return cmp.Or(strings.Compare(a.Why, b.Why), strings.Compare(a.One, b.One), strings.Compare(a.Many, b.Many))
	})
	return out
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
