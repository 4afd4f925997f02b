// Command admit is a toolkit for Kubernetes admission webhooks: serve them, run them offline
// exactly as kube-apiserver does, lint their configurations and develop them against a cluster.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/admitkit/admit/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
