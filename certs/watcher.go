package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// WatcherOptions tunes a Watcher. The zero value is ready to use.
type WatcherOptions struct {
	// PollInterval is how often the files are re-read even without a file event;
	// DefaultPollInterval when zero.
	PollInterval time.Duration
	// Logger receives reload successes and failures; slog.Default() when nil.
	Logger *slog.Logger
	// OnReload, if set, is called with the new leaf certificate after every successful
	// load, the first one included, for example to update an expiry metric. It runs on
	// the watcher's goroutine and must not block.
	OnReload func(leaf *x509.Certificate)
}

// Watcher serves a certificate and private key read from files and reloads them when the
// files change, so certificates can be rotated without restarting the server. Plug
// GetCertificate into tls.Config.
//
// A replacement that cannot be loaded (a half-written file, a certificate and key that do
// not match) is logged and ignored: the previous certificate keeps being served.
type Watcher struct {
	certFile, keyFile string
	opts              WatcherOptions

	startMu sync.Mutex // guards started
	started bool
	current atomic.Pointer[tls.Certificate]
}

// NewWatcher returns a Watcher for the given PEM files. Nothing is read until Start.
func NewWatcher(certFile, keyFile string, opts WatcherOptions) *Watcher {
	return &Watcher{certFile: certFile, keyFile: keyFile, opts: opts}
}

// Start loads the certificate and key, returning an error if they are missing or invalid,
// then keeps watching them in the background until ctx is done.
func (w *Watcher) Start(ctx context.Context) error {
	w.startMu.Lock()
	defer w.startMu.Unlock()
	if w.started {
		return errors.New("certificate watcher already started")
	}
	r := &fileReloader{
		paths:    []string{w.certFile, w.keyFile},
		interval: pollIntervalOrDefault(w.opts.PollInterval),
		logger:   loggerOrDefault(w.opts.Logger).With("cert", w.certFile, "key", w.keyFile),
		load:     w.load,
	}
	if err := r.start(ctx); err != nil {
		return fmt.Errorf("loading certificate %s and key %s: %w", w.certFile, w.keyFile, err)
	}
	w.started = true
	return nil
}

func (w *Watcher) load(contents [][]byte) error {
	pair, err := tls.X509KeyPair(contents[0], contents[1])
	if err != nil {
		return err
	}
	w.current.Store(&pair)
	loggerOrDefault(w.opts.Logger).Info("loaded serving certificate",
		"cert", w.certFile, "subject", pair.Leaf.Subject.String(),
		"serial", pair.Leaf.SerialNumber.Text(16), "notAfter", pair.Leaf.NotAfter)
	if w.opts.OnReload != nil {
		w.opts.OnReload(pair.Leaf)
	}
	return nil
}

// GetCertificate returns the current certificate; it has the signature of
// tls.Config.GetCertificate.
func (w *Watcher) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	cert := w.current.Load()
	if cert == nil {
		return nil, errors.New("no serving certificate loaded: the certificate watcher was not started")
	}
	return cert, nil
}

// Leaf returns the current certificate, parsed, or nil before Start. Callers must not
// modify it.
func (w *Watcher) Leaf() *x509.Certificate {
	cert := w.current.Load()
	if cert == nil {
		return nil
	}
	return cert.Leaf
}
