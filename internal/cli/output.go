package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/admitkit/admit/internal/structured"
)

// Output formats every command that prints results accepts with -o.
const (
	outputText = "text"
	outputJSON = "json"
	outputYAML = "yaml"
)

// addOutputFlag registers -o/--output with shell completion of its values.
func addOutputFlag(cmd *cobra.Command, target *string) {
	cmd.Flags().StringVarP(target, "output", "o", outputText, "output format: text, json or yaml")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{outputText, outputJSON, outputYAML}, cobra.ShellCompDirectiveNoFileComp
	})
}

func checkOutput(format string) error {
	switch format {
	case outputText, outputJSON, outputYAML:
		return nil
	}
	return badInput(fmt.Errorf("unknown output format %q: use text, json or yaml", format))
}

// writeStructured prints v as indented JSON or as YAML.
func writeStructured(w io.Writer, format string, v any) error {
	return structured.Write(w, format, v)
}
