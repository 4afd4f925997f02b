package review

import (
	"context"
	"sync"

	"github.com/admitkit/admit/engine"
)

// Stream admits objects a batch at a time with one chain and one dispatcher, built once for the
// whole run: for inputs too large to hold at once (a cluster's objects, a dump, an audit log),
// read and reviewed in batches that are dropped once their outcomes are read.
//
// Admit builds the chain for the objects it is given, and applies those of them that other
// objects' admission reads (a Namespace, a ServiceAccount, a LimitRange) as if written together.
// A Stream cannot see the objects to come: the state its chain reads is the Config's (Cluster,
// Live, Policies) and the namespaces named when it is opened, and a batch's own objects are not
// applied for the others. A caller that reads the whole input twice gives what the first pass
// found of that state in Config.Live.
type Stream struct {
	s     *Session
	d     admitter
	close func()
}

// Stream opens a Stream. namespaces are those the streamed objects live in: each exists, with
// its name label and a default ServiceAccount, unless the Config gives it or says its state is
// complete (then a namespace it lacks is the apiserver's 404). Close the Stream when done.
func (s *Session) Stream(ctx context.Context, namespaces []string) (*Stream, error) {
	// The chain is built as Admit builds it, for outcomes that stand for the whole stream: one
	// request per namespace, without an object, so that each namespace exists and nothing is
	// applied as the batch's state.
	standIns := make([]*Outcome, len(namespaces))
	for i, ns := range namespaces {
		standIns[i] = &Outcome{Request: &engine.Request{Namespace: ns}}
	}
	d, closeChain, err := s.dispatcher(ctx, standIns)
	if err != nil {
		return nil, err
	}
	return &Stream{s: s, d: d, close: closeChain}, nil
}

// Admit admits every outcome's request with the Session's concurrency; each result stays at its
// outcome, a failed admission's error in its Err. Outcomes without a request are left as they
// are. Config.Progress is not called: the caller knows its batches.
func (st *Stream) Admit(ctx context.Context, outcomes []*Outcome) {
	sem := make(chan struct{}, st.s.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, o := range outcomes {
		if o.Err != nil || o.Request == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			reviewCtx, cancel := context.WithTimeout(ctx, st.s.cfg.Timeout)
			defer cancel()
			start := st.s.cfg.Now()
			o.Result, o.Err = st.d.Admit(reviewCtx, o.Request)
			o.Took = st.s.cfg.Now().Sub(start)
		}()
	}
	wg.Wait()
}

// Close stops the Stream's chain.
func (st *Stream) Close() { st.close() }
