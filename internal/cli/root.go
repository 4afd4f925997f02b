package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"

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
			fmt.Fprintln(streams.Err, "admit:", errorText(ee.err))
		}
		return ee.code
	}
	fmt.Fprintln(streams.Err, "admit:", errorText(err))
	// Errors cobra raises itself (unknown flag, wrong arguments) are the user's input.
	return ExitBadInput
}

// yamlLineAgain matches a YAML parser's message after a "file:line: " that already names its
// line: "f.yaml:3: yaml: line 3: ..." or, for the decoder's errors, "f.yaml:5: yaml: unmarshal
// errors:\n  line 5: ..." (then a next "  line N:" when there are several).
var yamlLineAgain = regexp.MustCompile(`:(\d+): yaml: (?:line (\d+): |unmarshal errors:\n +line (\d+): ([^\n]*)(\n +line \d+:)?)`)

// errorText is err's message with each YAML error's line named once: the loaders prefix the
// position, and the parser's own "line N" repeats it.
func errorText(err error) string {
	return yamlLineAgain.ReplaceAllStringFunc(err.Error(), func(m string) string {
		g := yamlLineAgain.FindStringSubmatch(m)
		switch {
		case g[2] != "" && g[2] == g[1]:
			return ":" + g[1] + ": yaml: "
		case g[3] != "" && g[3] == g[1] && g[5] == "":
			return ":" + g[1] + ": yaml: " + g[4]
		}
		return m
	})
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
