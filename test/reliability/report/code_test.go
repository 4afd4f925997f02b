package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The committed results measured the code as it is: a change to the code they measure since the
// last make reliability fails here, naming where, so that a stale page is found by CI rather
// than by a reader.
func TestResultsMeasureTheCurrentCode(t *testing.T) {
	runs, err := Load(filepath.Join("..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	now, err := Fingerprint(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		if stale := StalePlaces(run.Code, now); len(stale) > 0 {
			t.Errorf("the %s results measured other code than this in %s: rerun make reliability and commit its results and docs/reliability.md",
				run.Group, strings.Join(stale, ", "))
		}
	}
}

// A change to the measured code changes its place's fingerprint; a change to a unit test of it,
// or to code elsewhere, does not.
func TestFingerprint(t *testing.T) {
	root := t.TempDir()
	write := func(path, content string) {
		t.Helper()
		full := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, place := range MeasuredCode() {
		switch place {
		case "go.mod":
			write(place, "module example.com/m\n")
		case "internal/cli/serve":
			write("internal/cli/serve.go", "package cli\n")
		default:
			write(place+"/x.go", "package x\n")
		}
	}
	write("internal/cli/lint.go", "package cli\n")
	write("test/reliability/report/report.go", "package report\n")
	before, err := Fingerprint(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path string
		want       []string
	}{
		{"the dispatcher's code", "dispatch/x.go", []string{"dispatch"}},
		{"a new file of the framework", "webhook/conversion/y.go", []string{"webhook"}},
		{"the serve command", "internal/cli/serve_flags.go", []string{"internal/cli/serve"}},
		{"a scenario", "test/reliability/drain_test.go", []string{"test/reliability"}},
		{"a dependency's version", "go.mod", []string{"go.mod"}},
		{"a unit test of the dispatcher", "dispatch/x_test.go", nil},
		{"another command", "internal/cli/lint.go", nil},
		{"the page's renderer", "test/reliability/report/report.go", nil},
		{"the chain", "chain/x.go", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			write(tt.path, "package changed\n")
			after, err := Fingerprint(root)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, StalePlaces(before, after)); diff != "" {
				t.Errorf("stale places (-want +got):\n%s", diff)
			}
			before = after
		})
	}
	if got := StalePlaces(nil, before); len(got) != len(MeasuredCode()) {
		t.Errorf("results without fingerprints are stale everywhere; got %v", got)
	}
}
