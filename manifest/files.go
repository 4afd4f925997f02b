package manifest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// StdinName is how standard input is named in sources and messages.
const StdinName = "<stdin>"

// Options say how paths are read.
type Options struct {
	// Recursive reads the subdirectories of directories too, as kubectl's -R.
	Recursive bool
	// Stdin is what the path "-" reads; StdinName (default "<stdin>") names it.
	Stdin     io.Reader
	StdinName string
	// Command is what to pipe a kustomize build into, in the advice given for a kustomize
	// base's files: "admit review -f -" by default.
	Command string
}

// Inputs are the paths given, each with the files it stands for, in order.
type Inputs struct {
	Options Options
	List    []Input
	// stdinRead notes that standard input was read: it cannot be read again.
	stdinRead bool
}

// Input is one path given and the files it stands for.
type Input struct {
	// Path is the path as given, "-" for standard input.
	Path  string
	Files []File
	// Dir says the path is a directory; SkippedSubdirs that it has subdirectories that were not
	// read (Options.Recursive not set).
	Dir, SkippedSubdirs bool
}

// File is one file of an input.
type File struct {
	// Path is where the file is, "-" for standard input; Name how sources name it.
	Path, Name string
}

// Expand lists the files each path stands for, in order: a file given is read whatever its name;
// a directory's *.yaml, *.yml and *.json files are read in lexical order, its subdirectories'
// at their place in that order with Options.Recursive (kubectl's -R); "-" is standard input. A
// kustomization file (kustomization.yaml, kustomization.yml, Kustomization) describes a build,
// not objects: a directory's is not read, and one given by name is refused with the command
// that builds it. Every path that does not exist is reported.
func Expand(paths []string, opts Options) (*Inputs, error) {
	if opts.StdinName == "" {
		opts.StdinName = StdinName
	}
	if opts.Command == "" {
		opts.Command = "admit review -f -"
	}
	in := &Inputs{Options: opts}
	var errs []error
	stdin := 0
	for _, path := range paths {
		if path == "-" {
			if stdin++; stdin == 2 {
				errs = append(errs, errors.New(`"-" (standard input) is given more than once: one input can read it`))
			}
			in.List = append(in.List, Input{Path: path, Files: []File{{Path: "-", Name: opts.StdinName}}})
			continue
		}
		input, err := expandPath(path, opts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		in.List = append(in.List, input)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return in, nil
}

// expandPath lists the files of one path that is not standard input.
func expandPath(path string, opts Options) (Input, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Input{}, err
	}
	if !info.IsDir() {
		if IsKustomization(filepath.Base(path)) {
			return Input{}, fmt.Errorf("%s is a kustomization, not the objects it builds: give its build: kustomize build %s | %s", path, filepath.Dir(path), opts.Command)
		}
		return Input{Path: path, Files: []File{{Path: path, Name: path}}}, nil
	}
	input := Input{Path: path, Dir: true}
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir() && opts.Recursive:
				if err := walk(p); err != nil {
					return err
				}
			case e.IsDir():
				input.SkippedSubdirs = true
			case IsManifestName(e.Name()):
				input.Files = append(input.Files, File{Path: p, Name: p})
			}
		}
		return nil
	}
	return input, walk(path)
}

// IsManifestName says whether a file found in a directory is read: *.yaml, *.yml and *.json,
// kustomizations aside.
func IsManifestName(name string) bool {
	if IsKustomization(name) {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// kustomizationNames are the file names kustomize reads a kustomization from, in its order.
func kustomizationNames() []string {
	return []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}
}

// IsKustomization says whether a file name is a kustomization's.
func IsKustomization(name string) bool {
	for _, k := range kustomizationNames() {
		if name == k {
			return true
		}
	}
	return false
}

// Empty says why an input that was read gave no object: an input that holds nothing is most
// often a mistake — the wrong folder, a command before a pipe that failed — and reading nothing
// must not pass for reading something.
func (in Input) Empty(stdinName string) error {
	switch {
	case in.Path == "-":
		return fmt.Errorf("%s holds no objects (did the command before the pipe fail?)", stdinName)
	case !in.Dir:
		return fmt.Errorf("%s holds no objects", in.Path)
	case len(in.Files) > 0:
		return fmt.Errorf("%s: its files hold no objects", in.Path)
	case in.SkippedSubdirs:
		return fmt.Errorf("%s: no *.yaml, *.yml or *.json files in it; its subdirectories are read with -R", in.Path)
	}
	return fmt.Errorf("%s: no *.yaml, *.yml or *.json files in it", in.Path)
}

// Open opens a file of the inputs; standard input can be opened once.
func (in *Inputs) Open(f File) (io.ReadCloser, error) {
	if f.Path != "-" {
		return os.Open(f.Path)
	}
	if in.stdinRead || in.Options.Stdin == nil {
		return nil, errors.New("standard input is read once; it cannot be read again")
	}
	in.stdinRead = true
	return io.NopCloser(in.Options.Stdin), nil
}

// Spool copies standard input, and any file that is not a regular one (a pipe, as
// "-f <(kustomize build)" gives), to temporary files, so that the inputs can be read more than
// once (a first pass for the state, a second for the objects). remove deletes the copies.
func (in *Inputs) Spool() (remove func(), err error) {
	var spooled []string
	remove = func() {
		for _, name := range spooled {
			os.Remove(name)
		}
	}
	for i := range in.List {
		for j, f := range in.List[i].Files {
			if f.Path != "-" {
				if info, err := os.Stat(f.Path); err != nil || info.Mode().IsRegular() {
					continue // a file read again as it is; one that cannot be read says so then
				}
			}
			name, err := in.spoolFile(f)
			if name != "" {
				spooled = append(spooled, name)
			}
			if err != nil {
				return remove, err
			}
			in.List[i].Files[j].Path = name
		}
	}
	return remove, nil
}

// spoolFile copies one file of the inputs to a temporary file, and names it.
func (in *Inputs) spoolFile(f File) (string, error) {
	r, err := in.Open(f)
	if err != nil {
		return "", err
	}
	defer r.Close()
	tmp, err := os.CreateTemp("", "admit-input-*")
	if err != nil {
		return "", fmt.Errorf("%s: %w", f.Name, err)
	}
	_, err = io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return tmp.Name(), fmt.Errorf("reading %s: %w", f.Name, err)
	}
	return tmp.Name(), nil
}
