//go:build !e2e

package cifit

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// docBlocks are the ```yaml blocks of docs/ci.md, decoded.
func docBlocks(t *testing.T) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []map[string]any
	for _, m := range regexp.MustCompile("(?ms)^```yaml\n(.*?)^```$").FindAllStringSubmatch(string(data), -1) {
		var block map[string]any
		if err := yaml.Unmarshal([]byte(m[1]), &block); err != nil {
			t.Fatalf("docs/ci.md: a yaml block does not decode: %v\n%s", err, m[1])
		}
		blocks = append(blocks, block)
	}
	return blocks
}

// docBlock is the block of docs/ci.md that has key at its top.
func docBlock(t *testing.T, key string) map[string]any {
	t.Helper()
	for _, b := range docBlocks(t) {
		if _, ok := b[key]; ok {
			return b
		}
	}
	t.Fatalf("docs/ci.md has no yaml block with %s", key)
	return nil
}

// TestDocsWorkflow runs the workflow of docs/ci.md on this repository: its steps that use
// admit's action, in the shared job; each must pass.
func TestDocsWorkflow(t *testing.T) {
	action, err := LoadAction(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	job := sharedSourceJob(t)
	uses := 0
	for name, j := range docBlock(t, "jobs")["jobs"].(map[string]any) {
		for _, s := range j.(map[string]any)["steps"].([]any) {
			step := s.(map[string]any)
			if ref, _ := step["uses"].(string); !strings.HasPrefix(ref, "admitkit/admit@") {
				continue
			}
			with := map[string]string{}
			for k, v := range step["with"].(map[string]any) {
				with[k] = v.(string)
			}
			uses++
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			run, err := job.Run(ctx, action, with)
			cancel()
			if err != nil {
				t.Fatalf("job %s, step %v: %v", name, step["name"], err)
			}
			if run.Failed || run.Outputs["exit-code"] != "0" {
				t.Errorf("job %s, step %v failed, exit code %q:\n%s", name, step["name"], run.Outputs["exit-code"], run.Summary)
			}
		}
	}
	if uses == 0 {
		t.Fatal("the workflow of docs/ci.md uses no admit action")
	}
}

// TestDocsPreCommitConfig runs the hooks the .pre-commit-config.yaml of docs/ci.md names, with
// its overrides, on a commit of this repository that changes a policy and a configuration;
// each must pass.
func TestDocsPreCommitConfig(t *testing.T) {
	hooks := loadRepoHooks(t)
	env := pathWithAdmit(t)
	changed := []string{"examples/policies/policies.yaml", "examples/testing/webhooks.yaml", "README.md"}
	for _, r := range docBlock(t, "repos")["repos"].([]any) {
		for _, h := range r.(map[string]any)["hooks"].([]any) {
			override := h.(map[string]any)
			hook, ok := hooks[override["id"].(string)]
			if !ok {
				t.Errorf("docs/ci.md names hook %v, which .pre-commit-hooks.yaml has not", override["id"])
				continue
			}
			if args, ok := override["args"].([]any); ok {
				hook.Args = nil
				for _, a := range args {
					hook.Args = append(hook.Args, a.(string))
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			run, err := hook.Run(ctx, repoRoot(t), env, changed)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if run.Skipped || run.ExitCode != 0 {
				t.Errorf("%s: %q: skipped %v, exit code %d:\n%s", hook.ID, run.Command, run.Skipped, run.ExitCode, run.Output)
			}
		}
	}
}

// TestDocsTables: docs/ci.md's tables of inputs, outputs and hooks name what action.yml and
// .pre-commit-hooks.yaml define, no more, no less.
func TestDocsTables(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // a table's first header cell -> its rows' first cells
	var header string
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, "|")
		switch {
		case len(cells) < 3:
			header = ""
		case header == "":
			header = strings.TrimSpace(cells[1])
		case !strings.HasPrefix(strings.TrimSpace(cells[1]), "---"):
			rows[header] = append(rows[header], strings.Trim(strings.TrimSpace(cells[1]), "`"))
		}
	}
	action, err := LoadAction(root)
	if err != nil {
		t.Fatal(err)
	}
	var hookIDs []string
	for id := range loadRepoHooks(t) {
		if !strings.HasSuffix(id, "-system") {
			hookIDs = append(hookIDs, id)
		}
	}
	for header, want := range map[string][]string{"input": keys(action.Inputs), "output": keys(action.Outputs), "hook": hookIDs} {
		got := slices.Sorted(slices.Values(rows[header]))
		if slices.Sort(want); !slices.Equal(got, want) {
			t.Errorf("docs/ci.md's %s table lists %q, want %q", header, got, want)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
