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
	}
}

func TestLibraryBuildsWithoutReplaceDirectives(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// admit itself is not published: the consumer reaches it by path. Nothing else is replaced.
	gomod := "module example.com/consumer\n\ngo 1.26.0\n\nrequire github.com/admitkit/admit v0.0.0\n\nreplace github.com/admitkit/admit => " + root + "\n"
	var imports strings.Builder
	for _, p := range libraryPackages() {
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
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "tidy")
	modfile, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(modfile), "replace") != 1 || strings.Contains(string(modfile), "k8s.io/kubernetes") {
		t.Fatalf("the consumer's go.mod needs more than admit itself:\n%s", modfile)
	}
	run("build", "-o", os.DevNull, ".")
	deps := run("list", "-deps", ".")
	for _, dep := range strings.Fields(deps) {
		if strings.HasPrefix(dep, "k8s.io/kubernetes/") || strings.HasPrefix(dep, "github.com/admitkit/admit/chain") {
			t.Errorf("the library links %s", dep)
		}
	}
}
