package report

import (
	"strings"
	"testing"
	"time"

	"github.com/admitkit/admit/bench/suite"
	"github.com/admitkit/admit/bench/usage"
)

// results are two rounds in which admit serves 3× controller-runtime's throughput at 0.2× its
// CPU and 0.5× the hand-written server's, and its dispatcher spends 0.25× the apiserver plugins'
// CPU once the input copy is subtracted.
func results() *suite.Results {
	cfg := suite.Full()
	serving := func(server string, round int, throughput float64, cpu time.Duration) suite.ServingSample {
		return suite.ServingSample{Server: server, Round: round, Throughput: throughput, Requests: 1000,
			PerRequest: usage.PerOp{CPU: cpu, Allocs: 100, AllocBytes: 2048}, Rate: 1000, RateAchieved: 999,
			P50: 800 * time.Microsecond, P99: 3 * time.Millisecond, PeakRSS: 40 << 20, Load1: 3}
	}
	dispatch := func(name string, round int, cpu time.Duration, allocs float64) suite.DispatchSample {
		return suite.DispatchSample{Dispatcher: name, Round: round, Admissions: 3000, Elapsed: 3 * time.Second,
			PerAdmission: usage.PerOp{CPU: cpu, Allocs: allocs, AllocBytes: 100 << 10}, WebhookCPU: time.Millisecond, Load1: 3}
	}
	r := &suite.Results{
		Machine: usage.Machine{CPUs: 2, CPUModel: "Test CPU", GoVersion: "go1.26.8", OS: "linux", Arch: "amd64"},
		Command: "make bench", Started: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC), Rounds: 2, Config: cfg,
		LoadStart: 2.5, LoadEnd: 3.5,
	}
	for round := 1; round <= 2; round++ {
		r.Serving = append(r.Serving,
			serving("admit", round, 3000, 120*time.Microsecond),
			serving("hand-written", round, 1500, 240*time.Microsecond),
			serving("controller-runtime", round, 1000, 600*time.Microsecond),
			serving("floor", round, 6000, 100*time.Microsecond))
		r.Dispatch = append(r.Dispatch,
			dispatch(suite.DispatcherAdmit, round, 250*time.Microsecond, 500),
			dispatch(suite.DispatcherAPIServer, round, 1010*time.Microsecond, 1100),
			dispatch(suite.DispatcherInputCopy, round, 10*time.Microsecond, 100))
	}
	return r
}

func TestBuild(t *testing.T) {
	lat := &Latency{Creates: 2000, Runs: 1, Variants: []LatencyVariant{
		{Name: "floor", P50: 2.2, P99: 3}, {Name: "mutating", P50: 2.4, P99: 4}, {Name: "none", P50: 1.6, P99: 2.5}}}
	review := &Review{Variants: []ReviewVariant{
		{Objects: 1000, Webhook: "none", Runs: 3, ObjectsPerSecond: 2000, CPUPerObject: 900, PeakRSS: 130, LoadMin: 1, LoadMax: 2, PerRun: []float64{1900, 2000, 2100}},
		{Objects: 10000, Webhook: "none", Runs: 3, ObjectsPerSecond: 2600, CPUPerObject: 700, PeakRSS: 400, LoadMin: 1, LoadMax: 2, PerRun: []float64{2500, 2600, 2700}},
		{Objects: 10000, Webhook: "one", Runs: 3, ObjectsPerSecond: 1200, CPUPerObject: 1500, PeakRSS: 500, LoadMin: 1, LoadMax: 2, PerRun: []float64{1200, 1100, 1300}},
	}}
	rep, err := Build(Input{Results: results(), Latency: lat, Review: review, Binary: &Binary{Bytes: 76_600_000, GoVersion: "go1.26.8", Modules: 140,
		Settings: []string{"-tags=grpcnotrace", "-ldflags=-s -w"}}})
	if err != nil {
		t.Fatal(err)
	}
	for section, wants := range map[string][]string{
		SectionRun: {"`nproc` 2, `Test CPU`, linux/amd64; Go 1.26.8", "2026-03-02 10:00 UTC, 2 rounds", "3.0–3.0 while phases ran", "`make bench`"},
		SectionServing: {
			"| admit | 3000 | 3.00× | 0.800 ms | 3.00 ms | 120 µs | 0.500× | 0.200× | 100 | 2.00 KiB | 40.0 MiB |",
			"| controller-runtime | 1000 | 1.00× |",
			"| hand-written | 1500 | 1.50× |",
			"CPU goal against the hand-written server (≤ 0.300×): **missed** — 0.500× (rounds: 0.500×, 0.500×)",
			"CPU goal against controller-runtime (≤ 0.200×): **met** — 0.200×",
			"Throughput goal (≥ 2.0× controller-runtime): **met** — 3.00×",
			"](../bench/results/serving-throughput.svg)",
		},
		SectionDispatch: {
			"| admit `dispatch` | 250 µs | 0.250× | 500 |",
			"| k8s.io/apiserver plugins | 1000 µs | 1× | 1000 |",
			"measured alone: 10.0 µs, 100 allocations",
			"CPU goal (≤ 0.270× the apiserver's CPU per admission): **met** — 0.250×",
		},
		SectionGoals: {
			"| Serving CPU per request | ≤ 0.300× the hand-written server's | 0.500× | **missed** |",
			"| Serving CPU per request | ≤ 0.200× controller-runtime's | 0.200× | **met** |",
			"| Serving throughput | ≥ 2.00× controller-runtime's | 3.00× | **met** |",
			"| Dispatcher CPU per admission | ≤ 0.270× the apiserver plugins' | 0.250× | **met** |",
			"| Latency a mutating webhook adds to a write, p50 | < 1.00 ms | +0.800 ms | **met** |",
			"| Latency admit's mutating webhook adds, p50 | ≤ 1.15× the floor webhook's | 1.33× | **missed** |",
			"| Review CPU per object, no webhook | ≤ 0.500× the apiserver's per dry-run object | – | **not measured** |",
			"| Review CPU per object, one webhook over none | ≤ 1.30× | – | **not measured** |",
			"| Release binary size | ≤ 80.0 MB stripped | 76.6 MB | **met** |",
		},
		SectionLatency: {
			"| none | 1.60 ms | 2.50 ms | | | |\n| floor | 2.20 ms | 3.00 ms | +0.600 ms | +0.500 ms | 1.00× |\n| mutating | 2.40 ms | 4.00 ms | +0.800 ms | +1.50 ms | 1.33× |",
			"Latency goal (< 1.00 ms added at p50 by a mutating webhook): **met** — +0.800 ms",
			"Against the floor webhook (admit's added p50 ≤ 1.15× the floor's): **missed** — 1.33× (+0.800 ms against +0.600 ms)",
		},
		SectionReview: {
			"| no webhook | 1000 | 2000 | 900 µs | 130 MiB | 1900, 2000, 2100 | 1.0–2.0 |",
			"| one webhook | 10000 | 1200 | 1500 µs | 500 MiB |",
			"The review's goals are ratios to kube-apiserver's CPU per object",
			"on all 2 cores",
		},
		SectionSize: {"`-tags=grpcnotrace`, `-ldflags=-s -w`", "140 modules: **76.6 MB**", "**met** — 76.6 MB"},
	} {
		for _, want := range wants {
			if !strings.Contains(rep.Sections[section], want) {
				t.Errorf("section %s lacks %q:\n%s", section, want, rep.Sections[section])
			}
		}
	}
	for _, name := range []string{"serving-throughput.svg", "serving-cpu.svg", "serving-latency.svg", "dispatch-cpu.svg", "e2e-latency.svg", "review-throughput.svg", "review-memory.svg"} {
		if !strings.HasPrefix(string(rep.Charts[name]), "<svg") {
			t.Errorf("chart %s missing", name)
		}
	}
}

func TestBuildReportsMissedGoals(t *testing.T) {
	r := results()
	for i := range r.Serving {
		if r.Serving[i].Server == "admit" {
			r.Serving[i].Throughput = 1500
			r.Serving[i].PerRequest.CPU = 300 * time.Microsecond
		}
	}
	rep, err := Build(Input{Results: r})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Throughput goal (≥ 2.0× controller-runtime): **missed** — 1.50×", "CPU goal against the hand-written server (≤ 0.300×): **missed** — 1.25×",
		"CPU goal against controller-runtime (≤ 0.200×): **missed** — 0.500×"} {
		if !strings.Contains(rep.Sections[SectionServing], want) {
			t.Errorf("serving section lacks %q:\n%s", want, rep.Sections[SectionServing])
		}
	}
	for _, section := range []string{SectionLatency, SectionReview, SectionSize} {
		if !strings.Contains(rep.Sections[section], "Not measured in this run") {
			t.Errorf("section %s without its results: %s", section, rep.Sections[section])
		}
	}
	for _, want := range []string{"| Serving throughput | ≥ 2.00× controller-runtime's | 1.50× | **missed** |", "| < 1.00 ms | – | **not measured** |",
		"| Release binary size | ≤ 80.0 MB stripped | – | **not measured** |"} {
		if !strings.Contains(rep.Sections[SectionGoals], want) {
			t.Errorf("goals section lacks %q:\n%s", want, rep.Sections[SectionGoals])
		}
	}
}

func TestBuildNeedsABaselineLatency(t *testing.T) {
	lat := &Latency{Creates: 10, Runs: 1, Variants: []LatencyVariant{{Name: "mutating", P50: 2}}}
	if _, err := Build(Input{Results: results(), Latency: lat}); err == nil || !strings.Contains(err.Error(), `no "none" variant`) {
		t.Errorf("got %v, want an error saying the baseline is missing", err)
	}
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {0.0123, "0.0123"}, {0.8, "0.800"}, {1, "1.00"}, {2.25, "2.25"}, {44.7, "44.7"},
		{120, "120"}, {1460, "1460"}, {12261, "12300"}, {-0.5, "-0.500"},
	} {
		if got := num(tc.in); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
