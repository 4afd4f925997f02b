//go:build !e2e

package cifit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func loadRepoHooks(t *testing.T) map[string]Hook {
	t.Helper()
	hooks, err := LoadHooks(filepath.Join(repoRoot(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Hook{}
	for _, h := range hooks {
		byID[h.ID] = h
	}
	return byID
}

// TestHookDefinitions: each hook comes as "golang" (admit built from this repository by
// pre-commit's go install ./..., which installs cmd/admit as admit, the entry's program) and as
// "-system" (the admit on PATH), alike but for their language and description.
func TestHookDefinitions(t *testing.T) {
	hooks := loadRepoHooks(t)
	var ids []string
	for id := range hooks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if want := []string{"admit-lint", "admit-lint-system", "admit-test", "admit-test-system"}; !slices.Equal(ids, want) {
		t.Fatalf("hooks %q, want %q", ids, want)
	}
	for _, id := range []string{"admit-lint", "admit-test"} {
		golang, system := hooks[id], hooks[id+"-system"]
		if golang.Language != "golang" || system.Language != "system" {
			t.Errorf("%s: languages %s and %s, want golang and system", id, golang.Language, system.Language)
		}
		golang.Language, system.Language, golang.ID, system.ID = "", "", "", ""
		golang.Description, system.Description = "", ""
		if !equalHooks(golang, system) {
			t.Errorf("%s and %s differ beyond their language: %+v, %+v", id, id+"-system", golang, system)
		}
		if program := strings.Fields(golang.Entry)[0]; program != "admit" {
			t.Errorf("%s runs %s, not admit", id, program)
		}
	}
	cmd := exec.Command("go", "list", "-f", "{{.Name}} {{.Target}}", "./cmd/admit")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	name, target, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if name != "main" || strings.TrimSuffix(filepath.Base(target), ".exe") != "admit" {
		t.Errorf("go install ./cmd/admit installs %q (package %s), not admit", target, name)
	}
}

func equalHooks(a, b Hook) bool {
	return a.Name == b.Name && a.Entry == b.Entry && a.Files == b.Files && a.Exclude == b.Exclude &&
		slices.Equal(a.Types, b.Types) && slices.Equal(a.TypesOr, b.TypesOr) && slices.Equal(a.ExcludeTypes, b.ExcludeTypes) &&
		slices.Equal(a.Args, b.Args) && (a.PassFilenames == nil) == (b.PassFilenames == nil) &&
		(a.PassFilenames == nil || *a.PassFilenames == *b.PassFilenames) && a.RequireSerial == b.RequireSerial &&
		a.AlwaysRun == b.AlwaysRun && a.MinimumPreCommitVersion == b.MinimumPreCommitVersion
}

// TestHookFileSelection applies each hook's files, exclude and types to paths as pre-commit
// lists a commit's: admit-lint takes the files whose name says webhook, admission or policy
// (not network policies), admit-test any YAML or JSON file.
func TestHookFileSelection(t *testing.T) {
	lint := []string{"examples/testing/webhooks.yaml", "deploy/base/webhooks.yaml", "examples/policies/policies.yaml",
		"examples/policies/broken/policies.yaml", "config/admission-policy.yml", "manifests/webhook.json", "policy.yaml"}
	otherYAML := []string{"examples/policies/web.yaml", "examples/policies/admit-test.yaml", "k8s/networkpolicy.yaml",
		"deploy/base/kustomization.yaml", "config/crd.yml", "resources/kube-1.36.json", "action.yml"}
	others := []string{"README.md", "docs/policies.md", "webhook/server.go", "go.mod", "Makefile", "webhooks"}
	want := map[string][]string{"admit-lint": lint, "admit-test": slices.Concat(lint, otherYAML)}
	all := slices.Concat(lint, otherYAML, others)
	slices.Sort(all)
	for id, h := range loadRepoHooks(t) {
		got, err := h.Select(all)
		if err != nil {
			t.Fatal(err)
		}
		w := slices.Clone(want[strings.TrimSuffix(id, "-system")])
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s selects %q, want %q", id, got, w)
		}
	}
}

// hookCase is a commit's changed files and what a hook does with them.
type hookCase struct {
	name     string
	hook     string // admit-lint or admit-test; both languages run
	changed  []string
	skipped  bool
	exitCode int
	output   string
}

// hookCases run in a repository holding copies of examples/policies, examples/testing's and
// examples/audit's webhooks, and (for the failing test) a suite whose expectation is wrong.
var hookCases = []hookCase{
	{name: "lint passes", hook: "admit-lint", exitCode: 0, output: "no findings",
		changed: []string{"examples/policies/policies.yaml", "examples/testing/webhooks.yaml", "examples/audit/webhook-safe.yaml", "examples/policies/web.yaml", "README.md"}},
	{name: "lint finds", hook: "admit-lint", exitCode: 1, output: "F05 policy-type-check",
		changed: []string{"examples/policies/broken/policies.yaml", "examples/policies/broken/pod.yaml"}},
	{name: "lint has nothing to lint", hook: "admit-lint", skipped: true, changed: []string{"examples/policies/web.yaml", "README.md"}},
	{name: "test passes", hook: "admit-test", exitCode: 0, output: "3 cases in 1 file: 3 passed, 0 failed",
		changed: []string{"examples/policies/policies.yaml"}},
	{name: "test fails", hook: "admit-test", exitCode: 1, output: "admitted, want rejected",
		changed: []string{"examples/policies/params.yaml", "test/cifit/testdata/failing.admit-test.yaml"}},
	{name: "test has no YAML to run for", hook: "admit-test", skipped: true, changed: []string{"README.md"}},
}

// userRepo makes a repository of the files hookCases use, copied from this one at the same
// paths, with the failing suite only if failing.
func userRepo(t *testing.T, failing bool) string {
	t.Helper()
	root, dir := repoRoot(t), t.TempDir()
	files := []string{"README.md", "examples/testing/webhooks.yaml", "examples/audit/webhook-safe.yaml",
		"examples/policies/broken/policies.yaml", "examples/policies/broken/pod.yaml"}
	for _, name := range []string{"admit-test.yaml", "policies.yaml", "params.yaml", "web.yaml", "batch.yaml"} {
		files = append(files, "examples/policies/"+name)
	}
	if failing {
		files = append(files, "test/cifit/testdata/failing.admit-test.yaml")
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err == nil {
			err = os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHooksRun runs each hook as pre-commit runs it on a commit's changed files: in the
// repository's root, its entry and args with the files it selects (or none, pass_filenames:
// false), the admit of the hook's environment first on PATH.
func TestHooksRun(t *testing.T) {
	hooks := loadRepoHooks(t)
	env := pathWithAdmit(t)
	for _, tc := range hookCases {
		dir := userRepo(t, strings.Contains(tc.name, "fails"))
		for _, id := range []string{tc.hook, tc.hook + "-system"} {
			t.Run(tc.name+"/"+id, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				run, err := hooks[id].Run(ctx, dir, env, tc.changed)
				if err != nil {
					t.Fatal(err)
				}
				if run.Skipped != tc.skipped || run.ExitCode != tc.exitCode || !strings.Contains(run.Output, tc.output) {
					t.Errorf("%q: skipped %v, exit code %d; want skipped %v, exit code %d, output with %q:\n%s",
						run.Command, run.Skipped, run.ExitCode, tc.skipped, tc.exitCode, tc.output, run.Output)
				}
			})
		}
	}
}

// preCommit finds pre-commit, installing it as hack/ensure-tools.sh does, or skips: the hooks'
// own entry and filters ran above, without it.
func preCommit(t *testing.T) string {
	t.Helper()
	if path, err := exec.LookPath("pre-commit"); err == nil {
		return path
	}
	out, err := exec.Command("bash", filepath.Join(repoRoot(t), "hack", "ensure-tools.sh"), "pre-commit").CombinedOutput()
	if err != nil {
		t.Skipf("pre-commit is not installed and cannot be (hack/ensure-tools.sh pre-commit: %v):\n%s", err, out)
	}
	path, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Skipf("hack/ensure-tools.sh pre-commit ran, yet no pre-commit is on PATH: %v", err)
	}
	return path
}

// gitIn runs git in dir.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	git := exec.Command("git", append([]string{"-c", "user.name=admit", "-c", "user.email=admit@example.com"}, args...)...)
	git.Dir = dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", args, err, out)
	}
}

// TestHooksUnderPreCommit runs the -system hooks with pre-commit itself, on the commits of
// hookCases: they must pass, fail or be skipped as they do when TestHooksRun runs them. The
// hooks' repository is one commit of this checkout's .pre-commit-hooks.yaml, which is all a
// system hook reads of it (pre-commit try-repo on the checkout would first copy its uncommitted
// changes into a clone of its history, for seconds per run).
func TestHooksUnderPreCommit(t *testing.T) {
	program := preCommit(t)
	hooks := t.TempDir()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), ".pre-commit-hooks.yaml"))
	if err == nil {
		err = os.WriteFile(filepath.Join(hooks, ".pre-commit-hooks.yaml"), data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, hooks, "init", "-q")
	gitIn(t, hooks, "add", ".pre-commit-hooks.yaml")
	gitIn(t, hooks, "commit", "-q", "-m", "hooks")
	env := append(pathWithAdmit(t), "PRE_COMMIT_HOME="+t.TempDir(), "PRE_COMMIT_COLOR=never")
	for _, tc := range hookCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := userRepo(t, strings.Contains(tc.name, "fails"))
			gitIn(t, dir, "init", "-q")
			gitIn(t, dir, "add", "-A")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, program, append([]string{"try-repo", hooks, tc.hook + "-system", "--verbose", "--files"}, tc.changed...)...)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			code := 0
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			verdict := "Passed"
			switch {
			case tc.skipped:
				verdict = "(no files to check)Skipped"
			case tc.exitCode != 0:
				verdict = "Failed"
			}
			if code != min(tc.exitCode, 1) || !strings.Contains(string(out), verdict) || !strings.Contains(string(out), tc.output) {
				t.Errorf("pre-commit try-repo exited %d, want %d, %q and %q:\n%s", code, min(tc.exitCode, 1), verdict, tc.output, out)
			}
		})
	}
}
