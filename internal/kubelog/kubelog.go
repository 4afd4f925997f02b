package kubelog

import (
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
