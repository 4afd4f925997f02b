package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProseFigures(t *testing.T) {
	page := strings.Join([]string{
		"# Title with 1,000 objects", // 1
		"admit spends 0.30× (192 against 1 640 µs; 0.26–0.37× over rounds),",  // 2
		"`-benchtime 2000x` [link](../a/v1.2.md) HTTP/1.1 P-256 k8s go1.26.8", // 3
		"Kubernetes 1.36.3 and 3rd, 1x, n=10, 10,000-object, 9.9 KB, 19.7%",   // 4
		"<!-- admitbench:begin serving -->",                                   // 5
		"| admit | 7140 | 4.05× |",                                            // 6
		"<!-- admitbench:end serving -->",                                     // 7
		"```sh",                                                               // 8
		"for i in 1 2 3; do make bench; done",                                 // 9
		"```",                                                                 // 10
		"```",                                                                 // 11
		"  24.4%  patch.(*Typed).Lossless",                                    // 12
		"```",                                                                 // 13
		"code that goes `on over",                                             // 14
		"the line 42 MiB` then 3 s and 2 servers, 1.08×–1.21×, 3 930–4 210", // 15
	}, "\n")
	type fig struct {
		Line   int
		Text   string
		Values []float64
		Unit   string
	}
	var got []fig
	for _, f := range ProseFigures([]byte(page)) {
		got = append(got, fig{f.Line, f.Text, f.Values, f.Unit})
	}
	want := []fig{
		{1, "1,000", []float64{1000}, ""},
		{2, "0.30×", []float64{0.30}, "×"},
		{2, "192", []float64{192}, ""},
		{2, "1 640 µs", []float64{1640}, "µs"},
		{2, "0.26–0.37×", []float64{0.26, 0.37}, "×"},
		{4, "10,000", []float64{10000}, ""},
		{4, "9.9 KB", []float64{9.9}, "KB"},
		{4, "19.7%", []float64{19.7}, "%"},
		{12, "24.4%", []float64{24.4}, "%"},
		{15, "3 s", []float64{3}, "s"},
		{15, "2", []float64{2}, ""},
		{15, "1.08×–1.21×", []float64{1.08, 1.21}, "×"},
		{15, "3 930–4 210", []float64{3930, 4210}, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFigureHeld(t *testing.T) {
	quantities := []Quantity{
		{Value: 0.443, Unit: "ms"}, {Value: 9552, Unit: "ns"}, {Value: 97.6, Unit: "KiB"}, {Value: 3970},
		{Value: 1034.43, Unit: "MB/s"}, {Value: 0.283, Unit: "×"},
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"adds 0.44 ms", true},     // rounded to the figure's precision
		{"adds 0.45 ms", false},    // not a rounding of it
		{"adds 443 µs", true},      // another unit of the same dimension
		{"takes 9.6 µs", true},     // ns/op read in µs
		{"takes 9.55 µs", true},    // likewise
		{"takes 0.44 MiB", false},  // a time is no size
		{"allocates 98 KiB", true}, // held
		{"3 970 objects/s", false}, // a count held without a unit holds no rate
		{"3 970 objects", true},    // a figure without a unit matches any number
		{"about 1 GB/s", true},     // 1034 MB/s
		{"0.28–0.283×", true},      // both ends held
		{"0.283–0.30×", false},     // one end held
	} {
		figures := lineFigures(1, tc.text)
		if len(figures) != 1 {
			t.Fatalf("%q: read %d figures, want one", tc.text, len(figures))
		}
		if got := figures[0].Held(quantities); got != tc.want {
			t.Errorf("%q held: %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestRecordedQuantities(t *testing.T) {
	out := OutputQuantities([]byte("goos: linux\nBenchmarkX-2  1  5 ns/op  6.5 cpu-µs/object  7 floor-p50-ms  8 peak-RSS-MiB  9 B/op  10 allocs/op  11 objects/s  12 cpu-s/op\n"))
	want := []Quantity{{5, "ns"}, {6.5, "µs"}, {7, "ms"}, {8, "MiB"}, {9, "B"}, {10, ""}, {11, "objects/s"}, {12, "s"}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("OutputQuantities (-want +got):\n%s", diff)
	}
	fromJSON, err := JSONQuantities([]byte(`{"rounds": 5, "serving": [{"cpuNanoseconds": 192369, "peakRSSBytes": 59404288, "server": "admit"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []Quantity{{5, ""}, {192369, "ns"}, {59404288, "B"}} {
		found := false
		for _, got := range fromJSON {
			found = found || got == q
		}
		if !found {
			t.Errorf("JSONQuantities: no %v in %v", q, fromJSON)
		}
	}
}
