package review

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/admitkit/admit/clusterstate"

	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/resources"
)

// Source is a review's input read an object at a time, as often as a Stream needs: a
// kustomize build of a large repository, a cluster's dump. Inputs come from package manifest
// (ManifestSource) or are held already (SliceSource).
type Source interface {
	// Scan calls fn with every object in order, goes on past problems, and reports every one.
	Scan(fn func(Input)) error
	// Each calls fn with every object in order; it stops at the first problem or fn's error.
	Each(fn func(Input) error) error
}

// ManifestSource reads the objects of the inputs package manifest expanded. Standard input is
// read once: spool it first (manifest.Inputs.Spool).
func ManifestSource(in *manifest.Inputs) Source { return manifestSource{in} }

type manifestSource struct{ in *manifest.Inputs }

func (m manifestSource) Scan(fn func(Input)) error {
	return m.in.Scan(func(o manifest.Object) { fn(Input{Source: o.Source.String(), Object: o.Object}) })
}

func (m manifestSource) Each(fn func(Input) error) error {
	return m.in.Each(func(o manifest.Object) error { return fn(Input{Source: o.Source.String(), Object: o.Object}) })
}

// SliceSource is objects held already; each reading gives copies, which a review may change.
func SliceSource(objects []Input) Source { return sliceSource(objects) }

type sliceSource []Input

func (s sliceSource) Scan(fn func(Input)) error {
	for _, in := range s {
		fn(Input{Source: in.Source, Object: in.Object.DeepCopy()})
	}
	return nil
}

func (s sliceSource) Each(fn func(Input) error) error {
	for _, in := range s {
		if err := fn(Input{Source: in.Source, Object: in.Object.DeepCopy()}); err != nil {
			return err
		}
	}
	return nil
}

// Survey is what a first reading of a Source finds, before anything is reviewed: how many
// objects there are, the CustomResourceDefinitions among them (other objects' kinds), the
// objects other objects' admission reads (a Namespace, a ServiceAccount, a LimitRange), the
// admission policies reviewed as objects, and the namespaces the objects name. It holds those
// few objects and counts the rest.
type Survey struct {
	source   Source
	n        int
	policies int
	crds     []Input
	state    []Input
	named    map[string]bool
	// accounts are the ServiceAccounts the objects name: of those among them, the others'
	// admission reads only these and the defaults.
	accounts *clusterstate.AccountUse
}

// SurveyOf reads source once. Its error reports every problem of the input.
func SurveyOf(source Source) (*Survey, error) {
	sv := &Survey{source: source, named: map[string]bool{}, accounts: clusterstate.NewAccountUse(nil)}
	err := source.Scan(func(in Input) {
		sv.n++
		gk := in.Object.GroupVersionKind().GroupKind()
		switch {
		case isCRD(in.Object):
			sv.crds = append(sv.crds, in)
		case IsPolicy(in.Object):
			sv.policies++
		}
		if resources.IsState(gk) {
			sv.state = append(sv.state, in)
		}
		sv.named[in.Object.GetNamespace()] = true
		sv.accounts.See(in.Object)
	})
	if err != nil {
		return nil, err
	}
	// Kept for a Stream that needs no second reading, which then takes the accounts that no
	// object names to be read by none (see NewStream).
	sv.state = slices.DeleteFunc(sv.state, func(in Input) bool { return !sv.accounts.Reads(in.Object) })
	return sv, nil
}

// Len is the number of objects.
func (sv *Survey) Len() int { return sv.n }

// Policies counts the admission policies and bindings among the objects: reviewed as objects,
// they are not applied to the others.
func (sv *Survey) Policies() int { return sv.policies }

// Namespaces lists, sorted, the namespaces the objects name, and namespace for those that name
// none: where a live cluster's service accounts and limits are read for them (a cluster-scoped
// object adds a harmless read).
func (sv *Survey) Namespaces(namespace string) []string {
	seen := map[string]bool{}
	for ns := range sv.named {
		if ns == "" {
			ns = namespace
		}
		seen[ns] = true
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// Stream reviews a Source too large to hold, as Session.Review reviews the same objects held
// at once, with the same outcomes: it reads the source again for the requests (their namespaces
// and the old objects they pair with; skipped when the state is complete and there are no old
// objects), then a last time to admit each object and hand its Outcome on in input order. It
// holds the Survey's few objects, the old objects, and the outcomes under way: a window of a
// few times the concurrency.
type Stream struct {
	s      *Session
	survey *Survey
	olds   []Input
	w      Write
	// plan keeps the objects under review that the others' admission reads, and the namespaces
	// the requests live in, assumed to exist unless the state is complete.
	plan *Plan
	// noneToAdmit says the requests were built and none is to be admitted: then nothing is
	// built to admit them, and nothing is assumed of the cluster, as with Admit.
	noneToAdmit bool
	// admitted says an object was admitted: what was assumed of the cluster is said only then.
	admitted atomic.Bool
}

// NewStream prepares the review of the survey's objects with cfg: UPDATEs of olds, paired by
// kind, namespace and name, and written as w says. Its errors are New's, and the olds' or w's as
// Requests returns them, found before any object is admitted.
func NewStream(cfg Config, survey *Survey, olds []Input, w Write) (*Stream, error) {
	s, err := New(cfg, survey.crds)
	if err != nil {
		return nil, err
	}
	st := &Stream{s: s, survey: survey, olds: olds, w: w, plan: s.Plan()}
	st.plan.accounts.Add(survey.accounts)
	st.plan.surveyed = true
	b, err := s.newBuilder(olds, w)
	if err != nil {
		return nil, err
	}
	if s.cfg.CompleteState && len(olds) == 0 && !st.plan.accounts.ReadsAll() {
		// No namespace is assumed and no object is paired: the requests of the objects the
		// others read (those the survey kept) are all that is needed, and they depend on
		// nothing else.
		for _, in := range survey.state {
			st.plan.Take(b.build(Input{Source: in.Source, Object: in.Object.DeepCopy()}))
		}
		return st, nil
	}
	n := 0
	err = survey.source.Each(func(in Input) error {
		n++
		st.plan.Take(b.build(in))
		return nil
	})
	st.noneToAdmit = st.plan.Runnable() == 0
	if err == nil && n != survey.Len() {
		err = changedError(survey.Len(), n)
	}
	if err != nil {
		return nil, err
	}
	if err := b.unusedOld(); err != nil {
		return nil, err
	}
	return st, nil
}

// changedError says the source gave another number of objects than its survey counted.
func changedError(surveyed, read int) error {
	return fmt.Errorf("the input changed while it was reviewed: %d objects at first, %d when read again", surveyed, read)
}

// Review admits every object, the chain and the dispatcher built once for all of them, the
// Config's concurrency at once, and calls emit with each Outcome in input order as soon as it
// and those before it are decided; emit's error stops the review and is returned, and so does
// ctx's once it is done (no outcome is emitted after it, since admissions cut short by it are no
// reviews). Config.Progress is told how many objects are done, of the survey's. The error is
// emit's, ctx's, the input's (read differently than at the survey) or the configuration's, as
// Admit's.
func (st *Stream) Review(ctx context.Context, emit func(*Outcome) error) error {
	s := st.s
	b, err := s.newBuilder(st.olds, st.w)
	if err != nil {
		return err
	}
	var d admitter
	if !st.noneToAdmit {
		var closeChain func()
		if d, closeChain, err = s.pipeline(ctx, st.plan.reviewed(), st.plan.namespaceList()); err != nil {
			return err
		}
		defer closeChain()
	}
	read := func(yield func(*Outcome) error) error {
		return st.survey.source.Each(func(in Input) error { return yield(b.build(in)) })
	}
	n, admitted, err := s.inOrder(ctx, d, read, emit, func(n int) {
		if s.cfg.Progress != nil {
			s.cfg.Progress(n, st.survey.Len())
		}
	})
	if admitted {
		st.admitted.Store(true)
	}
	switch {
	case err != nil:
		return err
	case n != st.survey.Len():
		return changedError(st.survey.Len(), n)
	}
	return nil
}

// Assumed says, after Review, what the chain assumed of the cluster (Session.Assumed).
func (st *Stream) Assumed() []string {
	if !st.admitted.Load() {
		return nil
	}
	return st.s.Assumed()
}
