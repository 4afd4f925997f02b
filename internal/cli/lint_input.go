package cli

import (
	"io"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/lint"
)

// readInputs reads every argument with package manifest's rules (config.Load), going on after
// one that does not read so that one bad file does not hide the findings of the others: the set
// of what read, and loadErr about the rest (an input that holds no object is one: linting
// nothing must not pass). err is for what stops the run: a path that does not exist, a kustomize
// base given instead of its build. The inputs are read twice, the second time for what around
// reads of the objects around the configurations (lint.Surroundings).
func (o *lintOptions) readInputs(stdin io.Reader, paths []string, around *lint.Surroundings) (set *config.Set, loadErr, err error) {
	set, loadErr = config.Load(config.Options{KeepGoing: true, Recursive: o.recursive, Stdin: stdin, StdinName: o.stdinFilename,
		Command: "admit lint -", Others: around.Keep, Around: around.Around}, paths...)
	if set == nil {
		return nil, nil, loadErr
	}
	return set, loadErr, nil
}

// objectCount counts what an input held.
func objectCount(set *config.Set) int {
	if set == nil {
		return 0
	}
	return len(set.Mutating) + len(set.Validating) + len(set.Others) + set.Dropped
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
