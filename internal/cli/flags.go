package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// onceString is a string flag that refuses to be given twice. pflag keeps the last of repeated
// string flags silently; for a flag that names one file (a kubeconfig, a CA), taking the last
// would drop the first file without a word, so a repetition is an error instead.
type onceString struct {
	target *string
	set    bool
}

func (s *onceString) String() string { return *s.target }
func (s *onceString) Type() string   { return "string" }

func (s *onceString) Set(value string) error {
	if s.set {
		return fmt.Errorf("given twice (%q, then %q): it takes one value", *s.target, value)
	}
	*s.target, s.set = value, true
	return nil
}

// onceStringVar defines a string flag that may be given once.
func onceStringVar(f *pflag.FlagSet, target *string, name, value, usage string) {
	*target = value
	f.Var(&onceString{target: target}, name, usage)
}

// fixedCompletion completes a flag's value from a fixed list.
func fixedCompletion(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// refuseBothNames fails when a flag was given under two of its names: pflag would keep one
// name's values and drop the other's.
func refuseBothNames(f *pflag.FlagSet, names ...string) error {
	var given []string
	for _, name := range names {
		if f.Changed(name) {
			given = append(given, "--"+name)
		}
	}
	if len(given) > 1 {
		return badInput(fmt.Errorf("%s are one flag: give one of them", strings.Join(given, " and ")))
	}
	return nil
}

// terminalOf returns w when it is a terminal, for progress lines that rewrite themselves; nil
// otherwise (a pipe or a file gets no progress).
func terminalOf(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return w
}
