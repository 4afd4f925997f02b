//go:build !e2e

package cifit

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/admitkit/admit/internal/testbin"
)

// admitPath is the admit binary the pre-commit hooks run (make test-binaries builds it into
// $ADMIT_BINARY; a run by hand builds one). The action builds its own, from the checkout.
var admitPath string

func TestMain(m *testing.M) {
	flag.Parse()
	var admit *testbin.Binary
	if flag.Lookup("test.list").Value.String() == "" {
		var err error
		if admit, err = testbin.Admit().Build(); err != nil {
			fmt.Fprintln(os.Stderr, "cifit:", err)
			os.Exit(1)
		}
		admitPath = admit.Path
	}
	code := m.Run()
	if err := admit.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "cifit: removing the admit binary:", err)
	}
	if sourceJob.root != "" {
		if err := os.RemoveAll(sourceJob.root); err != nil {
			fmt.Fprintln(os.Stderr, "cifit: removing the shared job's directory:", err)
		}
	}
	os.Exit(code)
}

// repoRoot is the repository's root: the workspace of the workflows and the repository of the
// commits these tests emulate.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository's root: %v", err)
	}
	return root
}

// pathWithAdmit is this process's environment with a directory holding admit (and nothing else
// of the machine's cache) first on PATH, as a hook's installed environment or a runner's PATH
// after the action has it.
func pathWithAdmit(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(admitPath, filepath.Join(dir, "admit")); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}
