package testsuite

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// RunT runs the test file at path as Go subtests, so that `go test ./...` holds a repository's
// admit test files: each case is a subtest that fails with the case's failures (or the error
// that kept it from running), and a file that cannot run fails t. A server command's $(ADMIT)
// is opts' Admit, else the admit found on PATH.
func RunT(t *testing.T, path string, opts ...Options) {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Admit == "" {
		if found, err := exec.LookPath("admit"); err == nil {
			o.Admit = found
		}
	}
	report := RunFile(context.Background(), path, o)
	defer report.Close()
	if report.Error != "" {
		t.Errorf("%s: %s", path, report.Error)
	}
	err := report.EachCase(func(c *CaseReport) error {
		t.Run(c.Name, func(t *testing.T) {
			if c.Error != "" {
				t.Fatalf("%s:%d: could not run: %s", path, c.Line, c.Error)
			}
			for _, f := range c.Failures {
				t.Errorf("%s:%d: %s", path, c.Line, f)
			}
			if c.Updated {
				t.Logf("%s:%d: expectations rewritten", path, c.Line)
			}
		})
		return nil
	})
	if err != nil {
		t.Errorf("%s: %v", path, err)
	}
	if report.NumCases() == 0 && report.Error == "" {
		t.Errorf("%s: no case ran (the filter selects none of %s)", path, strings.Join(report.Names, ", "))
	}
}
