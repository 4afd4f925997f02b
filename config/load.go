package config

import (
	"errors"
	"fmt"
	"io"

	"github.com/admitkit/admit/internal/words"
	"github.com/admitkit/admit/manifest"
)

// Options control Load.
type Options struct {
	// Recursive makes Load read the subdirectories of the directories it is given, like
	// kubectl's -R. Without it only the files directly in a directory are read.
	Recursive bool
	// KeepGoing makes Load return the objects of the files that read along with the error
	// about those that did not, so that one bad file does not hide the others (a linter
	// reports it and goes on). A file with any problem contributes no object. Paths that do not
	// exist and kustomize bases still return no Set.
	KeepGoing bool
	// Stdin is what the path "-" reads, named StdinName (default "<stdin>").
	Stdin     io.Reader
	StdinName string
	// Command is what a kustomize build is piped into, in the advice given for the files of a
	// kustomize base: "admit review -f -" by default.
	Command string
	// Others, when set, sees each object that is not a webhook configuration as it is read,
	// admission policies and bindings included; of the others, only those it keeps (true) stay
	// in Set.Others, and Set.Dropped counts the rest. A program that reads little of them (a
	// linter, which keeps a name and a few fields) then holds no whole input. It sees the objects
	// of a file with problems too, although that file's Set is dropped.
	Others func(Object) (keep bool)
	// Around, when set, makes Load read the inputs a second time once the first reading is
	// done and the kustomize check passed: Around is given the Set of the first reading and
	// returns what sees, on the second, each object that Others saw on the first. A program
	// that reads, of the objects around the configurations, only those the configurations can
	// refer to (a linter: the objects of the namespaces their Services are in) then learns
	// which they are before it reads them. Standard input and pipes are copied to temporary
	// files for it (manifest.Inputs.Spool). A file that did not read the first time is read
	// again for what it holds, as Others saw it; one that read the first time and does not the
	// second (changed in between) is an error.
	Around func(first *Set) func(Object)
}

// Load reads files and directories of objects as package manifest reads them (see Parse for
// decoding): a file given by path is read whatever its name; in a directory only files named
// *.yaml, *.yml and *.json are read, in lexical order, which makes the order of the Set stable;
// "-" is standard input.
//
// An input that holds no objects is an error (the wrong folder, a command before a pipe that
// failed), and so are the files of a kustomize base whose build changes them: what is applied
// is the build. Every problem in every file is reported; on error no Set is returned, unless
// Options.KeepGoing is set.
func Load(opts Options, paths ...string) (*Set, error) {
	in, err := manifest.Expand(paths, manifest.Options{Recursive: opts.Recursive, Stdin: opts.Stdin, StdinName: opts.StdinName, Command: opts.Command})
	if err != nil {
		return nil, err
	}
	if opts.Around != nil {
		remove, err := in.Spool()
		defer remove()
		if err != nil {
			return nil, err
		}
	}
	set := &Set{}
	var errs []error
	// read counts each file's objects, so that a second reading (Around) can tell the file
	// changed in between; a file that did not read is -1.
	read := map[string]int{}
	check := in.KustomizeCheck()
	for _, input := range in.List {
		objects, failed := 0, false
		for _, f := range input.Files {
			loaded, n, err := loadFile(in, f, check, opts.Others)
			if err != nil {
				errs, failed = append(errs, err), true
				read[f.Path] = -1
				continue
			}
			read[f.Path] = n
			objects += n
			set.Append(loaded)
		}
		if objects == 0 && !failed {
			errs = append(errs, input.Empty(in.Options.StdinName))
		}
		check.Input(input)
	}
	if err := check.Err(); err != nil {
		// What is applied is the build: reading the base's files, even some of them, would
		// answer for objects that are never installed.
		return nil, err
	}
	err = errors.Join(errs...)
	if opts.Around != nil && (err == nil || opts.KeepGoing) {
		if err := readAgain(in, read, opts.Around(set)); err != nil {
			return nil, err
		}
	}
	if err != nil {
		if opts.KeepGoing {
			return set, err
		}
		return nil, err
	}
	return set, nil
}

// loadFile reads one file into a Set an object at a time, each object seen by the kustomize
// check as it is read; n counts the objects. On error, no Set and every problem.
func loadFile(in *manifest.Inputs, f manifest.File, check *manifest.KustomizeCheck, others func(Object) bool) (_ *Set, n int, err error) {
	rc, err := in.Open(f)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	p := &parser{set: &Set{}, others: others}
	err = p.read(manifest.NewReader(f.Name, rc), func(obj manifest.Object) {
		n++
		check.Add(obj)
	})
	if err != nil {
		return nil, n, err
	}
	return p.set, n, nil
}

// readAgain reads the inputs a second time (Options.Around), giving each the objects that are
// not webhook configurations, as Options.Others saw them the first time. read counts the objects
// of each file the first time, -1 for one that did not read: its problems were reported then. A
// file that reads otherwise the second time changed in between, which is an error.
func readAgain(in *manifest.Inputs, read map[string]int, each func(Object)) error {
	for _, input := range in.List {
		for _, f := range input.Files {
			n, err := readOthers(in, f, each)
			switch {
			case read[f.Path] < 0:
			case err != nil:
				return fmt.Errorf("reading %s a second time: %w", f.Name, err)
			case n != read[f.Path]:
				return fmt.Errorf("%s changed while it was read: %s at first, %d when read again", f.Name, words.Plural(read[f.Path], "object", "objects"), n)
			}
		}
	}
	return nil
}

// readOthers gives each the objects of f that are not webhook configurations, and returns how
// many objects f holds and its problems.
func readOthers(in *manifest.Inputs, f manifest.File, each func(Object)) (n int, err error) {
	rc, err := in.Open(f)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	r := manifest.NewReader(f.Name, rc)
	var errs []error
	for {
		obj, err := r.Next()
		if err == io.EOF {
			return n, errors.Join(errs...)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
		gvk := obj.Object.GroupVersionKind()
		if gk := gvk.GroupKind(); gk != mutatingKind && gk != validatingKind && checkPolicyVersion(gvk.GroupVersion(), gvk.Kind) == nil {
			each(Object{Source: obj.Source, Object: obj.Object})
		}
	}
}
