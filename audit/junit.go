package audit

import (
	"fmt"
	"io"

	"github.com/admitkit/admit/internal/junit"
	"github.com/admitkit/admit/internal/words"
)

// WriteJUnit writes the report as JUnit XML: a test case per step with an effect, failed when
// it newly denies or fails writes (the first of them in the message); unreviewed writes an
// error.
func (r *Report) WriteJUnit(w io.Writer) error { return junit.Write(w, r.junit()) }

func (r *Report) junit() []junit.Suite {
	suite := junit.Suite{Name: "admit audit"}
	for _, s := range r.Steps {
		if s.Change == "" && s.Bad()+s.Warned+s.Mutated == 0 {
			continue
		}
		c := junit.Case{Name: s.Step.String(), Class: "admit audit " + r.Source}
		if s.Denied > 0 {
			c.Failures = append(c.Failures, fmt.Sprintf("newly denies %s%s", words.Plural(s.Denied, "write", "writes"), r.firstFound(s.Step, EffectDenied)))
		}
		if s.Failed > 0 {
			c.Failures = append(c.Failures, fmt.Sprintf("newly fails on %s%s", words.Plural(s.Failed, "write", "writes"), r.firstFound(s.Step, EffectFailing)))
		}
		suite.Cases = append(suite.Cases, c)
	}
	for _, g := range r.Unreviewed {
		suite.Cases = append(suite.Cases, junit.Case{Name: "not reviewed: " + words.OneLine(g.Reason), Class: "admit audit " + r.Source,
			Error: fmt.Sprintf("%s could not be reviewed (first: %s)", words.Plural(g.Count, "write", "writes"), g.First)})
	}
	if len(suite.Cases) == 0 {
		suite.Cases = append(suite.Cases, junit.Case{Name: "the proposal", Class: "admit audit " + r.Source})
	}
	return []junit.Suite{suite}
}

// firstFound names the first listed write of step with effect, for a JUnit message.
func (r *Report) firstFound(step Step, effect Effect) string {
	for _, f := range r.Objects {
		switch {
		case effect == EffectDenied && f.Denial != nil && f.Denial.Step == step:
			return fmt.Sprintf(", e.g. %s %s: %s", f.Operation, f.ObjectName(), words.OneLine(f.Denial.Message))
		case effect == EffectFailing:
			for _, failure := range f.Failures {
				if failure.Step == step {
					return fmt.Sprintf(", e.g. %s %s: %s", f.Operation, f.ObjectName(), words.OneLine(failure.Message))
				}
			}
		}
	}
	return ""
}
