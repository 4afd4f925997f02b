package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/admitkit/admit/bench"
	"github.com/admitkit/admit/bench/suite"
)

// The docs page and the recorded runs it is written from, as the repository holds them.
const (
	docsPage       = "../../docs/benchmarks.md"
	benchResults   = "../results"
	reliabilityDir = "../../test/reliability/results"
)

// notMeasurements are the numbers of the page's text that are not measurements, each with the
// line's words around it and why it needs no recorded run. Every entry must match a figure of
// the page, so that one left behind by an edit is removed.
var notMeasurements = []struct{ figure, context, why string }{
	{"24–27", "24–27 environment variables", "the shape of the workload, bench/testdata/pod.json"},
	{"1.36", "Kubernetes 1.36", "a version"},
	{"256", "256 objects at a time", "the review benchmark's batch (reviewBatch in review/bench_test.go), a setting"},
	{"6902", "RFC 6902", "the number of a standard"},
	{"500", "500 objects are admitted at a time", "admit audit's --batch-size default, a setting"},
	{"41", "#41", "the number of the issue that set the goals"},
}

// recordedQuantities are every number the page's text may state: those of the generated
// sections, of the benchmarks' raw output and the results files the harness and the reliability
// suite write, and the workload Pod's size.
func recordedQuantities(t *testing.T, page []byte) []Quantity {
	t.Helper()
	quantities := GeneratedQuantities(page)
	outputs, err := filepath.Glob(filepath.Join(benchResults, "*.txt"))
	if err != nil || len(outputs) == 0 {
		t.Fatalf("no benchmark output in %s: %v", benchResults, err)
	}
	for _, path := range outputs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		quantities = append(quantities, OutputQuantities(data)...)
	}
	var results []string
	for _, dir := range []string{benchResults, reliabilityDir} {
		found, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, found...)
	}
	for _, path := range results {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		q, err := JSONQuantities(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		quantities = append(quantities, q...)
	}
	pod, err := bench.PodJSON()
	if err != nil {
		t.Fatal(err)
	}
	return append(quantities, Quantity{Value: float64(len(pod)), Unit: "B"})
}

// Every number the page's text states is held by a recorded file or a generated section, or is
// not a measurement.
func TestDocsFiguresAreRecorded(t *testing.T) {
	page, err := os.ReadFile(docsPage)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(page), "\n")
	quantities := recordedQuantities(t, page)
	used := make([]bool, len(notMeasurements))
	figures := ProseFigures(page)
	if len(figures) < 50 {
		t.Fatalf("read only %d figures in %s: is the page still the one the check is written for?", len(figures), docsPage)
	}
	unrecorded := 0
	for _, f := range figures {
		if i := exemption(f, lines[f.Line-1]); i >= 0 {
			used[i] = true
			continue
		}
		if !f.Held(quantities) {
			unrecorded++
			t.Errorf("docs/benchmarks.md:%d: %q is in no recorded run: generate it, say it in words, or keep the output of the run that measured it in bench/results",
				f.Line, f.Text)
		}
	}
	for i, e := range notMeasurements {
		if !used[i] {
			t.Errorf("notMeasurements: %q (%q) matches no figure of the page any more: remove it", e.figure, e.context)
		}
	}
	if unrecorded > 0 {
		t.Logf("%d of %d figures in no recorded run", unrecorded, len(figures))
	}
}

// exemption is the index of the entry of notMeasurements that exempts f on its line, or -1.
func exemption(f Figure, line string) int {
	for i, e := range notMeasurements {
		if f.Text == e.figure && strings.Contains(line, e.context) {
			return i
		}
	}
	return -1
}

// The generated sections of the page are what the recorded runs render, all but the release
// binary's size, whose binary is not kept (its goal's row included).
func TestGeneratedSectionsAreTheRecordedRuns(t *testing.T) {
	page, err := os.ReadFile(docsPage)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Results: &suite.Results{}}
	data, err := os.ReadFile(filepath.Join(benchResults, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, in.Results); err != nil {
		t.Fatal(err)
	}
	in.Latency = parseFile(t, "e2e-latency.txt", ParseLatency)
	in.Review = parseFile(t, "review-throughput.txt", ParseReview)
	in.Audit = parseFile(t, "audit-100k.txt", ParseAudit)
	in.Memory = parseFile(t, "memory.txt", ParseMemory)
	in.AuditLog = parseFile(t, "audit-log.txt", ParseAuditLog)
	in.Anchors = parseFile(t, "anchors.txt", ParseAnchors)
	in.Patch = parseFile(t, "patch.txt", ParsePatch)
	rep, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range rep.Sections {
		got, ok := section(page, name)
		if !ok {
			t.Errorf("section %q: no markers in the page", name)
			continue
		}
		switch name {
		case SectionSize:
			continue
		case SectionGoals:
			got, want = withoutLines(got, "Release binary size"), withoutLines(want, "Release binary size")
		}
		if got != strings.TrimSpace(want) {
			t.Errorf("section %q is not what bench/results renders; run the harness with -report-only (docs/benchmarks.md says how)\npage:\n%s\nrendered:\n%s",
				name, got, strings.TrimSpace(want))
		}
	}
}

func parseFile[T any](t *testing.T, name string, parse func([]byte) (*T, error)) *T {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(benchResults, name))
	if err != nil {
		t.Fatal(err)
	}
	v, err := parse(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// section is the text between a section's markers in page, trimmed.
func section(page []byte, name string) (string, bool) {
	m := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(beginMarker(name)) + `(.*?)` + regexp.QuoteMeta(endMarker(name))).FindSubmatch(page)
	if m == nil {
		return "", false
	}
	return strings.TrimSpace(string(m[1])), true
}

func withoutLines(text, containing string) string {
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.Contains(line, containing) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}
