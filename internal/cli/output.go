package cli

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/admitkit/admit/internal/structured"
	"github.com/admitkit/admit/internal/words"
)

// Output formats every command that prints results accepts with -o, and markdown, which those
// whose results a pull request's comment shows accept too.
const (
	outputText     = "text"
	outputJSON     = "json"
	outputYAML     = "yaml"
	outputMarkdown = "markdown"
)

// addOutputFlag registers -o/--output with shell completion of its values: text, json, yaml and
// the command's others.
func addOutputFlag(cmd *cobra.Command, target *string, others ...string) {
	formats := append([]string{outputText, outputJSON, outputYAML}, others...)
	cmd.Flags().StringVarP(target, "output", "o", outputText, "output format: "+words.List(formats, "or"))
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return formats, cobra.ShellCompDirectiveNoFileComp
	})
}

// checkOutput refuses a format that is not text, json, yaml or one of the command's others.
func checkOutput(format string, others ...string) error {
	formats := append([]string{outputText, outputJSON, outputYAML}, others...)
	if slices.Contains(formats, format) {
		return nil
	}
	return badInput(fmt.Errorf("unknown output format %q: use %s", format, words.List(formats, "or")))
}

// writeStructured prints v as indented JSON or as YAML.
func writeStructured(w io.Writer, format string, v any) error {
	return structured.Write(w, format, v)
}
