package certs

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// CAPoolWatcherOptions tunes a CAPoolWatcher. The zero value is ready to use.
type CAPoolWatcherOptions struct {
	// PollInterval is how often the file is re-read even without a file event;
	// DefaultPollInterval when zero.
	PollInterval time.Duration
	// Logger receives reload successes and failures; slog.Default() when nil.
	Logger *slog.Logger
	// OnReload, if set, is called with the certificates of every successfully loaded
	// bundle, the first one included. It runs on the watcher's goroutine and must not block.
	OnReload func(cas []*x509.Certificate)
}

// CAPoolWatcher keeps a pool of CA certificates loaded from a PEM bundle file up to date,
// for servers that verify client certificates against a CA that rotates. A tls.Config
// picks up the current pool through GetConfigForClient (see the example).
//
// A replacement bundle that cannot be loaded is logged and ignored; so is one that
// contains anything but certificates.
type CAPoolWatcher struct {
	file string
	opts CAPoolWatcherOptions

	startMu sync.Mutex // guards started
	started bool
	pool    atomic.Pointer[x509.CertPool]
}

// NewCAPoolWatcher returns a CAPoolWatcher for the given PEM bundle. Nothing is read until
// Start.
func NewCAPoolWatcher(file string, opts CAPoolWatcherOptions) *CAPoolWatcher {
	return &CAPoolWatcher{file: file, opts: opts}
}

// Start loads the bundle, returning an error if it is missing or invalid, then keeps
// watching it in the background until ctx is done.
func (w *CAPoolWatcher) Start(ctx context.Context) error {
	w.startMu.Lock()
	defer w.startMu.Unlock()
	if w.started {
		return errors.New("CA bundle watcher already started")
	}
	r := &fileReloader{
		paths:    []string{w.file},
		interval: pollIntervalOrDefault(w.opts.PollInterval),
		logger:   loggerOrDefault(w.opts.Logger).With("caFile", w.file),
		load:     w.load,
	}
	if err := r.start(ctx); err != nil {
		return fmt.Errorf("loading CA bundle %s: %w", w.file, err)
	}
	w.started = true
	return nil
}

func (w *CAPoolWatcher) load(contents [][]byte) error {
	cas, err := ParseCertificatesPEM(contents[0])
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	subjects := make([]string, len(cas))
	for i, ca := range cas {
		pool.AddCert(ca)
		subjects[i] = ca.Subject.String()
	}
	w.pool.Store(pool)
	loggerOrDefault(w.opts.Logger).Info("loaded CA bundle", "caFile", w.file, "subjects", subjects)
	if w.opts.OnReload != nil {
		w.opts.OnReload(cas)
	}
	return nil
}

// Pool returns the current CA pool, or nil before Start. The pool is never modified once
// returned; a reload installs a new one.
func (w *CAPoolWatcher) Pool() *x509.CertPool {
	return w.pool.Load()
}
