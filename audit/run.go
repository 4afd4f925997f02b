package audit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/clusterstate"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// Options are an audit's: the two admission configurations compared, what both review with,
// how stored objects are written, and how much is held and listed.
type Options struct {
	// Baseline and Proposal are the admission configurations compared; the proposal is usually
	// Overlay(Baseline, the changes rolled out). BaselineName and ProposalName name them in the
	// report.
	Baseline, Proposal         review.Admission
	BaselineName, ProposalName string
	// Config is what both configurations review with besides their admission configuration:
	// the cluster's state and options, where services are reached. Without Config.Live, the
	// state is the source's (a dump's objects, an audit log's last-known ones). Its Now, when
	// set, is the run's one moment (default: the start, to the second).
	Config review.Config
	// Write is how a dump's or a cluster's objects are written: an UPDATE that changes nothing
	// (the default), or a CREATE. An audit log's writes have their own.
	Write review.Write
	// Namespace, when set, audits that namespace's objects only.
	Namespace string
	// Limit is how many writes with new effects the report lists, the worst first (default
	// 200; the counts are always whole); BatchSize how many writes are held and admitted at a
	// time (default 500).
	Limit, BatchSize int
	// Progress, when set, is told how many writes were read, and of how many when known.
	Progress func(read, total int64)
	// Notes are what the report says first: what the caller found when it gathered the
	// options (ClusterInputs' notes).
	Notes []string
	// Shard, when set, audits that share of the writes only, for Merge to add up with the
	// other shards' reports: each reads the whole source for its state.
	Shard Shard
	// Clock is what the run's time and duration are read from (default time.Now).
	Clock func() time.Time
}

// Run audits the writes of source: each admitted under the baseline and the proposal, a batch
// at a time, and compared. When ctx ends (Ctrl-C), the batch under way finishes and the report
// covers what was audited (Report.Complete false). The error is the input's: a source that does
// not read, configurations a Session refuses.
func Run(ctx context.Context, source Source, opts Options) (*Report, error) {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	start := opts.Clock()
	if opts.Shard.Sharded() {
		if _, err := opts.Shard.checked(); err != nil {
			return nil, err
		}
	}
	if opts.Write.Operation == "" {
		opts.Write.Operation = admissionv1.Update
	}
	if opts.Limit == 0 {
		opts.Limit = 200
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 500
	}
	r, err := open(ctx, source, opts)
	if err != nil {
		return nil, err
	}
	defer r.close()
	err = source.Writes(ctx, r)
	if err == nil {
		err = r.flush()
	}
	switch {
	case errors.Is(err, errInterrupted):
		r.interrupted = true
	case err != nil:
		return nil, err
	}
	report := r.report(source)
	report.DurationSeconds = opts.Clock().Sub(start).Seconds()
	return report, nil
}

// errInterrupted stops reading when the audit's context ends.
var errInterrupted = errors.New("interrupted")

// runner is one audit: the two configurations' batches, what is read, what is found.
type runner struct {
	opts    Options
	ctx     context.Context
	changes []Change
	changed map[Step]string
	// now is the run's one moment.
	now     func() time.Time
	matcher *Matcher
	mapper  *resources.Mapper
	// base and prop admit under the baseline and under the proposal.
	base, prop side
	tally      *tally
	batch      []Write
	// read counts the writes read; total is how many there are, when known (0 otherwise).
	read, total atomic.Int64
	interrupted bool
	notes       []string
}

// side is one configuration's session, and its batches over the run's state.
type side struct {
	session *review.Session
	batches *review.Batches
}

// open prepares a run: the state (as the source shows it, unless the Config has a cluster's),
// the resources the changes can match, and both configurations' sessions and batches.
func open(ctx context.Context, source Source, opts Options) (*runner, error) {
	r := &runner{opts: opts, ctx: ctx, changes: Changes(opts.Baseline, opts.Proposal), changed: map[Step]string{}, notes: append([]string(nil), opts.Notes...)}
	for _, c := range r.changes {
		r.changed[c.Step] = c.What
	}
	cfg := opts.Config
	if cfg.Now == nil {
		// Both configurations admit every object at one moment, so that what they create (uids,
		// creation times, managedFields' times) is the same unless a step changes it.
		moment := opts.Clock().UTC().Truncate(time.Second)
		cfg.Now = func() time.Time { return moment }
	}
	r.now = cfg.Now
	var policies []*unstructured.Unstructured
	for _, p := range append(append([]review.Input(nil), opts.Baseline.Policies...), opts.Proposal.Policies...) {
		policies = append(policies, p.Object)
	}
	scan, err := source.Scan(ctx, ScanOptions{State: len(cfg.Live) == 0, ParamKinds: clusterstate.ParamKinds(policies)})
	if err != nil {
		return nil, err
	}
	cfg.Live = append(append([]*unstructured.Unstructured(nil), cfg.Live...), scan.State...)
	r.total.Store(int64(scan.Writes))
	if r.mapper, err = mapperOf(cfg); err != nil {
		return nil, err
	}
	r.matcher = NewMatcher(r.changes, r.mapper)
	for _, s := range []struct {
		admission review.Admission
		target    *side
		name      string
	}{{opts.Baseline, &r.base, "the baseline"}, {opts.Proposal, &r.prop, "the proposal"}} {
		c := cfg
		s.admission.Use(&c)
		session, err := review.New(c, nil)
		if err != nil {
			r.close()
			return nil, prefixed(s.name, err)
		}
		// Admissions go on when the context ends: the batch under way finishes and is reported.
		batches, err := session.Batches(context.WithoutCancel(ctx), scan.Namespaces)
		if err != nil {
			r.close()
			return nil, prefixed(s.name, err)
		}
		*s.target = side{session: session, batches: batches}
	}
	r.tally = newTally(opts.Limit, r.changes)
	return r, nil
}

// mapperOf knows the built-in resources and those of the CRDs the Config's state has.
func mapperOf(cfg review.Config) (*resources.Mapper, error) {
	var crds resources.CRDs
	crds.Add(cfg.CRDs...)
	for _, obj := range append(append([]*unstructured.Unstructured(nil), cfg.Cluster...), cfg.Live...) {
		if err := crds.AddObject(obj, "CustomResourceDefinition "+obj.GetName()); err != nil {
			return nil, err
		}
	}
	mapper, err := resources.Builtin()
	if err != nil || len(crds.List()) == 0 {
		return mapper, err
	}
	return mapper.WithCRDs(crds.List()...)
}

func prefixed(name string, err error) error { return &prefixedError{name: name, err: err} }

type prefixedError struct {
	name string
	err  error
}

func (e *prefixedError) Error() string { return e.name + ": " + e.err.Error() }
func (e *prefixedError) Unwrap() error { return e.err }

func (r *runner) close() {
	for _, s := range []side{r.base, r.prop} {
		if s.batches != nil {
			s.batches.Close()
		}
	}
}

// The runner is the sources' Sink.

func (r *runner) Matcher() *Matcher { return r.matcher }
func (r *runner) Operation() string { return string(r.opts.Write.Operation) }
func (r *runner) DryRun() bool      { return r.opts.Write.DryRun }
func (r *runner) Namespace() string { return r.opts.Namespace }
func (r *runner) Note(note string)  { r.notes = append(r.notes, note) }
func (r *runner) Shard() Shard      { return r.opts.Shard }
func (r *runner) Unaffected()       { r.tally.totals.Unaffected++; r.read.Add(1); r.progress() }
func (r *runner) progress()         { r.reportProgress() }

func (r *runner) Skip(why Skipped) {
	r.tally.totals.Skipped++
	r.tally.skipped[why]++
	r.read.Add(1)
	r.progress()
}

// KeyOf is the object's key, its resource as the run's mapper knows its kind (the kind itself
// for a kind it does not know).
func (r *runner) KeyOf(obj *unstructured.Unstructured) ObjectKey {
	gvk := obj.GroupVersionKind()
	k := ObjectKey{Group: gvk.Group, Resource: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if res, err := r.mapper.ResourceFor(gvk); err == nil {
		k.Resource = res.GVR.Resource
	}
	return k
}
func (r *runner) reportProgress() {
	if r.opts.Progress != nil {
		r.opts.Progress(r.read.Load(), r.total.Load())
	}
}

// AddStored audits a stored object's next write: an update that changes nothing, or its
// creation again with what the apiserver sets taken away.
func (r *runner) AddStored(in review.Input, position int64) error {
	w := Write{Object: in, Write: r.opts.Write, Position: position}
	if ns := in.Object.GetNamespace(); ns != "" {
		w.Write.Namespace = ns
	}
	if r.opts.Write.Operation == admissionv1.Update {
		w.Old = &review.Input{Source: in.Source, Object: in.Object}
		return r.Add(w)
	}
	obj := in.Object.DeepCopy()
	for _, field := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		unstructured.RemoveNestedField(obj.Object, "metadata", field)
	}
	unstructured.RemoveNestedField(obj.Object, "status")
	w.Object = review.Input{Source: in.Source, Object: obj}
	return r.Add(w)
}

// Add takes one write; a full batch is audited before the next is read.
func (r *runner) Add(w Write) error {
	if r.ctx.Err() != nil {
		return errInterrupted
	}
	if r.opts.Namespace != "" && !r.inNamespace(w) {
		return nil
	}
	r.batch = append(r.batch, w)
	if len(r.batch) >= r.opts.BatchSize {
		return r.flush()
	}
	return nil
}

// inNamespace reports a write of the audited namespace: namespaced, and there.
func (r *runner) inNamespace(w Write) bool {
	if w.Resource != nil {
		return w.Write.Namespace == r.opts.Namespace
	}
	res, err := r.mapper.ResourceFor(w.Object.Object.GroupVersionKind())
	if err != nil {
		return w.Object.Object.GetNamespace() == r.opts.Namespace
	}
	return res.Namespaced && w.Object.Object.GetNamespace() == r.opts.Namespace
}

// affected reports whether a changed step may match the write.
func (r *runner) affected(w Write) bool {
	op := admissionregistrationv1.OperationType(w.Write.Operation)
	if w.Resource != nil {
		return r.matcher.Matches(op, *w.Resource, w.Write.SubResource)
	}
	gvk := w.Object.Object.GroupVersionKind()
	res, err := r.mapper.ResourceFor(gvk)
	if err != nil {
		// An unknown kind: admitted when a changed step may match its group, to say why it
		// cannot be reviewed.
		return r.matcher.MatchesGroup(gvk.Group)
	}
	return r.matcher.Matches(op, res.GVR, w.Write.SubResource)
}

// outcome builds a write's request in session; a problem with it is the outcome's Err.
func outcome(session *review.Session, w Write) *review.Outcome {
	var olds []review.Input
	if w.Old != nil {
		olds = []review.Input{*w.Old}
	}
	outcomes, err := session.Requests([]review.Input{w.Object}, olds, w.Write)
	if err != nil {
		return &review.Outcome{Source: w.Object.Source, Object: w.Object.Object, Err: err}
	}
	return outcomes[0]
}

// flush audits the batch: each write admitted under both configurations at once, compared.
func (r *runner) flush() error {
	writes := r.batch
	r.batch = nil
	var kept []Write
	var base, prop []*review.Outcome
	for _, w := range writes {
		if !r.affected(w) {
			r.tally.totals.Unaffected++
			continue
		}
		kept = append(kept, w)
		base = append(base, outcome(r.base.session, w))
		prop = append(prop, outcome(r.prop.session, w))
	}
	var wg sync.WaitGroup
	var baseErr error
	wg.Go(func() { baseErr = r.base.batches.Admit(context.WithoutCancel(r.ctx), base) })
	err := r.prop.batches.Admit(context.WithoutCancel(r.ctx), prop)
	wg.Wait()
	if err = errors.Join(baseErr, err); err != nil {
		return err
	}
	for i, w := range kept {
		b, p := base[i], prop[i]
		switch {
		case p.Err != nil:
			r.tally.addUnreviewed(w.Object.Source, w.Position, p.Err)
		case b.Err != nil:
			r.tally.addUnreviewed(w.Object.Source, w.Position, b.Err)
		default:
			f := Compare(b, p, r.changed)
			f.Origin = w.Origin
			r.tally.add(f, w.Position, b.Result, p.Result)
		}
	}
	r.read.Add(int64(len(writes)))
	r.reportProgress()
	if r.ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// report is what the run found.
func (r *runner) report(source Source) *Report {
	rep := &Report{APIVersion: reportAPIVersion, Kind: reportKind, Source: source.Name(), Namespace: r.opts.Namespace,
		Baseline: r.opts.BaselineName, Proposal: r.opts.ProposalName, Time: r.now().UTC(), Complete: !r.interrupted}
	if _, replayed := source.(*Log); !replayed {
		rep.Operation = string(r.opts.Write.Operation)
	}
	rep.Changes = append([]Change{}, r.changes...)
	r.tally.totals.Read = int(r.read.Load())
	var shard *Shard
	if r.opts.Shard.Sharded() {
		shard = &r.opts.Shard
	}
	r.tally.fill(rep, r.notes, r.prop.session.Assumed(), shard)
	return rep
}
