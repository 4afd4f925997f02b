package review

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// windowOf is how many outcomes may be under way or waiting to be emitted at once, for each
// admission the Config runs at once: enough that one slow admission does not stall the others.
const windowOf = 4

// errStopped ends a reading the review no longer needs.
var errStopped = errors.New("review: stopped")

// pending is an outcome under way, done when its admission is.
type pending struct {
	o    *Outcome
	done chan struct{}
}

// inOrder admits the outcomes next yields with d — the Config's concurrency at once, a window of
// a few times that under way — and calls emit with each in the order yielded, as soon as it and
// those before it are decided: what is held at once is the window, whatever the number of
// outcomes. An outcome without a request, or with an error, is emitted as it is. emit's error
// stops it and is returned, and so does ctx's once it is done (no outcome is emitted after it:
// admissions it cut short are no answers); next's error is returned once the outcomes before it
// are emitted. progress is told how many are emitted after each. n counts the outcomes emitted;
// admitted says whether any was admitted.
func (s *Session) inOrder(ctx context.Context, d admitter, next func(yield func(*Outcome) error) error, emit func(*Outcome) error, progress func(n int)) (n int, admitted bool, err error) {
	window := make(chan *pending, windowOf*s.cfg.Concurrency)
	stop := make(chan struct{})
	var admissions sync.WaitGroup
	readErr := make(chan error, 1)
	go func() {
		defer close(window)
		readErr <- s.startAll(ctx, d, next, window, stop, &admissions, &admitted)
	}()
	var stopErr error
	for p := range window {
		<-p.done
		if stopErr != nil {
			continue
		}
		if stopErr = ctx.Err(); stopErr == nil {
			n++
			stopErr = emit(p.o)
		}
		if stopErr != nil {
			close(stop)
			continue
		}
		progress(n)
	}
	admissions.Wait()
	err = <-readErr
	if stopErr != nil {
		return n, admitted, stopErr
	}
	return n, admitted, err
}

// startAll starts the admission of each outcome next yields, the Config's concurrency at once,
// and hands them to window in order; it stops when stop is closed.
func (s *Session) startAll(ctx context.Context, d admitter, next func(yield func(*Outcome) error) error, window chan<- *pending, stop <-chan struct{}, admissions *sync.WaitGroup, admitted *bool) error {
	sem := make(chan struct{}, s.cfg.Concurrency)
	return next(func(o *Outcome) error {
		select {
		case <-stop:
			return errStopped
		default:
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p := &pending{o: o, done: make(chan struct{})}
		switch {
		case o.Err != nil || o.Request == nil:
			close(p.done)
		case d == nil:
			return fmt.Errorf("the input changed while it was reviewed: %s is to be admitted, and was not when first read", o.Source)
		default:
			select {
			case sem <- struct{}{}:
			case <-stop:
				return errStopped
			}
			admissions.Add(1)
			*admitted = true
			go func() {
				defer func() { <-sem; close(p.done); admissions.Done() }()
				s.admitOne(ctx, d, o)
			}()
		}
		select {
		case window <- p:
			return nil
		case <-stop:
			<-p.done
			return errStopped
		}
	})
}
