package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MeasuredCode are the places, relative to the module's root, whose code the scenarios measure:
// the serving side's framework and built-in webhooks behind admit serve (its command's own
// files), the calling side's dispatcher and extension caller with what they call through, and
// the scenarios themselves; go.mod, whose versions are code too. A change anywhere else (the
// chain, lint, audit) does not change what the page reports.
func MeasuredCode() []string {
	return []string{
		"builtin", "certs", "dispatch", "engine", "extension", "internal/callout", "patch",
		"test/reliability", "webhook", "internal/cli/serve", "go.mod",
	}
}

// Fingerprint hashes the code of each place of MeasuredCode under root: its Go files, without
// the tests (except test/reliability's, which are the scenarios), their paths and contents. A
// place named by a file prefix (internal/cli/serve) covers the files of its directory whose
// names start so. The same code gives the same fingerprint on any machine, whatever git says.
func Fingerprint(root string) (map[string]string, error) {
	out := map[string]string{}
	for _, place := range MeasuredCode() {
		files, err := measuredFiles(root, place)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("measured code %s: no files under %s", place, root)
		}
		h := sha256.New()
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(root, f))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(f), len(data))
			h.Write(data)
		}
		out[place] = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

// measuredFiles lists the files of place under root, sorted.
func measuredFiles(root, place string) ([]string, error) {
	path := filepath.Join(root, filepath.FromSlash(place))
	info, err := os.Stat(path)
	if err == nil && !info.IsDir() {
		return []string{filepath.FromSlash(place)}, nil
	}
	dir, prefix := path, ""
	if err != nil {
		if !os.IsNotExist(err) {
			return nil, err
		}
		dir, prefix = filepath.Dir(path), filepath.Base(path) // a file prefix
	}
	scenarios := place == "test/reliability"
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if prefix != "" && p != dir {
				return filepath.SkipDir
			}
			if name := d.Name(); p != dir && (name == "testdata" || strings.HasPrefix(name, ".") || (scenarios && name == "report")) {
				return filepath.SkipDir // (this package renders the page; it measures nothing)
			}
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".go") || !strings.HasPrefix(name, prefix) || (strings.HasSuffix(name, "_test.go") && !scenarios) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, rel)
		return nil
	})
	sort.Strings(files)
	return files, err
}

// StalePlaces compares the code a run measured with the code now: the places that changed, or
// are new to the list, sorted.
func StalePlaces(measured, now map[string]string) []string {
	var stale []string
	for place, hash := range now {
		if measured[place] != hash {
			stale = append(stale, place)
		}
	}
	sort.Strings(stale)
	return stale
}
