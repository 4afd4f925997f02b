package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The committed page says what the committed results say: rerunning the generator changes
// nothing. (make reliability rewrites both.)
func TestPageMatchesCommittedResults(t *testing.T) {
	runs, err := Load(filepath.Join("..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	pagePath := filepath.Join("..", "..", "..", "docs", "reliability.md")
	page, err := os.ReadFile(pagePath)
	if err != nil {
		t.Fatal(err)
	}
	updated, err := UpdatePage(page, runs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(page), string(updated)); diff != "" {
		t.Errorf("docs/reliability.md is stale; run make reliability, or `go run ./test/reliability/report/cmd/reliabilityreport` (-page +results):\n%s", diff)
	}
	for _, run := range runs {
		if run.Profile != "full" {
			t.Errorf("the committed %s results come from the %s profile; the page reports the full run", run.Group, run.Profile)
		}
	}
}

func TestUpdatePage(t *testing.T) {
	run := Run{Group: "serving", Profile: "full", GoVersion: "go1.26.0", Scenarios: []Scenario{
		{Group: "serving", Name: "SIGTERM drain", Promise: "a | b", File: "shutdown_test.go", Measured: []string{"one", "two"}, Passed: true},
		{Group: "serving", Name: "panicking handler", Promise: "p", File: "panic_test.go", Passed: false},
	}}
	tests := []struct {
		name    string
		page    string
		runs    []Run
		want    string
		wantErr string
	}{
		{
			name: "section rewritten, text around kept",
			page: "intro\n<!-- reliability:begin serving -->\nold\n<!-- reliability:end serving -->\nafter\n",
			runs: []Run{run},
			want: "intro\n<!-- reliability:begin serving -->\nProfile full, go1.26.0.\n\n" +
				"| Scenario | Promise | Measured | Test | Status |\n|---|---|---|---|---|\n" +
				"| SIGTERM drain | a \\| b | one; two | `serving/SIGTERM_drain` (shutdown_test.go) | holds |\n" +
				"| Panicking handler | p | — | `serving/panicking_handler` (panic_test.go) | **fails** |\n" +
				"<!-- reliability:end serving -->\nafter\n",
		},
		{name: "no section for a run", page: "nothing here\n", runs: []Run{run}, wantErr: `no generated section for "serving"`},
		{
			name:    "a section without results",
			page:    "<!-- reliability:begin calling -->\n<!-- reliability:end calling -->\n",
			runs:    nil,
			wantErr: `section "calling" has no results`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UpdatePage([]byte(tt.page), tt.runs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("page (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteThenLoad(t *testing.T) {
	dir := t.TempDir()
	want := []Run{
		{Group: "calling", Profile: "short", Race: true, Scenarios: []Scenario{{Group: "calling", Name: "x", Passed: true}}},
		{Group: "serving", Profile: "short", Scenarios: []Scenario{{Group: "serving", Name: "y", Measured: []string{"m"}}}},
	}
	for _, run := range want {
		if err := Write(dir, run); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded (-written +loaded):\n%s", diff)
	}
	if err := os.WriteFile(filepath.Join(dir, "calling.json"), []byte(`{"group":"serving"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `holds the results of group "serving"`) {
		t.Errorf("Load of a misnamed results file: %v", err)
	}
}
