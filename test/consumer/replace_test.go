package consumer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kubernetesPackages are the packages whose module needs the replace directives of
// k8s.io/kubernetes' staging modules: they link k8s.io/kubernetes, or (lint, lint/sarif) go mod
// tidy reads tests of theirs that do.
func kubernetesPackages() []string {
	return []string{
		"github.com/admitkit/admit/review",
		"github.com/admitkit/admit/chain",
		"github.com/admitkit/admit/audit",
		"github.com/admitkit/admit/testsuite",
		"github.com/admitkit/admit/lint",
		"github.com/admitkit/admit/lint/policycheck",
		"github.com/admitkit/admit/lint/sarif",
	}
}

// docReplaceBlock returns the replace block review's package doc shows: the code block of its
// comment that starts with "replace (", as go doc prints it.
func docReplaceBlock(t *testing.T) string {
	t.Helper()
	path := filepath.Join(repoRoot(t), "review", "doc.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, b := range new(comment.Parser).Parse(f.Doc.Text()).Content {
		if code, ok := b.(*comment.Code); ok && strings.HasPrefix(code.Text, "replace (") {
			blocks = append(blocks, code.Text)
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("review/doc.go shows %d replace blocks, want 1", len(blocks))
	}
	return blocks[0]
}

// readmeReplaceBlock returns the README's fenced code block that starts with "replace (".
func readmeReplaceBlock(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []string
	var code *strings.Builder // the fenced block being read, nil outside one
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		switch {
		case strings.HasPrefix(line, "```") && code == nil:
			code = new(strings.Builder)
		case strings.HasPrefix(line, "```"):
			if strings.HasPrefix(code.String(), "replace (") {
				blocks = append(blocks, code.String())
			}
			code = nil
		case code != nil:
			code.WriteString(line + "\n")
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 {
		t.Fatalf("README.md shows %d replace blocks, want 1", len(blocks))
	}
	return blocks[0]
}

// goMod is what go mod edit -json reports of a go.mod.
type goMod struct {
	Require []struct{ Path, Version string }
	Replace []struct {
		Old, New struct{ Path, Version string }
	}
}

// readGoMod returns a go.mod as the go command reads it, so that a file it would refuse fails here.
func readGoMod(t *testing.T, gomod string) goMod {
	t.Helper()
	out := goCommand(t, filepath.Dir(gomod))("mod", "edit", "-json", gomod)
	var parsed goMod
	if err := json.Unmarshal([]byte(out), &parsed); err != nil {
		t.Fatalf("go mod edit -json %s: %v", gomod, err)
	}
	return parsed
}

// replacements returns the replace directives of a go.mod as "old => new version" lines, sorted,
// admit's own left out.
func replacements(t *testing.T, gomod string) []string {
	t.Helper()
	var lines []string
	for _, r := range readGoMod(t, gomod).Replace {
		if r.Old.Path == "github.com/admitkit/admit" {
			continue
		}
		line := fmt.Sprintf("%s %s => %s %s", r.Old.Path, r.Old.Version, r.New.Path, r.New.Version)
		lines = append(lines, strings.Join(strings.Fields(line), " ")) // no double space for an absent version
	}
	slices.Sort(lines)
	return lines
}

// blockReplacements returns the replace directives of a block as a user pastes it into a go.mod.
func blockReplacements(t *testing.T, block string) []string {
	t.Helper()
	gomod := filepath.Join(t.TempDir(), "go.mod")
	if err := os.WriteFile(gomod, []byte("module example.com/block\n\n"+block), 0o600); err != nil {
		t.Fatal(err)
	}
	return replacements(t, gomod)
}

// The block a library user copies is admit's own: a Kubernetes upgrade that changes go.mod's
// replace directives changes the documentation with them, or this fails.
func TestDocumentedReplaceBlockIsGoMods(t *testing.T) {
	want := replacements(t, filepath.Join(repoRoot(t), "go.mod"))
	if len(want) == 0 {
		t.Fatal("go.mod replaces nothing")
	}
	for _, tc := range []struct {
		name  string
		block func(*testing.T) string
	}{
		{"review/doc.go", docReplaceBlock},
		{"README.md", readmeReplaceBlock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(want, blockReplacements(t, tc.block(t))); diff != "" {
				t.Errorf("%s's replace block differs from go.mod's (-go.mod +%s):\n%s", tc.name, tc.name, diff)
			}
		})
	}
}

// A module importing the packages built on k8s.io/kubernetes tidies and builds with the documented
// block and nothing else. Without it, go mod tidy fails fetching k8s.io/kube-aggregator@v0.0.0
// and the other staging modules at the version k8s.io/kubernetes' go.mod requires.
func TestKubernetesPackagesBuildWithDocumentedReplaceBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own, with Kubernetes' admission code")
	}
	block := docReplaceBlock(t)
	dir := writeConsumer(t, kubernetesPackages(), "\n"+block)
	// Built as make's test-binaries builds admit (static, with the release's flags, which make
	// names in ADMIT_RELEASE_GOFLAGS), either reuses the other's compiled Kubernetes packages from
	// the build cache: the Kubernetes code compiles once on a machine, not twice.
	run := goCommand(t, dir, releaseBuildEnv()...)
	run("mod", "tidy")
	if diff := cmp.Diff(blockReplacements(t, block), replacements(t, filepath.Join(dir, "go.mod"))); diff != "" {
		t.Errorf("go mod tidy changed the consumer's replace directives (-documented +tidied):\n%s", diff)
	}
	run("build", "-o", os.DevNull, ".")
}

// A program written from the package documentation alone, in a module of its own with the
// documented block, runs: it reviews objects with a policy and a webhook, streams 10,000 objects
// through one session, and converts a custom resource to another version and back without loss.
func TestAProgramFromThePackageDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module of its own, with Kubernetes' admission code")
	}
	dir := writeConsumer(t, nil, "\n"+docReplaceBlock(t))
	program, err := os.ReadFile(filepath.Join("testdata", "program", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), program, 0o600); err != nil {
		t.Fatal(err)
	}
	run := goCommand(t, dir, releaseBuildEnv()...)
	run("mod", "tidy")
	run("build", "-o", "program", ".")
	cmd := exec.Command(filepath.Join(dir, "program"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the program failed: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	want := `Deployment web: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'replicas' with binding 'replicas' denied request: at most 10 replicas
ConfigMap settings: admitted
ConfigMap secrets: admission webhook "configmaps.example.com" denied the request: a ConfigMap is no place for a password
streamed 10000 ConfigMaps: 10000 admitted
v1: {"apiVersion":"example.com/v1","kind":"Cache","metadata":{"annotations":{"example.com/v2-eviction":"lru"},"labels":{"app":"shop"},"name":"sessions"},"size":"1Gi"}
v2 again: {"apiVersion":"example.com/v2","eviction":"lru","kind":"Cache","metadata":{"labels":{"app":"shop"},"name":"sessions"},"size":"1Gi"}
`
	if diff := cmp.Diff(want, stdout.String()); diff != "" {
		t.Errorf("the program's output (-want +got):\n%s", diff)
	}
	// Kubernetes' admission code logs through klog; a library user's stderr stays clean.
	if stderr.Len() > 0 {
		t.Errorf("the program wrote to stderr:\n%s", stderr.String())
	}
}

// releaseBuildEnv is the environment that builds as make's test-binaries builds admit: static,
// with the release's flags when make names them.
func releaseBuildEnv() []string {
	return []string{"CGO_ENABLED=0", strings.TrimSpace("GOFLAGS=-mod=mod " + os.Getenv("ADMIT_RELEASE_GOFLAGS"))}
}
