package review

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
)

// Batches admits objects a batch at a time with one chain and one dispatcher, built once for
// the whole run: for inputs too large to hold at once (a cluster's objects, a dump, an audit
// log), read and reviewed in batches that are dropped once their outcomes are read.
//
// Session.Admit builds the chain for the objects it is given, and applies those of them that
// other objects' admission reads (a Namespace, a ServiceAccount, a LimitRange) as if written
// together. Batches cannot see the objects to come: the state their chain reads is the Config's
// (Cluster, Live, Policies) and the namespaces named when they are opened, and a batch's own
// objects are not applied for the others. A caller that reads the whole input twice gives what
// the first pass found of that state in Config.Live.
type Batches struct {
	s      *Session
	d      admitter
	close  func()
	closed atomic.Bool
}

// ErrClosed is Batches.Admit's error once the Batches are closed.
var ErrClosed = errors.New("review: the batches are closed")

// Batches opens Batches. namespaces are those the objects to come live in: each exists, with its
// name label and a default ServiceAccount, unless the Config gives it or says its state is
// complete (then a namespace it lacks is the apiserver's 404). Close the Batches when done.
func (s *Session) Batches(ctx context.Context, namespaces []string) (*Batches, error) {
	// The chain is built as Admit builds it, with nothing applied as the batches' own state.
	if s.cfg.CompleteState {
		namespaces = nil
	}
	namespaces = slices.Compact(slices.Sorted(slices.Values(namespaces)))
	d, closeChain, err := s.pipeline(ctx, nil, namespaces)
	if err != nil {
		return nil, err
	}
	return &Batches{s: s, d: d, close: closeChain}, nil
}

// Admit admits every outcome's request with the Session's concurrency; each result stays at its
// outcome, a failed admission's error in its Err. Outcomes without a request are left as they
// are. Config.Progress is not called: the caller knows its batches. Its error is ErrClosed.
func (b *Batches) Admit(ctx context.Context, outcomes []*Outcome) error {
	if b.closed.Load() {
		return ErrClosed
	}
	b.s.admitAll(ctx, b.d, outcomes, nil)
	return nil
}

// Close stops the Batches' chain; Admit refuses to run after it.
func (b *Batches) Close() {
	if b.closed.CompareAndSwap(false, true) {
		b.close()
	}
}

// admitAll admits the outcomes that have a request with d, the Session's concurrency at once,
// each under the Config's timeout; done is called as each ends.
func (s *Session) admitAll(ctx context.Context, d admitter, outcomes []*Outcome, done func()) {
	sem := make(chan struct{}, s.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, o := range outcomes {
		if o.Err != nil || o.Request == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() {
				<-sem
				if done != nil {
					done()
				}
				wg.Done()
			}()
			s.admitOne(ctx, d, o)
		}()
	}
	wg.Wait()
}

// admitOne admits one outcome's request with d under the Config's timeout; its result, or the
// error of a failed admission, stays at the outcome.
func (s *Session) admitOne(ctx context.Context, d admitter, o *Outcome) {
	reviewCtx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	start := s.cfg.Now()
	o.Result, o.Err = d.Admit(reviewCtx, o.Request)
	o.Took = s.cfg.Now().Sub(start)
}
