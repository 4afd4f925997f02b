package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReviewSeveralGolden holds the review of several objects — read, reviewed and printed an
// object at a time — to the bytes the whole input gave when it was held at once (the golden
// files were written by that version), in every format, from a file and from stdin; and its
// Markdown (which came later) to what it was when written.
func TestReviewSeveralGolden(t *testing.T) {
	input := filepath.Join("testdata", "review", "several-input.yaml")
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		golden string
		args   []string
		stdin  bool
	}{
		{"several.txt", []string{"review", "-f", input, "--color", "never"}, false},
		{"several-summary.txt", []string{"review", "-f", input, "--summary", "--color", "always"}, false},
		{"several.json", []string{"review", "-f", input, "-o", "json"}, false},
		{"several-out.yaml", []string{"review", "-f", input, "-o", "yaml"}, false},
		{"several-skip-out.yaml", []string{"review", "-f", input, "-o", "yaml", "--skip-missing-crds"}, false},
		{"several-stdin.json", []string{"review", "-f", "-", "-o", "json"}, true},
		{"several.md", []string{"review", "-f", input, "-o", "markdown"}, false},
		{"several-stdin-summary.txt", []string{"review", "-f", "-", "--summary", "--color", "never"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var out, errOut bytes.Buffer
			stdin := ""
			if tt.stdin {
				stdin = string(data)
			}
			code := Run(context.Background(), tt.args, Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
			// Two objects are not reviewed: one does not decode, one has no CRD unless skipped.
			if code != ExitBadInput {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, ExitBadInput, errOut.String())
			}
			got := normalize(out.String()) + "--- stderr\n" + normalize(errOut.String())
			file := filepath.Join("testdata", "review", tt.golden)
			if *updateGolden {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/cli -run TestReviewSeveralGolden -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Fatalf("%s (-want +got):\n%s", file, diff)
			}
		})
	}
}
