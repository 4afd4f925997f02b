package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAnchors(t *testing.T) {
	line := func(hooks, apiserver, review, ratio, extra string) string {
		return "BenchmarkReviewAnchors/webhook=" + hooks + "-2 \t1\t18241155418 ns/op\t" + apiserver + " apiserver-cpu-µs/object\t16.5 apiserver-idle-cpu-µs/object\t" +
			"250 etcd-cpu-µs/object\t" + extra + "2.0 load1\t4800 objects\t" + review + " review-cpu-µs/object\t" + ratio + " review/apiserver\n"
	}
	validate := "460 kubectl-validate-cpu-µs/object\t1000 kubectl-validate-generateName-refused\t"
	round := func(apiserver, review, ratio, validate float64, refused int) AnchorsRound {
		return AnchorsRound{Objects: 4800, APIServer: apiserver, APIServerIdle: 16.5, Etcd: 250, Review: review, KubectlValidate: validate,
			ReviewVsAPIServer: ratio, GenerateNameRefused: refused, Load1: 2}
	}
	for _, tc := range []struct {
		name, out string
		want      *Anchors
	}{
		{"both variants, one first in the output", "goos: linux\ncpu: Test CPU\n" +
			line("one", "1600", "1200", "0.75", "") + line("none", "1000", "800", "0.8", validate) + "PASS\n" +
			line("none", "1100", "880", "0.8", validate) + "    anchors_bench_e2e_test.go:90: a log line\n",
			&Anchors{CPU: "Test CPU", Variants: []AnchorsVariant{
				{Webhook: "none", Rounds: []AnchorsRound{round(1000, 800, 0.8, 460, 1000), round(1100, 880, 0.8, 460, 1000)}},
				{Webhook: "one", Rounds: []AnchorsRound{round(1600, 1200, 0.75, 0, 0)}},
			}}},
		{"a log line named as a result", line("none", "1000", "800", "0.8", "") + "BenchmarkReviewAnchors/webhook=one-2 some log line\n",
			&Anchors{Variants: []AnchorsVariant{{Webhook: "none", Rounds: []AnchorsRound{round(1000, 800, 0.8, 0, 0)}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAnchors([]byte(tc.out))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseAnchorsRefuses(t *testing.T) {
	for _, tc := range []struct{ name, out, wantErr string }{
		{"no output", "", "no BenchmarkReviewAnchors result line"},
		{"no result line", "goos: linux\nPASS\n", "no BenchmarkReviewAnchors result line"},
		{"a metric without its unit", "BenchmarkReviewAnchors/webhook=none-2 1 5 ns/op 4800\n", "line 1: metrics are not value-unit pairs"},
		{"a value that is no number", "PASS\nBenchmarkReviewAnchors/webhook=none-2 1 5 ns/op many objects\n", "line 2: metric objects"},
		{"no variant", "BenchmarkReviewAnchors/objects=10-2 1 5 ns/op\n", `line 1: "BenchmarkReviewAnchors/objects=10-2" does not name webhook=W`},
		{"a missing metric", "BenchmarkReviewAnchors/webhook=none-2 1 5 ns/op 4800 objects 1000 apiserver-cpu-µs/object 250 etcd-cpu-µs/object 800 review-cpu-µs/object\n",
			"line 1: no review/apiserver metric"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseAnchors([]byte(tc.out)); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseAnchors(%q) = %v, want an error containing %q", tc.out, err, tc.wantErr)
			}
		})
	}
}

// goalRows are the report's goals as the goals table writes them.
func goalRows(rep *Report) []string {
	var rows []string
	for _, g := range rep.goals {
		rows = append(rows, strings.Join([]string{g.what, g.target, g.measured, g.status}, " | "))
	}
	return rows
}

// The goals of a recorded run (testdata/anchors.txt, as make bench-anchors wrote it): medians over
// its three rounds.
func TestAnchorsGoals(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "anchors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseAnchors(data)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Sections: map[string]string{}}
	if err := anchorsSection(Input{Anchors: a}, rep); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Review CPU per object, no webhook | ≤ 0.500× the apiserver's per dry-run object | 0.834× | missed",
		"Review CPU per object, one webhook | ≤ 0.500× the apiserver's per dry-run object | 0.787× | missed",
		"Review CPU per object, one webhook over none | ≤ 1.30× | 1.47× | missed",
	}
	if diff := cmp.Diff(want, goalRows(rep)); diff != "" {
		t.Errorf("goals (-want +got):\n%s", diff)
	}
	for _, row := range []string{
		"| no webhook | 1 | 4800 | 1090 µs | 16.7 µs | 248 µs | 869 µs | 0.800× | 462 µs | 2.1 |",
		"| no webhook | median | | 1010 µs | 16.7 µs | 248 µs | 858 µs | 0.834× | 465 µs | |",
		"| one webhook | 2 | 4800 | 1640 µs | 22.9 µs | 275 µs | 1210 µs | 0.735× | – | 2.9 |",
		"by round: 1000, 1000, 1000.",
		"**missed** — 1.47× (1260 µs against 858 µs; the apiserver's own: 1.58×)",
	} {
		if !strings.Contains(rep.Sections[SectionAnchors], row) {
			t.Errorf("the section lacks %q:\n%s", row, rep.Sections[SectionAnchors])
		}
	}
}

func TestAnchorsGoalsNotMeasured(t *testing.T) {
	for _, tc := range []struct {
		name    string
		anchors *Anchors
		want    []string
	}{
		{"no output", nil, []string{
			"Review CPU per object, no webhook | ≤ 0.500× the apiserver's per dry-run object | – | not measured",
			"Review CPU per object, one webhook | ≤ 0.500× the apiserver's per dry-run object | – | not measured",
			"Review CPU per object, one webhook over none | ≤ 1.30× | – | not measured",
		}},
		{"without the webhook only", &Anchors{Variants: []AnchorsVariant{{Webhook: "none", Rounds: []AnchorsRound{{Objects: 10, APIServer: 100, Review: 40, ReviewVsAPIServer: 0.4}}}}}, []string{
			"Review CPU per object, no webhook | ≤ 0.500× the apiserver's per dry-run object | 0.400× | met",
			"Review CPU per object, one webhook | ≤ 0.500× the apiserver's per dry-run object | – | not measured",
			"Review CPU per object, one webhook over none | ≤ 1.30× | – | not measured",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &Report{Sections: map[string]string{}}
			if err := anchorsSection(Input{Anchors: tc.anchors}, rep); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, goalRows(rep)); diff != "" {
				t.Errorf("goals (-want +got):\n%s", diff)
			}
			if tc.anchors == nil && !strings.Contains(rep.Sections[SectionAnchors], "Not measured in this run") {
				t.Errorf("section without results: %s", rep.Sections[SectionAnchors])
			}
		})
	}
}
