package layout

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocMaps holds every package's doc.go to its directory: the file map in its comment (lines
// "//<TAB>name.go  what it holds") names exactly the directory's non-test .go files other than
// doc.go. It walks the whole repository, the separate modules (bench, contrib) included, and skips
// what the go command skips (directories named testdata, or starting with "." or "_") and vendor.
func TestDocMaps(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository's root: %v", err)
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || name == "vendor" ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		checkDocMap(t, filepath.ToSlash(rel), path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkDocMap reports dir (named rel) if it holds non-test .go files other than doc.go and its
// doc.go is missing or maps other files than these.
func checkDocMap(t *testing.T, rel, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	var files []string
	hasDoc := false
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if n == "doc.go" {
			hasDoc = true
			continue
		}
		files = append(files, n)
	}
	if len(files) == 0 {
		return
	}
	if !hasDoc {
		t.Errorf("%s: no doc.go; it must map %s", rel, strings.Join(files, ", "))
		return
	}
	mapped, err := docMap(filepath.Join(dir, "doc.go"))
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	if len(mapped) == 0 {
		t.Errorf("%s: doc.go has no file map; it must map %s", rel, strings.Join(files, ", "))
		return
	}
	var missing, stale []string
	for _, f := range files {
		if !slices.Contains(mapped, f) {
			missing = append(missing, f)
		}
	}
	for _, m := range mapped {
		if !slices.Contains(files, m) {
			stale = append(stale, m)
		}
	}
	if len(missing) > 0 || len(stale) > 0 {
		t.Errorf("%s: doc.go's file map differs from the directory: not mapped [%s]; mapped but absent [%s]",
			rel, strings.Join(missing, " "), strings.Join(stale, " "))
	}
}

// docMap returns the files a doc.go's comments map, in order: lines "//<TAB>name.go" followed by
// spaces and a description (or nothing). A line whose text after the tab starts with a space
// continues the description above it; a name with a slash is not a file of the directory.
func docMap(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(strings.TrimLeft(s.Text(), " \t"), "//\t")
		if !ok || rest == "" || rest[0] == ' ' || rest[0] == '\t' {
			continue
		}
		name, _, _ := strings.Cut(strings.ReplaceAll(rest, "\t", " "), " ")
		if strings.HasSuffix(name, ".go") && len(name) > len(".go") && !strings.Contains(name, "/") &&
			!slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, s.Err()
}
