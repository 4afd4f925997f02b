package cifit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Hook is a hook of a .pre-commit-hooks.yaml: the command pre-commit runs, on which files.
type Hook struct {
	ID                      string   `yaml:"id"`
	Name                    string   `yaml:"name"`
	Description             string   `yaml:"description"`
	Entry                   string   `yaml:"entry"`
	Language                string   `yaml:"language"`
	Files                   string   `yaml:"files"`
	Exclude                 string   `yaml:"exclude"`
	Types                   []string `yaml:"types"`
	TypesOr                 []string `yaml:"types_or"`
	ExcludeTypes            []string `yaml:"exclude_types"`
	Args                    []string `yaml:"args"`
	PassFilenames           *bool    `yaml:"pass_filenames"`
	RequireSerial           bool     `yaml:"require_serial"`
	AlwaysRun               bool     `yaml:"always_run"`
	MinimumPreCommitVersion string   `yaml:"minimum_pre_commit_version"`
}

// LoadHooks reads a .pre-commit-hooks.yaml strictly, and checks that each hook's patterns are
// portable (see PortablePattern) and its types known (see fileTags).
func LoadHooks(file string) ([]Hook, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var hooks []Hook
	if err := dec.Decode(&hooks); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, h := range hooks {
		if err := h.check(); err != nil {
			return nil, fmt.Errorf("%s: hook %s: %w", file, h.ID, err)
		}
	}
	return hooks, nil
}

func (h Hook) check() error {
	if h.ID == "" || h.Name == "" || h.Entry == "" || h.Language == "" {
		return errors.New("id, name, entry and language are required")
	}
	for _, p := range []string{h.Files, h.Exclude} {
		if err := PortablePattern(p); err != nil {
			return err
		}
	}
	for _, t := range slices.Concat(h.Types, h.TypesOr, h.ExcludeTypes) {
		if !slices.Contains(knownTags, t) {
			return fmt.Errorf("type %q: the types known here are %s", t, strings.Join(knownTags, ", "))
		}
	}
	return nil
}

// portable is the part of regular expression syntax that Python's re, which pre-commit matches
// files and exclude with (re.search), and Go's regexp read alike on file paths: literal
// characters, ".", bracket expressions of literal characters and ranges, groups without "?",
// alternation, the quantifiers ? * +, and the anchors ^ and $ ($ also matches before a final
// newline in Python, which a path has not). Escapes are limited to punctuation: \d, \w, \s and
// \b mean Unicode classes in Python and ASCII ones in Go.
var portable = regexp.MustCompile(`^(\\[-./_+()\[\]|?*^$]|\[\^?([A-Za-z0-9_./-]|\\[-./\]])+\]|[A-Za-z0-9_/-]|[.()|?*+^$])*$`)

// PortablePattern reports a pattern outside what Python's re and Go's regexp read alike.
func PortablePattern(p string) error {
	if !portable.MatchString(p) || strings.Contains(p, "(?") {
		return fmt.Errorf("pattern %q uses syntax that Python's re and Go's regexp may read differently", p)
	}
	if _, err := regexp.Compile(p); err != nil {
		return fmt.Errorf("pattern %q: %w", p, err)
	}
	return nil
}

// knownTags are the file types (pre-commit's identify tags) that fileTags tells.
var knownTags = []string{"file", "text", "yaml", "json"}

// fileTags are the identify tags of a file, told by its name as identify tells these: every file
// is "file"; .yaml and .yml are "yaml", .json "json", both "text".
func fileTags(name string) []string {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml":
		return []string{"file", "text", "yaml"}
	case ".json":
		return []string{"file", "text", "json"}
	}
	return []string{"file"}
}

// Select returns the files among paths (relative to the repository's root, slash-separated, as
// pre-commit lists them) that the hook runs on: files matches (re.search), exclude does not, the
// file has every tag of types (default: file), one of types_or if any, none of exclude_types.
func (h Hook) Select(paths []string) ([]string, error) {
	files, err := regexp.Compile(h.Files)
	if err != nil {
		return nil, err
	}
	exclude := h.Exclude
	if exclude == "" {
		exclude = "^$"
	}
	excluded, err := regexp.Compile(exclude)
	if err != nil {
		return nil, err
	}
	types := h.Types
	if len(types) == 0 {
		types = []string{"file"}
	}
	var selected []string
	for _, p := range paths {
		tags := fileTags(p)
		has := func(t string) bool { return slices.Contains(tags, t) }
		if !files.MatchString(p) || excluded.MatchString(p) ||
			!allOf(types, has) || (len(h.TypesOr) > 0 && !slices.ContainsFunc(h.TypesOr, has)) ||
			slices.ContainsFunc(h.ExcludeTypes, has) {
			continue
		}
		selected = append(selected, p)
	}
	return selected, nil
}

func allOf(list []string, f func(string) bool) bool {
	for _, s := range list {
		if !f(s) {
			return false
		}
	}
	return true
}

// Command is the command pre-commit runs for these selected files: the entry's words, the
// hook's args, then the files unless pass_filenames is false. An entry that would need shell
// quoting is refused: pre-commit splits it with shlex, this with white space.
func (h Hook) Command(files []string) ([]string, error) {
	if strings.ContainsAny(h.Entry, `'"\`) {
		return nil, fmt.Errorf("entry %q: quoting is not split here", h.Entry)
	}
	cmd := slices.Concat(strings.Fields(h.Entry), h.Args)
	if h.PassFilenames == nil || *h.PassFilenames {
		cmd = append(cmd, files...)
	}
	return cmd, nil
}

// HookRun is what running a hook did.
type HookRun struct {
	// Skipped says that no file was selected (and the hook does not always run), so pre-commit
	// did not run it.
	Skipped  bool
	Command  []string
	ExitCode int
	Output   string
}

// Run runs the hook as pre-commit does for a commit that changes paths: in the repository's
// root dir, on the files it selects, with env as the environment (its PATH finds the entry's
// program, as the hook's installed environment does). All files are given to one command, as
// require_serial and a short list do.
func (h Hook) Run(ctx context.Context, dir string, env []string, paths []string) (*HookRun, error) {
	files, err := h.Select(paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 && !h.AlwaysRun {
		return &HookRun{Skipped: true}, nil
	}
	args, err := h.Command(files)
	if err != nil {
		return nil, err
	}
	program, err := lookPath(args[0], env)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, program, args[1:]...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	run := &HookRun{Command: args, Output: string(out)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		run.ExitCode = exit.ExitCode()
	case err != nil:
		return nil, err
	}
	return run, nil
}

// lookPath finds a program on the PATH of env (its last PATH, as exec takes the last of
// duplicates) rather than of this process.
func lookPath(program string, env []string) (string, error) {
	var dirs string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			dirs = v
		}
	}
	for _, dir := range filepath.SplitList(dirs) {
		candidate := filepath.Join(dir, program)
		if info, err := os.Stat(candidate); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("%s is not on PATH", program)
}
