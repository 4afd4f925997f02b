package testsuite

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// IsFileName says whether a file found in a directory is a test file: admit-test.yaml, or
// NAME.admit-test.yaml (.yml too).
func IsFileName(name string) bool {
	for _, ext := range []string{".yaml", ".yml"} {
		if name == "admit-test"+ext || strings.HasSuffix(name, ".admit-test"+ext) {
			return true
		}
	}
	return false
}

// Find expands paths into test files: a file is taken whatever its name, a directory is
// searched, subdirectories included, for the files IsFileName names, in lexical order. A path
// that does not exist, and a directory without test files, are errors: pointed at the wrong
// folder, a run of no file would pass.
func Find(paths ...string) ([]string, error) {
	var files []string
	for _, path := range paths {
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, path)
			continue
		}
		found := 0
		err = filepath.WalkDir(path, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && IsFileName(d.Name()) {
				files = append(files, name)
				found++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no test files (admit-test.yaml or *.admit-test.yaml) in it or below", path)
		}
	}
	return files, nil
}
