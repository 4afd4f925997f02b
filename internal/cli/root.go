package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes shared by every command. Scripts depend on them.
const (
	ExitOK       = 0 // success; for review: admitted
	ExitRejected = 1 // review: rejected; lint: findings at or above the threshold
	ExitBadInput = 2 // bad flags, unreadable or invalid input
)

// Streams are the standard streams a command reads and writes; tests pass buffers.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Getenv reads the environment (os.Getenv); nil is an empty one.
	Getenv func(string) string
}

// getenv reads the environment the streams were given.
func (s Streams) getenv(name string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(name)
}

// exitError carries an exit code chosen by a command through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput marks err as the user's fault: exit code 2.
func badInput(err error) error { return &exitError{code: ExitBadInput, err: err} }

// Run executes the admit command line and returns the process exit code.
func Run(ctx context.Context, args []string, streams Streams) int {
	root := NewRootCommand(streams)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(streams.Err, "admit:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(streams.Err, "admit:", err)
	// Errors cobra raises itself (unknown flag, wrong arguments) are the user's input.
	return ExitBadInput
}

// NewRootCommand returns the admit command tree writing to streams.
func NewRootCommand(streams Streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "admit",
		Short:         "Write, run, test and lint Kubernetes admission webhooks",
		Long:          "admit serves admission webhooks, runs objects through webhook configurations exactly as\nkube-apiserver does, lints configurations and helps develop webhooks against a real cluster.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.Err)
	root.AddCommand(newVersionCommand(streams), newCertsCommand(streams), newReviewCommand(streams), newAuditCommand(streams), newDevCommand(streams), newServeCommand(streams), newLintCommand(streams), newTestCommand(streams))
	return root
}
