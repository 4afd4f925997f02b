package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time (-X github.com/admitkit/admit/internal/cli.version=v1.2.3);
// otherwise the module version from the build info is used.
var version = ""

// Version reports the admit version: the link-time value, else the main module's version.
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

func newVersionCommand(streams Streams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the admit version",
		Example: "  admit version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(streams.Out, "admit %s %s %s/%s\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
