package testsuite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"admit-test.yaml", "b.admit-test.yml", "nested/admit-test.yml", "other.yaml", "admit-test.json", "empty/README.md"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		paths   []string
		want    []string
		wantErr string
	}{
		{"a directory, searched below", []string{dir}, []string{"admit-test.yaml", "b.admit-test.yml", "nested/admit-test.yml"}, ""},
		{"a file, whatever its name", []string{filepath.Join(dir, "other.yaml")}, []string{"other.yaml"}, ""},
		{"a directory without test files", []string{filepath.Join(dir, "empty")}, nil, "empty: no test files (admit-test.yaml or *.admit-test.yaml) in it or below"},
		{"a path that does not exist", []string{filepath.Join(dir, "missing")}, nil, "missing: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(tt.paths...)
			if tt.wantErr != "" {
				if err == nil || !strings.HasSuffix(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one ending %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i], _ = filepath.Rel(dir, got[i])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteText(t *testing.T) {
	allowed := true
	results := &Results{
		Suites: []*Report{NewReport("mirrors", "a/admit-test.yaml", []*CaseReport{
			{Name: "mirrored", Passed: true, Allowed: &allowed, Took: 1234567 * time.Nanosecond},
			{Name: "refused", Failures: []string{"allowed: got true, want false"}, Took: 2 * time.Second},
			{Name: "unreadable", Error: "object.yaml: no such file\nsecond line"},
		}), {File: "b/admit-test.yaml", Error: "the server did not start"}},
		Passed: 1, Failed: 1, Errors: 2,
	}
	var b strings.Builder
	if err := WriteText(&b, results); err != nil {
		t.Fatal(err)
	}
	want := `a/admit-test.yaml: mirrors
  ok    mirrored (1.2ms)
  FAIL  refused (2s)
        allowed: got true, want false
  ERROR unreadable
        object.yaml: no such file
        second line
b/admit-test.yaml
  ERROR the server did not start
3 cases in 2 files: 1 passed, 1 failed, 2 could not run
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
