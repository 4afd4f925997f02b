package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Scenario is one scenario's result.
type Scenario struct {
	// Group is the subtest of TestReliability the scenario belongs to: serving or calling.
	Group string `json:"group"`
	Name  string `json:"name"`
	// Promise is what the scenario asserts, as the page states it.
	Promise string `json:"promise"`
	// File is the test file that holds the scenario.
	File string `json:"file"`
	// Measured are the sentences the scenario logged as its measurements, in order.
	Measured []string `json:"measured"`
	Passed   bool     `json:"passed"`
}

// Run is what one `go test` of the reliability suite recorded for one group.
type Run struct {
	Group string `json:"group"`
	// Profile is short (make test) or full (make reliability).
	Profile   string `json:"profile"`
	GoVersion string `json:"goVersion"`
	Race      bool   `json:"race"`
	// Code is the Fingerprint of the code the run measured, by place of MeasuredCode: a check
	// finds results older than the code they describe.
	Code      map[string]string `json:"code"`
	Scenarios []Scenario        `json:"scenarios"`
}

// FileName is the name of a group's results file in a results directory.
func FileName(group string) string { return group + ".json" }

// Write writes run into dir as FileName(run.Group).
func Write(dir string, run Run) error {
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the %s results: %w", run.Group, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the results directory: %w", err)
	}
	path := filepath.Join(dir, FileName(run.Group))
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the %s results: %w", run.Group, err)
	}
	return nil
}

// Load reads every group's results from dir, sorted by group.
func Load(dir string) ([]Run, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no results (*.json) in %s", dir)
	}
	var runs []Run
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var run Run
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&run); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if FileName(run.Group) != filepath.Base(path) {
			return nil, fmt.Errorf("%s: holds the results of group %q", path, run.Group)
		}
		runs = append(runs, run)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Group < runs[j].Group })
	return runs, nil
}

// Table renders a run as the page's table: scenario, promise, measured, test, status.
func Table(run Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Profile %s, %s%s.\n\n", run.Profile, run.GoVersion, map[bool]string{true: ", with -race", false: ""}[run.Race])
	b.WriteString("| Scenario | Promise | Measured | Test | Status |\n|---|---|---|---|---|\n")
	for _, s := range run.Scenarios {
		status := "holds"
		if !s.Passed {
			status = "**fails**"
		}
		measured := strings.Join(s.Measured, "; ")
		if measured == "" {
			measured = "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | `%s/%s` (%s) | %s |\n", cell(capitalize(s.Name)), cell(s.Promise), cell(measured),
			s.Group, strings.ReplaceAll(s.Name, " ", "_"), s.File, status)
	}
	return b.String()
}

// cell escapes what would end a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// beginMarker and endMarker delimit a group's generated table in the page.
func beginMarker(group string) string { return "<!-- reliability:begin " + group + " -->\n" }
func endMarker(group string) string   { return "<!-- reliability:end " + group + " -->\n" }

// UpdatePage replaces each run's generated section of page with its table. Every run must have
// a section, and every section a run.
func UpdatePage(page []byte, runs []Run) ([]byte, error) {
	out := string(page)
	for _, run := range runs {
		begin, end := beginMarker(run.Group), endMarker(run.Group)
		i := strings.Index(out, begin)
		j := strings.Index(out, end)
		if i < 0 || j < i {
			return nil, fmt.Errorf("the page has no generated section for %q (%q ... %q)", run.Group, strings.TrimSpace(begin), strings.TrimSpace(end))
		}
		out = out[:i+len(begin)] + Table(run) + out[j:]
	}
	var errs []error
	for rest := out; ; {
		i := strings.Index(rest, "<!-- reliability:begin ")
		if i < 0 {
			break
		}
		group, _, _ := strings.Cut(rest[i+len("<!-- reliability:begin "):], " ")
		if !hasGroup(runs, group) {
			errs = append(errs, fmt.Errorf("the page's section %q has no results", group))
		}
		rest = rest[i+1:]
	}
	return []byte(out), errors.Join(errs...)
}

func hasGroup(runs []Run, group string) bool {
	for _, r := range runs {
		if r.Group == group {
			return true
		}
	}
	return false
}

// UpdateFile rewrites the page at path from the results in dir.
func UpdateFile(path, dir string) error {
	runs, err := Load(dir)
	if err != nil {
		return err
	}
	page, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := UpdatePage(page, runs)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, updated, info.Mode()&fs.ModePerm)
}
