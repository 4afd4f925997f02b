package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/admitkit/admit/config"
)

// lintStdinName is how standard input is named in findings unless --stdin-filename names it.
const lintStdinName = "<stdin>"

// lintInput is one argument of admit lint and what was read from it.
type lintInput struct {
	arg string
	// files are the files read: the argument itself, or a directory's manifests.
	files []string
	dir   bool
	// skippedSubdirs is set for a directory with subdirectories that were not read (no -R).
	skippedSubdirs bool
	set            *config.Set
}

// objectCount counts what an input held.
func objectCount(set *config.Set) int {
	if set == nil {
		return 0
	}
	return len(set.Mutating) + len(set.Validating) + len(set.Others)
}

// kustomizationNames are the file names kustomize reads a kustomization from, in its order.
func kustomizationNames() []string {
	return []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}
}

func isKustomizationName(name string) bool {
	for _, k := range kustomizationNames() {
		if name == k {
			return true
		}
	}
	return false
}

// isLintManifest says whether a file found in a directory is read: as config.Load reads
// directories, but a kustomization, which describes a build and holds no object, is left out.
func isLintManifest(name string) bool {
	if isKustomizationName(name) {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// readInputs reads every argument, going on after one that does not read so that one bad file
// does not hide the findings of the others: the set of what read, the inputs, and loadErr about
// the rest. An argument that reads but holds no object is an error too: an empty pipe is most
// often a command before it that failed, and linting nothing must not pass. err is for what
// stops the run.
func (o *lintOptions) readInputs(stdin io.Reader, paths []string) (set *config.Set, inputs []*lintInput, loadErr, err error) {
	set = &config.Set{}
	var loadErrs []error
	stdinSeen := false
	for _, path := range paths {
		in := &lintInput{arg: path}
		inputs = append(inputs, in)
		var pathErr error
		if path == "-" {
			if stdinSeen {
				return nil, nil, nil, errors.New(`"-" is given twice: standard input is read once`)
			}
			stdinSeen = true
			data, readErr := io.ReadAll(stdin)
			if readErr != nil {
				return nil, nil, nil, fmt.Errorf("reading standard input: %w", readErr)
			}
			name := lintStdinName
			if o.stdinFilename != "" {
				name = o.stdinFilename
			}
			in.set, pathErr = config.Parse(name, data)
			if pathErr == nil && objectCount(in.set) == 0 {
				pathErr = errors.New("standard input holds no objects: nothing to lint (is the command before the pipe failing?)")
			}
		} else {
			if pathErr = in.expand(o.recursive); pathErr == nil {
				in.set, pathErr = config.Load(config.Options{KeepGoing: true}, in.files...)
				if pathErr == nil && objectCount(in.set) == 0 {
					pathErr = in.emptyError()
				}
			}
		}
		loadErrs = append(loadErrs, pathErr)
		if in.set != nil {
			set.Append(in.set)
		}
	}
	return set, inputs, errors.Join(loadErrs...), nil
}

// expand lists the files an argument stands for: itself, or the manifests of a directory
// (and of its subdirectories with -R), in lexical order.
func (in *lintInput) expand(recursive bool) error {
	info, err := os.Stat(in.arg)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		in.files = []string{in.arg}
		return nil
	}
	in.dir = true
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir() && recursive:
				if err := walk(path); err != nil {
					return err
				}
			case e.IsDir():
				in.skippedSubdirs = true
			case isLintManifest(e.Name()):
				in.files = append(in.files, path)
			}
		}
		return nil
	}
	return walk(in.arg)
}

// emptyError says why an argument that read gave nothing to lint.
func (in *lintInput) emptyError() error {
	switch {
	case !in.dir:
		return fmt.Errorf("%s holds no objects: nothing to lint", in.arg)
	case len(in.files) > 0:
		return fmt.Errorf("%s: its files hold no objects: nothing to lint", in.arg)
	case in.skippedSubdirs:
		return fmt.Errorf("%s: no *.yaml, *.yml or *.json files in it; its subdirectories are read with -R", in.arg)
	}
	return fmt.Errorf("%s: no *.yaml, *.yml or *.json files in it: nothing to lint", in.arg)
}

// flattenErrors lists the errors joined in err (errors.Join nests: per argument, per file, per
// problem), each of which is one report line.
func flattenErrors(err error) []error {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, flattenErrors(e)...)
		}
		return out
	}
	return []error{err}
}
