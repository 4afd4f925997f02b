package main

import (
	"fmt"
	"slices"
)

// tally counts verdicts.
type tally struct {
	Real, Minor, Noise, FalsePositive, Unjudged int
}

func (t *tally) add(v Verdict) {
	switch v {
	case Real:
		t.Real++
	case Minor:
		t.Minor++
	case Noise:
		t.Noise++
	case FalsePositive:
		t.FalsePositive++
	default:
		t.Unjudged++
	}
}

func (t tally) judged() int { return t.Real + t.Minor + t.Noise + t.FalsePositive }

// plus is the two tallies together.
func (t tally) plus(u tally) tally {
	return tally{Real: t.Real + u.Real, Minor: t.Minor + u.Minor, Noise: t.Noise + u.Noise,
		FalsePositive: t.FalsePositive + u.FalsePositive, Unjudged: t.Unjudged + u.Unjudged}
}

func (t tally) total() int { return t.judged() + t.Unjudged }

// precision is the share of the judged findings worth acting on, (real+minor)/judged; ok is
// false when nothing is judged, where it means nothing. Unjudged findings are left out rather
// than guessed at: the report shows how many there are.
func (t tally) precision() (p float64, ok bool) {
	if t.judged() == 0 {
		return 0, false
	}
	return float64(t.Real+t.Minor) / float64(t.judged()), true
}

func (t tally) precisionText() string {
	p, ok := t.precision()
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", 100*p, t.Real+t.Minor, t.judged())
}

// severityCounts counts a project's findings by severity.
type severityCounts struct {
	Errors, Warnings, Infos int
}

func countSeverities(findings []judgedFinding) severityCounts {
	var c severityCounts
	for _, f := range findings {
		switch f.Severity {
		case severityError:
			c.Errors++
		case severityWarning:
			c.Warnings++
		default:
			c.Infos++
		}
	}
	return c
}

// tallies counts the verdicts of the warnings and errors, over all and by rule (keyed
// "B07 single-replica").
func tallies(results []projectResult) (all tally, byRule map[string]*tally) {
	byRule = map[string]*tally{}
	for _, r := range results {
		for _, f := range r.Findings {
			if !f.counts() {
				continue
			}
			all.add(f.Verdict)
			key := f.Rule + " " + f.Name
			if byRule[key] == nil {
				byRule[key] = &tally{}
			}
			byRule[key].add(f.Verdict)
		}
	}
	return all, byRule
}

// corpusSet is a part of the corpus measured on its own: the projects the rules were tuned on
// (Unseen empty), or those added unseen for one change. Precision on the first flatters the
// rules, which were changed until their findings there were worth acting on; the second says
// what a user who has never been looked at gets.
type corpusSet struct {
	Unseen   string
	Projects int
	All      tally
	// Before and After split an unseen set's verdicts: given before the rules changed, or
	// after (findings the change made). Gone are the verdicts on the findings the change
	// removed: with Before, the set as it was judged, before the change.
	Before, After, Gone tally
}

func (s corpusSet) label() string {
	if s.Unseen == "" {
		return "tuned on"
	}
	return "unseen for " + s.Unseen
}

// corpusSets tallies the warnings and errors by part of the corpus: the tuned projects first,
// then each unseen set in the order of the corpus. Projects that could not be evaluated count
// as projects with no findings.
func corpusSets(results []projectResult) []corpusSet {
	var sets []corpusSet
	index := map[string]int{}
	for _, r := range results {
		key := r.Project.Unseen
		i, ok := index[key]
		if !ok {
			i = len(sets)
			index[key] = i
			sets = append(sets, corpusSet{Unseen: key})
		}
		s := &sets[i]
		s.Projects++
		for _, j := range r.Gone {
			s.Gone.add(j.Verdict)
		}
		for _, f := range r.Findings {
			if !f.counts() {
				continue
			}
			s.All.add(f.Verdict)
			switch {
			case key == "":
			case f.AfterChange:
				s.After.add(f.Verdict)
			default:
				s.Before.add(f.Verdict)
			}
		}
	}
	slices.SortStableFunc(sets, func(x, y corpusSet) int {
		if (x.Unseen == "") != (y.Unseen == "") {
			if x.Unseen == "" {
				return -1
			}
			return 1
		}
		return 0
	})
	return sets
}
