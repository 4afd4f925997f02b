package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitRepo is a git directory read with the git CLI: a bare mirror, or the partial clone this
// program keeps in its cache.
type gitRepo struct {
	dir string
	// fetchable repositories have GitHub as their origin: a commit they lack is fetched, and
	// their missing blobs are fetched on demand by git itself (a partial clone).
	fetchable bool
}

// git runs git on the repository and returns its standard output; a failure carries git's
// standard error, which says what is wrong better than the exit status.
func (g gitRepo) git(ctx context.Context, args ...string) ([]byte, error) {
	return runGit(ctx, append([]string{"--git-dir", g.dir}, args...)...)
}

func runGit(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	// A repository that does not exist (or is private) must fail, not wait for a password; and
	// the corpus's paths are paths, not patterns.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_LITERAL_PATHSPECS=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// isGitDir reports whether dir is a git directory git can read.
func isGitDir(ctx context.Context, dir string) bool {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return false
	}
	_, err := runGit(ctx, "--git-dir", dir, "rev-parse", "--git-dir")
	return err == nil
}

// githubURL is where repositories are cloned from when there is no mirror of them.
const githubURL = "https://github.com/"

// openRepo returns where to read repo's objects from: the mirror in mirrors if there is one,
// else a partial clone of cloneURL kept in cache (made on first use).
func openRepo(ctx context.Context, mirrors, cache, repo, cloneURL string) (gitRepo, error) {
	if mirrors != "" {
		dir := filepath.Join(mirrors, cacheKey(repo), "repo")
		if isGitDir(ctx, dir) {
			return gitRepo{dir: dir}, nil
		}
	}
	dir := filepath.Join(cache, cacheKey(repo), "repo")
	if isGitDir(ctx, dir) {
		return gitRepo{dir: dir, fetchable: true}, nil
	}
	if err := cloneInto(ctx, cloneURL, dir); err != nil {
		return gitRepo{}, err
	}
	return gitRepo{dir: dir, fetchable: true}, nil
}

// cloneInto makes a bare clone without blobs (they are fetched when read): the history's trees
// are small next to its files. It clones beside dir and renames, so that an interrupted clone
// is not taken for a good one by the next run.
func cloneInto(ctx context.Context, url, dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("cloning %s: %w", url, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "clone-")
	if err != nil {
		return fmt.Errorf("cloning %s: %w", url, err)
	}
	defer os.RemoveAll(tmp)
	if _, err := runGit(ctx, "clone", "--quiet", "--bare", "--filter=blob:none", url, tmp); err != nil {
		return fmt.Errorf("cloning %s: %w", url, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("cloning %s: %w", url, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("cloning %s: %w", url, err)
	}
	return nil
}

// ensureCommit makes sure the repository has commit, fetching it when it can: a pinned commit
// may be on no branch any more, or newer than the clone.
func (g gitRepo) ensureCommit(ctx context.Context, commit string) error {
	if _, err := g.git(ctx, "cat-file", "-e", commit+"^{commit}"); err == nil {
		return nil
	}
	if !g.fetchable {
		return fmt.Errorf("commit %s is not in %s", commit, g.dir)
	}
	if _, err := g.git(ctx, "fetch", "--quiet", "origin", commit); err != nil {
		return fmt.Errorf("fetching commit %s: %w", commit, err)
	}
	return nil
}

// treeEntry is one line of git ls-tree.
type treeEntry struct {
	Mode, Type, Object, Path string
}

const (
	modeSymlink = "120000"
	typeBlob    = "blob"
	typeTree    = "tree"
)

// lsTree lists the entries at or under p at commit; with recursive it descends into the
// directories and lists only their files (and symbolic links).
func (g gitRepo) lsTree(ctx context.Context, commit, p string, recursive bool) ([]treeEntry, error) {
	args := []string{"ls-tree", "-z"}
	if recursive {
		args = append(args, "-r")
	}
	out, err := g.git(ctx, append(args, commit, "--", p)...)
	if err != nil {
		return nil, err
	}
	var entries []treeEntry
	for _, line := range strings.Split(string(out), "\x00") {
		if line == "" {
			continue
		}
		e, err := parseTreeLine(line)
		if err != nil {
			return nil, err
		}
		// Keep exactly p and what is under it, whatever git's pathspec rules match.
		if e.Path == p || strings.HasPrefix(e.Path, p+"/") {
			entries = append(entries, e)
		}
	}
	return entries, nil
}

// parseTreeLine parses "<mode> SP <type> SP <object> TAB <path>".
func parseTreeLine(line string) (treeEntry, error) {
	meta, p, ok := strings.Cut(line, "\t")
	fields := strings.Fields(meta)
	if !ok || len(fields) != 3 {
		return treeEntry{}, fmt.Errorf("unexpected git ls-tree line %q", line)
	}
	return treeEntry{Mode: fields[0], Type: fields[1], Object: fields[2], Path: p}, nil
}

// readBlob returns a blob's content. When it cannot, it says whether the blob is absent, the
// usual reason, rather than leave the reader with git's "unable to read".
func (g gitRepo) readBlob(ctx context.Context, object string) ([]byte, error) {
	data, err := g.git(ctx, "cat-file", "blob", object)
	if err == nil {
		return data, nil
	}
	if !g.fetchable {
		if _, existsErr := g.git(ctx, "cat-file", "-e", object); existsErr != nil {
			return nil, fmt.Errorf("blob %s is absent from %s (a mirror may leave out large files)", object, g.dir)
		}
	}
	return nil, fmt.Errorf("blob %s: %w", object, err)
}
