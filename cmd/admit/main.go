// Command admit is a toolkit for Kubernetes admission webhooks: serve them, run them offline
// exactly as kube-apiserver does, lint their configurations and develop them against a cluster.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/admitkit/admit/internal/cli"
	"github.com/admitkit/admit/internal/kubelog"
)

func main() {
	// Kubernetes' own code that admit runs (kube-apiserver's admission plugins) logs through
	// klog, process-wide: its errors reach stderr like admit's, its chatter does not.
	kubelog.Route(os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
