package testsuite

import (
	"context"
	"errors"
	"fmt"

	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// caseSource gives a file's cases by position: held (a Suite's Cases), or read again from the
// file each time (caseFile), so that a run over many cases holds a batch of them.
type caseSource interface {
	Len() int
	Case(i int) (*Case, error)
}

// heldCases are a Suite's cases, parsed once and held.
type heldCases []*Case

func (h heldCases) Len() int                  { return len(h) }
func (h heldCases) Case(i int) (*Case, error) { return h[i], nil }

// selectedCase is the case at position k of the selected ones.
func (r *run) selectedCase(k int) (*Case, error) { return r.cases.Case(r.selected[k]) }

// survey reads the selected cases once before they run: each case's `tests` must name
// configurations of the file (see checkTests), and the CustomResourceDefinitions among their
// objects are the Session's, which knows their kinds.
func (r *run) survey(cfg review.Config) (crds []review.Input, err error) {
	known := configurationNames(cfg)
	for k := range r.selected {
		c, err := r.selectedCase(k)
		if err != nil {
			return nil, err
		}
		if err := r.checkTests(known, c); err != nil {
			return nil, err
		}
		if c.Err != "" {
			continue
		}
		if objects, _, err := caseObjects(c); err == nil {
			for _, in := range objects {
				if resources.IsCRD(in.Object.GroupVersionKind().GroupKind()) {
					crds = append(crds, in)
				}
			}
		}
	}
	return crds, nil
}

// admitted is a selected case in a batch: at position k, with its outcome, or err when its
// request could not be built.
type admitted struct {
	k   int
	c   *Case
	o   *review.Outcome
	err error
}

// batchSize is how many cases are admitted at once: a few times the Session's concurrency, so
// that a file of many cases holds a batch of admitted objects rather than all of them.
const batchSize = 64

// admit admits the selected cases at positions with a session of cfg, each as `admit review`
// admits an object, and calls each with every one of them in order, a batch at a time, as
// soon as it is decided: the case, its outcome (dropped after), or why its request could not
// be built. The cases are read twice: once for what admitting them together reads of them
// (review.Plan), then a batch at a time to admit them.
func (r *run) admit(ctx context.Context, cfg review.Config, crds []review.Input, positions []int, each func(a admitted, schemas fieldSchemas) error) error {
	session, err := review.New(cfg, crds)
	if err != nil {
		return err
	}
	plan := session.Plan()
	for _, k := range positions {
		c, err := r.selectedCase(k)
		if err != nil {
			return err
		}
		if c.Err != "" {
			continue
		}
		if o, err := r.request(session, c); err == nil {
			plan.Take(o)
		}
	}
	var batches *review.Batches
	if plan.Runnable() > 0 {
		if batches, err = plan.Batches(ctx); err != nil {
			return err
		}
		defer batches.Close()
	}
	b := batch{schemas: newFieldSchemas(session.CRDs()), each: each}
	for _, k := range positions {
		c, err := r.selectedCase(k)
		if err != nil {
			return err
		}
		a := admitted{k: k, c: c}
		if c.Err != "" {
			a.err = errors.New(c.Err)
		} else if a.o, a.err = r.request(session, c); a.err == nil {
			b.outcomes = append(b.outcomes, a.o)
		}
		// A batch is counted in cases, not outcomes: cases that cannot be built are held too.
		b.cases = append(b.cases, a)
		if len(b.cases) == batchSize {
			if err := b.decide(ctx, batches); err != nil {
				return err
			}
		}
	}
	return b.decide(ctx, batches)
}

// batch is the cases read since the last batch was decided, and the outcomes among them.
type batch struct {
	cases    []admitted
	outcomes []*review.Outcome
	schemas  fieldSchemas
	each     func(a admitted, schemas fieldSchemas) error
}

// decide admits the batch's outcomes together and gives each case to each, in order.
func (b *batch) decide(ctx context.Context, batches *review.Batches) error {
	if len(b.outcomes) > 0 {
		if err := batches.Admit(ctx, b.outcomes); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for _, a := range b.cases {
		if err := b.each(a, b.schemas); err != nil {
			return err
		}
	}
	b.cases, b.outcomes = b.cases[:0], b.outcomes[:0]
	return nil
}

// request builds case c's request with session: its objects read, written as the case says.
func (r *run) request(session *review.Session, c *Case) (*review.Outcome, error) {
	objects, olds, err := caseObjects(c)
	if err != nil {
		return nil, err
	}
	outcomes, err := session.Requests(objects, olds, r.write(c))
	if err == nil && outcomes[0].Err != nil {
		err = outcomes[0].Err
	}
	if err == nil && outcomes[0].Request == nil {
		// Not reviewed, and no error: what a Session skips (Config.SkipMissingCRDs), which a
		// case's expectations cannot be checked against.
		err = fmt.Errorf("%s: not reviewed: %s", c.ObjectSource, outcomes[0].Skipped)
	}
	if err != nil {
		return nil, err
	}
	return outcomes[0], nil
}

// caseObjects reads a case's object and old object.
func caseObjects(c *Case) (objects, olds []review.Input, err error) {
	if objects, err = review.Parse(c.ObjectSource, c.Object); err == nil && c.Old != nil {
		olds, err = review.Parse(c.OldSource, c.Old)
	}
	return objects, olds, err
}

// decide reports a case of the main run: could not run, or checked.
func (r *run) decide(a admitted, schemas fieldSchemas) error {
	cr := &CaseReport{Name: a.c.Name, Line: a.c.Line}
	if a.err != nil {
		cr.Error = a.err.Error()
	} else {
		r.check(a.c, cr, a.o, schemas)
	}
	if cr.Passed && cr.Error == "" {
		r.control.add(a.k, a.c)
	}
	return r.report.cases.add(cr)
}

// check checks a case's admission against its expectations, and rewrites those of a failing
// case with Options.Update: it passes then, once the file is written (else the file's run
// fails).
func (r *run) check(c *Case, cr *CaseReport, o *review.Outcome, schemas fieldSchemas) {
	cr.Took, cr.DurationSeconds = o.Took, o.Took.Seconds()
	if o.Err != nil {
		cr.Error = o.Err.Error()
		return
	}
	if r.report.Coverage != nil {
		r.report.Coverage.Record(c.Name, o.Result)
	}
	allowed := o.Result.Allowed
	cr.Allowed, cr.Called, cr.Webhooks = &allowed, Called(o.Result), Rows(o.Result)
	cr.Warnings, cr.AuditAnnotations = o.Result.Warnings, o.Result.AuditAnnotations
	if !allowed {
		cr.Status = o.Result.Status
	}
	if err := schemas.vacuous(c.Expect, o.Result.Object); err != nil {
		// The expectation cannot fail: the case is wrong, not the admission.
		cr.Error = err.Error()
		return
	}
	cr.Failures = Check(c.Expect, o.Result)
	cr.Passed = len(cr.Failures) == 0
	if r.opts.Update && !cr.Passed {
		if err := c.Update(o.Result); err != nil {
			cr.Error = err.Error()
			return
		}
		cr.Updated, r.report.Updated = true, true
		cr.Passed, cr.Failures = true, nil
	}
}
