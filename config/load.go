package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Options control Load.
type Options struct {
	// Recursive makes Load read the subdirectories of the directories it is given, like
	// kubectl's -R. Without it only the files directly in a directory are read.
	Recursive bool
	// KeepGoing makes Load return the objects of the files that read along with the error
	// about those that did not, so that one bad file does not hide the others (a linter
	// reports it and goes on). A file with any problem contributes no object.
	KeepGoing bool
}

// Load reads files and directories of objects (see Parse for formats and decoding). A file given
// by path is read whatever its name; in a directory only files named *.yaml, *.yml and *.json
// are read, in lexical order, which makes the order of the Set stable. A directory without such
// files is not an error: the Set is empty.
//
// Every problem in every file is reported; on error no Set is returned, unless
// Options.KeepGoing is set.
func Load(opts Options, paths ...string) (*Set, error) {
	set := &Set{}
	var errs []error
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if info.IsDir() {
			errs = append(errs, loadDirectory(set, path, opts.Recursive))
			continue
		}
		errs = append(errs, loadFile(set, path))
	}
	if err := errors.Join(errs...); err != nil {
		if opts.KeepGoing {
			return set, err
		}
		return nil, err
	}
	return set, nil
}

func loadDirectory(set *Set, dir string, recursive bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, entry := range entries {
		path := filepath.Join(dir, entry.Name())
		switch {
		case entry.IsDir():
			if recursive {
				errs = append(errs, loadDirectory(set, path, recursive))
			}
		case isManifest(entry.Name()):
			errs = append(errs, loadFile(set, path))
		}
	}
	return errors.Join(errs...)
}

func isManifest(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func loadFile(set *Set, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	loaded, err := Parse(path, data)
	if err != nil {
		return err
	}
	set.Append(loaded)
	return nil
}
