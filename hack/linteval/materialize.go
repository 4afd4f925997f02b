package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds chains of symbolic links, which could otherwise loop.
const maxLinkHops = 8

// materialized is a project's files, written into the cache as they are at its commit.
type materialized struct {
	// Root is the directory the files are written under, at their paths in the repository; it
	// is the working directory of admit lint, so that findings name files as the repository does.
	Root string
	// LintPaths are what admit lint is given, relative to Root: the project's paths, with the
	// suffix a renamed file was given.
	LintPaths []string
	// Renamed maps the path a file was written at to its path in the repository, where they
	// differ.
	Renamed map[string]string
	// Notes say what was left out, e.g. symbolic links whose target is missing.
	Notes []string
}

// repoFile is a file to write: its content is the blob's, or the link target's for a link.
type repoFile struct {
	RepoPath, OutPath string
	Data              []byte
}

// materialize writes p's files at p.Commit from repo into cache/<owner>+<name>/<commit>/. Files
// are rewritten on every run, which costs little (the objects are local once read) and means a
// change to this program's rules never leaves stale files behind.
func materialize(ctx context.Context, repo gitRepo, p Project, cache string) (materialized, error) {
	if err := repo.ensureCommit(ctx, p.Commit); err != nil {
		return materialized{}, err
	}
	m := materialized{Root: filepath.Join(cache, cacheKey(p.Repo), p.Commit), Renamed: map[string]string{}}
	for _, q := range p.Paths {
		files, lintPath, notes, err := collect(ctx, repo, p.Commit, q)
		if err != nil {
			return materialized{}, err
		}
		m.Notes = append(m.Notes, notes...)
		if err := writeFiles(m.Root, q, files); err != nil {
			return materialized{}, err
		}
		for _, f := range files {
			if f.OutPath != f.RepoPath {
				m.Renamed[f.OutPath] = f.RepoPath
			}
		}
		if lintPath != "" {
			m.LintPaths = append(m.LintPaths, lintPath)
		}
	}
	if len(m.LintPaths) == 0 {
		return materialized{}, errors.New("none of the paths has a file to lint")
	}
	return m, nil
}

// collect reads the files at or under q. A file named by q itself is always taken (renamed if
// its name would make the linter skip it: it is there because someone chose it); in a directory
// only the files the linter reads are. lintPath is what to give the linter for q, empty when
// nothing of q could be read.
func collect(ctx context.Context, repo gitRepo, commit, q string) (files []repoFile, lintPath string, notes []string, err error) {
	entries, err := repo.lsTree(ctx, commit, q, true)
	if err != nil {
		return nil, "", nil, fmt.Errorf("listing %s: %w", q, err)
	}
	if len(entries) == 0 {
		return nil, "", nil, fmt.Errorf("%s is not in the repository at %s", q, commit)
	}
	named := len(entries) == 1 && entries[0].Path == q
	for _, e := range entries {
		if e.Type != typeBlob {
			continue // a submodule: its files are in another repository
		}
		out, ok := outputName(e.Path, named)
		if !ok {
			continue
		}
		data, note, err := readEntry(ctx, repo, commit, e)
		if err != nil {
			return nil, "", nil, fmt.Errorf("reading %s: %w", e.Path, err)
		}
		if note != "" {
			notes = append(notes, note)
			continue
		}
		files = append(files, repoFile{RepoPath: e.Path, OutPath: out, Data: data})
	}
	switch {
	case !named:
		lintPath = q
	case len(files) == 1:
		lintPath = files[0].OutPath
	}
	return files, lintPath, notes, nil
}

// outputName says where a file of the repository is written, if it is: the linter reads only
// *.yaml, *.yml and *.json in directories and decides a file's format by its name, so a file
// named on purpose (e.g. a *.golden) gets a ".yaml" suffix, and other files (code, scripts,
// images) found in a directory are left out.
func outputName(repoPath string, named bool) (string, bool) {
	switch strings.ToLower(path.Ext(repoPath)) {
	case ".yaml", ".yml", ".json":
		return repoPath, true
	}
	if named {
		return repoPath + ".yaml", true
	}
	return "", false
}

// readEntry returns a file's content; for a symbolic link, its target's. A link that cannot be
// followed is not an error (the project's own tools would not follow it either): note says why
// it was left out.
func readEntry(ctx context.Context, repo gitRepo, commit string, e treeEntry) (data []byte, note string, err error) {
	if e.Mode != modeSymlink {
		data, err := repo.readBlob(ctx, e.Object)
		return data, "", err
	}
	link := e.Path
	for range maxLinkHops {
		target, err := repo.readBlob(ctx, e.Object)
		if err != nil {
			return nil, "", err
		}
		resolved, err := linkTarget(e.Path, string(target))
		if err != nil {
			return nil, fmt.Sprintf("skipped %s: %v", link, err), nil
		}
		next, found, err := lookup(ctx, repo, commit, resolved)
		switch {
		case err != nil:
			return nil, "", err
		case !found:
			return nil, fmt.Sprintf("skipped %s: symbolic link to %s, which is not in the repository at this commit", link, resolved), nil
		case next.Type != typeBlob:
			return nil, fmt.Sprintf("skipped %s: symbolic link to %s, which is a %s, not a file", link, resolved, next.Type), nil
		case next.Mode != modeSymlink:
			data, err := repo.readBlob(ctx, next.Object)
			return data, "", err
		}
		e = next // a link to a link
	}
	return nil, fmt.Sprintf("skipped %s: more than %d symbolic links in a row", link, maxLinkHops), nil
}

// linkTarget resolves a symbolic link's target against the link's directory. Only targets
// inside the repository can be read from it.
func linkTarget(link, target string) (string, error) {
	target = strings.TrimSpace(target)
	if target == "" || path.IsAbs(target) {
		return "", fmt.Errorf("symbolic link to %q, which is not a relative path", target)
	}
	resolved := path.Clean(path.Join(path.Dir(link), target))
	if resolved == "." || resolved == ".." || strings.HasPrefix(resolved, "../") {
		return "", fmt.Errorf("symbolic link to %s, which is outside the repository", target)
	}
	return resolved, nil
}

// lookup returns the tree entry at exactly p.
func lookup(ctx context.Context, repo gitRepo, commit, p string) (treeEntry, bool, error) {
	entries, err := repo.lsTree(ctx, commit, p, false)
	if err != nil {
		return treeEntry{}, false, fmt.Errorf("looking up %s: %w", p, err)
	}
	for _, e := range entries {
		if e.Path == p {
			return e, true, nil
		}
	}
	return treeEntry{}, false, nil
}

// writeFiles writes the files read for q under root. A directory is emptied first, so that it
// holds what this run read and nothing else.
func writeFiles(root, q string, files []repoFile) error {
	if !(len(files) == 1 && files[0].RepoPath == q) {
		if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(q))); err != nil {
			return fmt.Errorf("clearing %s: %w", q, err)
		}
	}
	for _, f := range files {
		dst := filepath.Join(root, filepath.FromSlash(f.OutPath))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", f.OutPath, err)
		}
		if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", f.OutPath, err)
		}
	}
	return nil
}
