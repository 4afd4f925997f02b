package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/admitkit/admit/internal/cli"
	"github.com/admitkit/admit/kubelog"
)

func main() {
	// Kubernetes' own code that admit runs (kube-apiserver's admission plugins, its policy
	// plugins, the field manager) logs through klog, process-wide. What its messages mean for an
	// admission is in that admission's result; the messages themselves are Kubernetes' internals
	// and stay off the user's terminal. admit serve routes them into its own log.
	kubelog.Route(io.Discard)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}
