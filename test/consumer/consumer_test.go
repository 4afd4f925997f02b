package consumer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// libraryPackages are the packages a webhook author or an embedding program imports.
func libraryPackages() []string {
	return []string{
		"github.com/admitkit/admit/webhook",
		"github.com/admitkit/admit/webhook/conversion",
		"github.com/admitkit/admit/webhook/webhooktest",
		"github.com/admitkit/admit/patch",
		"github.com/admitkit/admit/certs",
		"github.com/admitkit/admit/extension",
		"github.com/admitkit/admit/dispatch",
		"github.com/admitkit/admit/engine",
		"github.com/admitkit/admit/clusterstate",
	}
}

// repoRoot is admit's checkout, which a consumer module reaches by a replace directive: admit
// itself is not published.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goCommand runs the go command in dir as a user's module would: GOWORK=off, so that no
// workspace around the checkout joins in, and -mod=mod, so that go.mod and go.sum are written.
// The module and build caches are the machine's, shared with admit's own builds. env is added
// last and wins.
func goCommand(t *testing.T, dir string, env ...string) func(args ...string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
}

// writeConsumer writes a module of its own into a new directory: a go.mod requiring admit,
// replacing it by the checkout, plus extra; a main.go importing packages. It returns the directory.
func writeConsumer(t *testing.T, packages []string, extra string) string {
	t.Helper()
	dir := t.TempDir()
	gomod := "module example.com/consumer\n\ngo 1.26.0\n\nrequire github.com/admitkit/admit v0.0.0\n\n" +
		"replace github.com/admitkit/admit => " + repoRoot(t) + "\n" + extra
	var imports strings.Builder
	for _, p := range packages {
		imports.WriteString("\t_ \"" + p + "\"\n")
	}
	files := map[string]string{
		"go.mod":  gomod,
		"main.go": "package main\n\nimport (\n" + imports.String() + ")\n\nfunc main() {}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLibraryBuildsWithoutReplaceDirectives(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	// Nothing but admit itself is replaced.
	dir := writeConsumer(t, libraryPackages(), "")
	run := goCommand(t, dir)
	run("mod", "tidy")
	gomod := filepath.Join(dir, "go.mod")
	if replaced := replacements(t, gomod); len(replaced) > 0 {
		t.Errorf("the consumer's go.mod needs more than admit itself replaced: %q", replaced)
	}
	for _, r := range readGoMod(t, gomod).Require {
		if r.Path == "k8s.io/kubernetes" {
			t.Errorf("the consumer's go.mod requires %s %s", r.Path, r.Version)
		}
	}
	run("build", "-o", os.DevNull, ".")
	deps := run("list", "-deps", ".")
	for _, dep := range strings.Fields(deps) {
		if strings.HasPrefix(dep, "k8s.io/kubernetes/") || strings.HasPrefix(dep, "github.com/admitkit/admit/chain") {
			t.Errorf("the library links %s", dep)
		}
	}
}
