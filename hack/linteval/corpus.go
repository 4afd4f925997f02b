package main

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Project is one entry of corpus.yaml: the files a project publishes, at a pinned commit.
type Project struct {
	Name string `json:"name"`
	// What says which of the project's manifests these are, for the report.
	What string `json:"what"`
	// Repo is the GitHub repository, "owner/name".
	Repo   string `json:"repo"`
	Commit string `json:"commit"`
	// Paths are files or directories inside the repository; directories are read recursively.
	Paths []string `json:"paths"`
	// Kustomize, when set, is a directory among Paths holding the kustomization the project
	// builds its release from: its output (kustomize build) is linted instead of Paths, as a
	// base patched by its kustomization is not what ships.
	Kustomize string `json:"kustomize,omitempty"`
	// Unseen names the change (an issue, "#29") for which the project was added unseen: its
	// findings were judged before any rule changed for it. The report measures such projects
	// apart from those the rules were tuned on, which flatter the rules.
	Unseen string `json:"unseen,omitempty"`
}

type corpusFile struct {
	Projects []Project `json:"projects"`
}

// loadCorpus reads and checks corpus.yaml. It is strict: a misspelt key would otherwise drop a
// project's paths silently.
func loadCorpus(file string) ([]Project, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the corpus: %w", err)
	}
	var c corpusFile
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", file, err)
	}
	if len(c.Projects) == 0 {
		return nil, fmt.Errorf("%s: no projects", file)
	}
	seen := map[string]bool{}
	for _, p := range c.Projects {
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("%s: project %q: %w", file, p.Name, err)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("%s: project %q is listed twice", file, p.Name)
		}
		seen[p.Name] = true
	}
	return c.Projects, nil
}

func (p Project) validate() error {
	var errs []error
	if p.Name == "" {
		errs = append(errs, errors.New("no name"))
	}
	if !isRepoName(p.Repo) {
		errs = append(errs, fmt.Errorf("repo %q is not owner/name", p.Repo))
	}
	if !isCommit(p.Commit) {
		errs = append(errs, fmt.Errorf("commit %q is not a full lowercase SHA-1", p.Commit))
	}
	if len(p.Paths) == 0 {
		errs = append(errs, errors.New("no paths"))
	}
	if p.Unseen != strings.TrimSpace(p.Unseen) || strings.Contains(p.Unseen, "\n") {
		errs = append(errs, fmt.Errorf("unseen %q: name the change on one line, e.g. \"#29\"", p.Unseen))
	}
	for _, q := range p.Paths {
		if err := checkRepoPath(q); err != nil {
			errs = append(errs, err)
		}
	}
	if p.Kustomize != "" {
		if err := checkRepoPath(p.Kustomize); err != nil {
			errs = append(errs, fmt.Errorf("kustomize: %w", err))
		}
		if !slices.ContainsFunc(p.Paths, func(q string) bool { return p.Kustomize == q || strings.HasPrefix(p.Kustomize, q+"/") }) {
			errs = append(errs, fmt.Errorf("kustomize: %q is not under any of the paths", p.Kustomize))
		}
	}
	return errors.Join(errs...)
}

// checkRepoPath accepts only clean relative paths inside the repository: they become paths in
// the cache, and git's pathspecs would read "." or "a/../b" differently from what was meant.
func checkRepoPath(q string) error {
	if q == "" || q == "." || path.IsAbs(q) || path.Clean(q) != q || q == ".." || strings.HasPrefix(q, "../") {
		return fmt.Errorf("path %q is not a clean relative path inside the repository", q)
	}
	return nil
}

// cacheKey names a repository's directory in the cache and in a mirrors directory.
func cacheKey(repo string) string {
	return strings.Replace(repo, "/", "+", 1)
}

// isRepoName accepts GitHub's "owner/name": the name becomes a URL and a directory name.
func isRepoName(repo string) bool {
	owner, name, ok := strings.Cut(repo, "/")
	return ok && isRepoWord(owner) && isRepoWord(name)
}

func isRepoWord(s string) bool {
	if s == "" || s[0] == '.' || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.-", r)) {
			return false
		}
	}
	return true
}

// isCommit accepts only full SHA-1s: a pinned commit must not move, and an abbreviation can
// become ambiguous as the repository grows.
func isCommit(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
