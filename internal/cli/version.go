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

// Version reports the admit version: the link-time value, else the main module's version, else
// (a binary built from a checkout with go build or go run) "devel" and the commit it was built
// from, "-dirty" when the checkout had changes.
func Version() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionFrom(info)
}

func versionFrom(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "devel"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	v := "devel+" + revision
	if modified == "true" {
		v += "-dirty"
	}
	return v
}

// versionInfo is what `admit version -o json|yaml` prints.
type versionInfo struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func newVersionCommand(streams Streams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the admit version",
		Example: "  admit version\n  admit version -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			v := versionInfo{Version: Version(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
			if output != outputText {
				return writeStructured(streams.Out, output, v)
			}
			_, err := fmt.Fprintf(streams.Out, "admit %s %s %s\n", v.Version, v.GoVersion, v.Platform)
			return err
		},
	}
	addOutputFlag(cmd, &output)
	return cmd
}
