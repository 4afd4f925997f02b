package kubelog

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// Route sends klog's errors to w as slog text records, and drops the rest: klog hands a logger
// its warnings as informational records, indistinguishable from the plugins' chatter. klog is
// process-wide: call Route once, from main or TestMain, before Kubernetes' code runs; RouteTo
// changes the destination later.
func Route(w io.Writer) {
	s := &switchable{target: &atomic.Pointer[target]{}}
	s.target.Store(&target{levelAtLeast{slog.NewTextHandler(w, nil), slog.LevelWarn}})
	// Contextual: klog.Background gives this logger back, so RouteTo can find its handler.
	klog.SetLoggerWithOptions(logr.FromSlogHandler(s), klog.ContextualLogger(true))
}

// RouteTo sends klog's errors to logger, as records of its own: a server's log holds what
// Kubernetes' client code reports (a lost leader election, a failed watch) among its own. After
// Route, the destination changes atomically, safe while Kubernetes' code logs; without it, klog's
// logger is replaced.
func RouteTo(logger *slog.Logger) {
	t := &target{levelAtLeast{logger.Handler(), slog.LevelWarn}}
	if s, ok := logr.ToSlogHandler(klog.Background()).(*switchable); ok {
		s.target.Store(t)
		return
	}
	s := &switchable{target: &atomic.Pointer[target]{}}
	s.target.Store(t)
	klog.SetLoggerWithOptions(logr.FromSlogHandler(s), klog.ContextualLogger(true))
}

// Quiet discards klog's output unless Route or RouteTo already routes it: what the library's
// users get by default, since package chain calls it as it builds Kubernetes' admission code,
// whose informational lines (informers syncing, quota evaluators starting and stopping) would
// otherwise reach the program's stderr on every review. A program that wants Kubernetes'
// errors calls Route or RouteTo before its first review; one that sets klog's logger itself
// routes it with RouteTo instead, as Quiet replaces any logger not set here. klog is
// process-wide and its logger may not change while other goroutines log, so Quiet changes it
// once, the first time.
func Quiet() {
	quietOnce.Do(func() {
		if _, routed := logr.ToSlogHandler(klog.Background()).(*switchable); !routed {
			Route(io.Discard)
		}
	})
}

// quietOnce makes Quiet's check and change one step for concurrent first reviews. It is
// process-wide state because klog's logger is: there is no instance to hang it on.
var quietOnce sync.Once

// target is where a switchable handler sends records.
type target struct{ handler slog.Handler }

// switchable is a slog.Handler whose destination can change while it is in use: klog's logger
// itself may not be replaced while other goroutines log.
type switchable struct {
	target *atomic.Pointer[target]
	// scope is what WithAttrs and WithGroup added, applied to the destination of each record.
	scope []func(slog.Handler) slog.Handler
}

func (s *switchable) current() slog.Handler {
	h := s.target.Load().handler
	for _, apply := range s.scope {
		h = apply(h)
	}
	return h
}

func (s *switchable) Enabled(ctx context.Context, l slog.Level) bool {
	return s.current().Enabled(ctx, l)
}

func (s *switchable) Handle(ctx context.Context, r slog.Record) error {
	return s.current().Handle(ctx, r)
}

func (s *switchable) WithAttrs(attrs []slog.Attr) slog.Handler {
	return s.with(func(h slog.Handler) slog.Handler { return h.WithAttrs(attrs) })
}

func (s *switchable) WithGroup(name string) slog.Handler {
	return s.with(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

func (s *switchable) with(apply func(slog.Handler) slog.Handler) slog.Handler {
	scope := append(append([]func(slog.Handler) slog.Handler(nil), s.scope...), apply)
	return &switchable{target: s.target, scope: scope}
}

// levelAtLeast passes on the records of h at or above level.
type levelAtLeast struct {
	slog.Handler
	level slog.Level
}

func (h levelAtLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h levelAtLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return levelAtLeast{h.Handler.WithAttrs(attrs), h.level}
}

func (h levelAtLeast) WithGroup(name string) slog.Handler {
	return levelAtLeast{h.Handler.WithGroup(name), h.level}
}
