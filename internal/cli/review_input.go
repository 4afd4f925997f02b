package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/admitkit/admit/review"
)

// stdinName is how standard input is named in messages and output.
const stdinName = "<stdin>"

// readObjects reads every object of the files, directories and stdin ("-") named by paths, in
// the order given: a file's documents in order, a List's items in order, a directory's *.yaml,
// *.yml and *.json files in lexical order (and its subdirectories' with recursive, like
// kubectl's -R). Every unreadable or malformed file is reported; then nothing is returned.
func readObjects(paths []string, recursive bool, stdin io.Reader) ([]review.Input, error) {
	files, err := expandPaths(paths, recursive)
	if err != nil {
		return nil, err
	}
	var objects []review.Input
	var errs []error
	stdinRead := false
	for _, file := range files {
		var data []byte
		label := file
		if file == "-" {
			if stdinRead {
				errs = append(errs, fmt.Errorf(`"-" (standard input) is given more than once`))
				continue
			}
			stdinRead, label = true, stdinName
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(file)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		read, err := review.Parse(label, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objects = append(objects, read...)
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return objects, nil
}

// expandPaths turns files and directories into the list of files to read, in order.
func expandPaths(paths []string, recursive bool) ([]string, error) {
	var files []string
	var errs []error
	for _, p := range paths {
		if p == "-" {
			files = append(files, p)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := manifestsIn(p, recursive)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(found) == 0 {
			errs = append(errs, fmt.Errorf("%s: no *.yaml, *.yml or *.json files%s", p, map[bool]string{true: "", false: " (use -R for subdirectories)"}[recursive]))
		}
		files = append(files, found...)
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return files, nil
}

// manifestsIn lists a directory's manifest files in lexical order, subdirectories' files at
// their place in that order when recursive.
func manifestsIn(dir string, recursive bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, entry := range entries {
		path := filepath.Join(dir, entry.Name())
		switch {
		case entry.IsDir():
			if recursive {
				found, err := manifestsIn(path, recursive)
				if err != nil {
					return nil, err
				}
				files = append(files, found...)
			}
		case isManifestName(entry.Name()):
			files = append(files, path)
		}
	}
	return files, nil
}

func isManifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// joinErrors reports several input problems one per line.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	lines := make([]string, len(errs))
	for i, err := range errs {
		lines[i] = err.Error()
	}
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}
