package kubelog

import (
	"context"
	"io"
	"log/slog"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// Route sends klog's errors to w as slog text records, and drops the rest: klog hands a logger
// its warnings as informational records, indistinguishable from the plugins' chatter. klog is
// process-wide: call Route once, from main or TestMain, before Kubernetes' code runs.
func Route(w io.Writer) {
	klog.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// RouteTo sends klog's errors to logger, as records of its own: a server's log holds what
// Kubernetes' client code reports (a lost leader election, a failed watch) among its own.
func RouteTo(logger *slog.Logger) {
	klog.SetLogger(logr.FromSlogHandler(levelAtLeast{logger.Handler(), slog.LevelWarn}))
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
