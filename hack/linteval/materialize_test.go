package main

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitT runs git for a test, isolated from the user's and the system's configuration.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newMirror commits files and symbolic links (path: target) to a repository and returns a
// mirrors directory holding a bare clone of it as test/repo, and the commit.
func newMirror(t *testing.T, files, links map[string]string) (mirrors, commit string) {
	t.Helper()
	work := t.TempDir()
	gitT(t, work, "init", "--quiet")
	for p, content := range files {
		writeTestFile(t, filepath.Join(work, p), content)
	}
	for p, target := range links {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(work, p)); err != nil {
			t.Fatal(err)
		}
	}
	gitT(t, work, "add", "-A")
	gitT(t, work, "commit", "--quiet", "-m", "files")
	commit = gitT(t, work, "rev-parse", "HEAD")
	mirrors = t.TempDir()
	gitT(t, work, "clone", "--quiet", "--bare", work, filepath.Join(mirrors, "test+repo", "repo"))
	return mirrors, commit
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readTree returns the files under root, by slash-separated path.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestMaterialize(t *testing.T) {
	ctx := context.Background()
	mirrors, commit := newMirror(t, map[string]string{
		"a/real.yaml":  "kind: A\n",
		"b/data.json":  "{}\n",
		"b/main.go":    "package main\n",
		"b/notes.txt":  "not YAML\n",
		"b/x.golden":   "kind: X\n",
		"c/out.golden": "kind: C\n",
		"other.yaml":   "kind: Other\n",
	}, map[string]string{
		"b/link.yaml":     "../a/real.yaml",
		"b/sub/deep.yml":  "../../a/real.yaml",
		"b/chain.yaml":    "link.yaml",
		"b/dangling.yaml": "../missing.yaml",
		"b/outside.yaml":  "../../outside.yaml",
		"b/absolute.yaml": "/etc/hostname",
		"b/dir.yaml":      "../a",
		"top.golden":      "a/real.yaml",
	})
	cache := t.TempDir()
	p := Project{Name: "test", Repo: "test/repo", Commit: commit, Paths: []string{"b", "c/out.golden", "top.golden"}}
	root := filepath.Join(cache, "test+repo", commit)
	// Left by an earlier run: a directory is rewritten from scratch.
	writeTestFile(t, filepath.Join(root, "b", "stale.yaml"), "kind: Stale\n")

	repo, err := openRepo(ctx, mirrors, cache, p.Repo, "file:///nonexistent")
	if err != nil {
		t.Fatal(err)
	}
	if repo.fetchable {
		t.Fatal("the mirror was not used")
	}
	m, err := materialize(ctx, repo, p, cache)
	if err != nil {
		t.Fatal(err)
	}

	wantFiles := map[string]string{
		"b/data.json":       "{}\n",
		"b/link.yaml":       "kind: A\n",
		"b/sub/deep.yml":    "kind: A\n",
		"b/chain.yaml":      "kind: A\n",
		"c/out.golden.yaml": "kind: C\n",
		"top.golden.yaml":   "kind: A\n",
	}
	if diff := cmp.Diff(wantFiles, readTree(t, root)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	want := materialized{
		Root:      root,
		LintPaths: []string{"b", "c/out.golden.yaml", "top.golden.yaml"},
		Renamed:   map[string]string{"c/out.golden.yaml": "c/out.golden", "top.golden.yaml": "top.golden"},
		Notes: []string{
			`skipped b/absolute.yaml: symbolic link to "/etc/hostname", which is not a relative path`,
			"skipped b/dangling.yaml: symbolic link to missing.yaml, which is not in the repository at this commit",
			"skipped b/dir.yaml: symbolic link to a, which is a tree, not a file",
			"skipped b/outside.yaml: symbolic link to ../../outside.yaml, which is outside the repository",
		},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("materialized (-want +got):\n%s", diff)
	}
}

func TestMaterializeErrors(t *testing.T) {
	ctx := context.Background()
	mirrors, commit := newMirror(t, map[string]string{"big.yaml": "kind: Big\n", "small.yaml": "kind: Small\n"}, nil)
	repo, err := openRepo(ctx, mirrors, t.TempDir(), "test/repo", "file:///nonexistent")
	if err != nil {
		t.Fatal(err)
	}
	// A mirror may leave out large blobs: take one out of the clone's loose objects.
	blob := gitT(t, repo.dir, "--git-dir", repo.dir, "rev-parse", commit+":big.yaml")
	if err := os.Remove(filepath.Join(repo.dir, "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		p       Project
		wantErr string
	}{{
		name:    "absent blob",
		p:       Project{Repo: "test/repo", Commit: commit, Paths: []string{"small.yaml", "big.yaml"}},
		wantErr: "reading big.yaml: blob " + blob + " is absent",
	}, {
		name:    "path not in the repository",
		p:       Project{Repo: "test/repo", Commit: commit, Paths: []string{"nope"}},
		wantErr: "nope is not in the repository at " + commit,
	}, {
		name:    "commit not in the mirror",
		p:       Project{Repo: "test/repo", Commit: strings.Repeat("0", 40), Paths: []string{"small.yaml"}},
		wantErr: "commit " + strings.Repeat("0", 40) + " is not in",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := materialize(ctx, repo, tt.p, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestLinkTarget(t *testing.T) {
	tests := []struct {
		link, target, want, wantErr string
	}{
		{link: "config/core/a.yaml", target: "b.yaml", want: "config/core/b.yaml"},
		{link: "config/core/a.yaml", target: "./sub/b.yaml", want: "config/core/sub/b.yaml"},
		{link: "config/core/a.yaml", target: "../../vendor/x/image.yaml", want: "vendor/x/image.yaml"},
		{link: "config/core/sub/a.yaml", target: "../../../vendor/x.yaml", want: "vendor/x.yaml"},
		{link: "a.yaml", target: "b.yaml\n", want: "b.yaml"},
		{link: "config/a.yaml", target: "../../x.yaml", wantErr: "outside the repository"},
		{link: "config/a.yaml", target: "..", wantErr: "outside the repository"},
		{link: "config/a.yaml", target: "../", wantErr: "outside the repository"},
		{link: "config/a.yaml", target: "/etc/passwd", wantErr: "not a relative path"},
		{link: "config/a.yaml", target: "", wantErr: "not a relative path"},
	}
	for _, tt := range tests {
		got, err := linkTarget(tt.link, tt.target)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("linkTarget(%q, %q) = %q, %v; want an error containing %q", tt.link, tt.target, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("linkTarget(%q, %q) = %q, %v; want %q", tt.link, tt.target, got, err, tt.want)
		}
	}
}

func TestOutputName(t *testing.T) {
	tests := []struct {
		path   string
		named  bool
		want   string
		wantOK bool
	}{
		{path: "deploy/a.yaml", want: "deploy/a.yaml", wantOK: true},
		{path: "deploy/a.YML", want: "deploy/a.YML", wantOK: true},
		{path: "deploy/a.json", named: true, want: "deploy/a.json", wantOK: true},
		{path: "cli/install_default.golden", named: true, want: "cli/install_default.golden.yaml", wantOK: true},
		{path: "pilot.golden.yaml", named: true, want: "pilot.golden.yaml", wantOK: true},
		{path: "deploy/README", named: true, want: "deploy/README.yaml", wantOK: true},
		{path: "deploy/x.golden"},
		{path: "deploy/main.go"},
		{path: "deploy/logo.png"},
		{path: "deploy/Makefile"},
	}
	for _, tt := range tests {
		got, ok := outputName(tt.path, tt.named)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("outputName(%q, %v) = %q, %v; want %q, %v", tt.path, tt.named, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestClone covers the repositories without a mirror: a partial clone is made in the cache, a
// commit newer than the clone is fetched, and blobs are fetched as they are read.
func TestClone(t *testing.T) {
	ctx := context.Background()
	source := t.TempDir()
	gitT(t, source, "init", "--quiet")
	// What GitHub allows: partial clones, and fetching a commit by its ID.
	gitT(t, source, "config", "uploadpack.allowFilter", "true")
	gitT(t, source, "config", "uploadpack.allowAnySHA1InWant", "true")
	writeTestFile(t, filepath.Join(source, "deploy", "a.yaml"), "kind: A1\n")
	gitT(t, source, "add", "-A")
	gitT(t, source, "commit", "--quiet", "-m", "one")

	cache := t.TempDir()
	// A mirrors directory without this repository: the clone is used.
	repo, err := openRepo(ctx, t.TempDir(), cache, "test/repo", "file://"+source)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "test+repo", "repo"); repo.dir != want || !repo.fetchable {
		t.Fatalf("repository %+v, want the clone %s", repo, want)
	}
	if filter := gitT(t, repo.dir, "--git-dir", repo.dir, "config", "remote.origin.partialclonefilter"); filter != "blob:none" {
		t.Errorf("the clone's filter is %q, want blob:none", filter)
	}

	writeTestFile(t, filepath.Join(source, "deploy", "a.yaml"), "kind: A2\n")
	gitT(t, source, "commit", "--quiet", "-am", "two")
	commit := gitT(t, source, "rev-parse", "HEAD")
	p := Project{Repo: "test/repo", Commit: commit, Paths: []string{"deploy"}}
	m, err := materialize(ctx, repo, p, cache)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"deploy/a.yaml": "kind: A2\n"}, readTree(t, m.Root)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	// The next run reuses the clone.
	again, err := openRepo(ctx, "", cache, "test/repo", "file:///nonexistent")
	if err != nil || again != repo {
		t.Errorf("second openRepo = %+v, %v; want %+v", again, err, repo)
	}
}
