// Command admit is a toolkit for Kubernetes admission webhooks: serve them, run them offline
// exactly as kube-apiserver does, lint their configurations and develop them against a cluster.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/admitkit/admit/internal/cli"
)

func main() {
	// Kubernetes' own code that admit runs (kube-apiserver's admission plugins) logs through
	// klog, process-wide: its warnings and errors reach stderr like admit's, its chatter does not.
	klog.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
