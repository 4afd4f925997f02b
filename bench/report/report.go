package report

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/admitkit/admit/bench/chart"
	"github.com/admitkit/admit/bench/servers"
	"github.com/admitkit/admit/bench/suite"
)

// Goals the issues set; the report says which are met.
const (
	// GoalThroughputVsControllerRuntime: admit serves at least this many times controller-runtime's
	// maximum throughput.
	GoalThroughputVsControllerRuntime = 2.0
	// GoalCPUVsHandwritten: admit spends at most this many times the CPU per request of the
	// server a careful engineer writes without a framework.
	GoalCPUVsHandwritten = 1.0
	// GoalCPUVsControllerRuntime: admit spends at most this fraction of controller-runtime's CPU
	// per request.
	GoalCPUVsControllerRuntime = 0.25
	// GoalDispatchCPUVsAPIServer: admit's dispatcher spends at most this fraction of the apiserver
	// plugins' CPU per admission.
	GoalDispatchCPUVsAPIServer = 0.3
	// GoalAddedP50: admit's mutating webhook adds less than this to a write's p50, in ms.
	GoalAddedP50 = 1.0
	// GoalAddedP50VsFloor: what admit's mutating webhook adds to a write's p50 is at most this many
	// times what the floor webhook adds.
	GoalAddedP50VsFloor = 1.2
	// GoalReviewObjectsPerSecond: a review of 10,000 objects through the whole chain runs at
	// least this many objects per second on the machine's cores.
	GoalReviewObjectsPerSecond = 2500
	// GoalBinaryMB: the release binary, stripped, is at most this many megabytes (10^6 bytes).
	GoalBinaryMB = 80
)

// Input is what a report is built from. Latency (it needs a real kube-apiserver), Review and
// Binary come from `make bench`'s other steps and are optional.
type Input struct {
	Results *suite.Results
	Latency *Latency
	Review  *Review
	Binary  *Binary
	// Linking is what the linker kept (needs Binary).
	Linking *Linking
	// ChartPath is how the docs page links to the charts; default "../bench/results/".
	ChartPath string
}

// Report is the generated text of each section of the docs page, and the SVG charts by file name.
type Report struct {
	Sections map[string]string
	Charts   map[string][]byte
	// goals collects each goal's outcome as the sections are built, for SectionGoals.
	goals []goal
}

// goal is one of the targets and what this run measured for it.
type goal struct {
	what, target, measured string
	// status is "met", "missed" or "not measured".
	status string
}

func (r *Report) addGoal(what, target, measured string, met bool) {
	r.goals = append(r.goals, goal{what: what, target: target, measured: measured, status: metOrMissed(met)})
}

// Section names, as in the page's markers.
const (
	SectionGoals    = "goals"
	SectionRun      = "run"
	SectionServing  = "serving"
	SectionDispatch = "dispatch"
	SectionLatency  = "latency"
	SectionReview   = "review"
	SectionSize     = "size"
)

// Build renders every section and chart.
func Build(in Input) (*Report, error) {
	if in.Results == nil {
		return nil, errors.New("report: no results")
	}
	if in.ChartPath == "" {
		in.ChartPath = "../bench/results/"
	}
	rep := &Report{Sections: map[string]string{}, Charts: map[string][]byte{}}
	rep.Sections[SectionRun] = runSection(in.Results)
	for _, build := range []func(Input, *Report) error{servingSection, dispatchSection, latencySection, reviewSection, sizeSection} {
		if err := build(in, rep); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	rep.Sections[SectionGoals] = goalsSection(rep.goals)
	return rep, nil
}

func goalsSection(goals []goal) string {
	var b strings.Builder
	b.WriteString("| Goal | Target | Measured | |\n|---|---|---:|---|\n")
	for _, g := range goals {
		fmt.Fprintf(&b, "| %s | %s | %s | **%s** |\n", g.what, g.target, g.measured, g.status)
	}
	return b.String()
}

func runSection(r *suite.Results) string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "- Machine: `nproc` %d, `%s`, %s/%s; Go %s.\n", m.CPUs, m.CPUModel, m.OS, m.Arch, strings.TrimPrefix(m.GoVersion, "go"))
	lo, hi := loadRange(r)
	fmt.Fprintf(&b, "- Run: %s, %s. One-minute load average %.1f at the start and %.1f at the end, %.1f–%.1f while phases ran: the machine was shared, so CPU is read from the processes (getrusage), not inferred from wall time.\n",
		r.Started.UTC().Format("2006-01-02 15:04 MST"), plural(r.Rounds, "round"), r.LoadStart, r.LoadEnd, lo, hi)
	fmt.Fprintf(&b, "- Command: `%s` (from the repository root). Every sample is in [`bench/results/results.json`](../bench/results/results.json).\n", r.Command)
	return b.String()
}

func loadRange(r *suite.Results) (lo, hi float64) {
	var loads []float64
	for _, s := range r.Serving {
		loads = append(loads, s.Load1)
	}
	for _, s := range r.Dispatch {
		loads = append(loads, s.Load1)
	}
	if len(loads) == 0 {
		return 0, 0
	}
	return slices.Min(loads), slices.Max(loads)
}

// servingSummary holds one server's medians over rounds.
type servingSummary struct {
	throughput, cpuMicros, allocs, allocKiB, p50ms, p99ms, rateAchieved, rateCPUMicros float64
	peakRSSMiB                                                                         float64
}

func summarizeServing(samples []suite.ServingSample, server string) servingSummary {
	var s servingSummary
	pick := func(f func(suite.ServingSample) float64) float64 {
		var v []float64
		for _, x := range samples {
			if x.Server == server {
				v = append(v, f(x))
			}
		}
		return median(v)
	}
	s.throughput = pick(func(x suite.ServingSample) float64 { return x.Throughput })
	s.cpuMicros = pick(func(x suite.ServingSample) float64 { return micros(x.PerRequest.CPU) })
	s.allocs = pick(func(x suite.ServingSample) float64 { return x.PerRequest.Allocs })
	s.allocKiB = pick(func(x suite.ServingSample) float64 { return x.PerRequest.AllocBytes / 1024 })
	s.p50ms = pick(func(x suite.ServingSample) float64 { return millis(x.P50) })
	s.p99ms = pick(func(x suite.ServingSample) float64 { return millis(x.P99) })
	s.rateAchieved = pick(func(x suite.ServingSample) float64 { return x.RateAchieved })
	s.rateCPUMicros = pick(func(x suite.ServingSample) float64 { return micros(x.RateCPU) })
	for _, x := range samples {
		if x.Server == server {
			s.peakRSSMiB = max(s.peakRSSMiB, float64(x.PeakRSS)/(1<<20))
		}
	}
	return s
}

// servingRatio is the median over rounds of value(num)/value(den) within each round.
func servingRatio(samples []suite.ServingSample, num, den servers.Kind, value func(suite.ServingSample) float64) float64 {
	return median(roundRatios(samples, num, den, value))
}

// roundRatios are value(num)/value(den) of each round, in round order.
func roundRatios(samples []suite.ServingSample, num, den servers.Kind, value func(suite.ServingSample) float64) []float64 {
	byRound := map[int]map[string]float64{}
	for _, s := range samples {
		if byRound[s.Round] == nil {
			byRound[s.Round] = map[string]float64{}
		}
		byRound[s.Round][s.Server] = value(s)
	}
	rounds := slices.Sorted(maps.Keys(byRound))
	var ratios []float64
	for _, round := range rounds {
		values := byRound[round]
		n, okN := values[string(num)]
		d, okD := values[string(den)]
		if okN && okD && d > 0 {
			ratios = append(ratios, n/d)
		}
	}
	return ratios
}

func servingSection(in Input, rep *Report) error {
	r := in.Results
	if len(r.Serving) == 0 {
		rep.Sections[SectionServing] = "Not measured in this run."
		rep.goals = append(rep.goals, goal{what: "Serving", target: "see below", measured: "–", status: "not measured"})
		return nil
	}
	cfg := r.Config.Serving
	kinds := servers.Kinds()
	sums := map[servers.Kind]servingSummary{}
	for _, k := range kinds {
		sums[k] = summarizeServing(r.Serving, string(k))
	}
	throughput := func(s suite.ServingSample) float64 { return s.Throughput }
	cpu := func(s suite.ServingSample) float64 { return float64(s.PerRequest.CPU) }
	vsCR := servingRatio(r.Serving, servers.Admit, servers.ControllerRuntime, throughput)
	cpuVsHandwritten := servingRatio(r.Serving, servers.Admit, servers.Handwritten, cpu)
	cpuVsCR := servingRatio(r.Serving, servers.Admit, servers.ControllerRuntime, cpu)

	var b strings.Builder
	fmt.Fprintf(&b, "Load: %d keep-alive TLS connections (HTTP/1.1) from a Go client on loopback; maximum throughput over %s per server per round (at most %d requests), then %s at a fixed %.0f requests/s for latency. Medians of %s; ratios are medians of the ratios within each round.\n\n",
		cfg.Connections, cfg.MaxDuration, cfg.MaxRequests, cfg.RateDuration, cfg.Rate, plural(r.Rounds, "round"))
	b.WriteString("| Server | Max req/s | vs controller-runtime | p50 at rate | p99 at rate | CPU per request | vs hand-written | vs controller-runtime | Allocs per request | Allocated per request | Peak RSS |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range kinds {
		s := sums[k]
		fmt.Fprintf(&b, "| %s | %s | %s | %s ms | %s ms | %s µs | %s | %s | %s | %s KiB | %s MiB |\n",
			k, num(s.throughput), ratio(servingRatio(r.Serving, k, servers.ControllerRuntime, throughput)), num(s.p50ms), num(s.p99ms),
			num(s.cpuMicros), ratio(servingRatio(r.Serving, k, servers.Handwritten, cpu)), ratio(servingRatio(r.Serving, k, servers.ControllerRuntime, cpu)),
			num(s.allocs), num(s.allocKiB), num(s.peakRSSMiB))
	}
	fmt.Fprintf(&b, "\nRates actually held in the fixed-rate phase (median): %s req/s. CPU per request at that rate: %s.\n",
		joinKinds(kinds, func(k servers.Kind) string { return num(sums[k].rateAchieved) }),
		joinKinds(kinds, func(k servers.Kind) string { return num(sums[k].rateCPUMicros) + " µs" }))
	cpuRounds := func(den servers.Kind) string {
		var v []string
		for _, x := range roundRatios(r.Serving, servers.Admit, den, cpu) {
			v = append(v, ratio(x))
		}
		return strings.Join(v, ", ")
	}
	fmt.Fprintf(&b, "\n- CPU goal against the hand-written server (≤ %s×): **%s** — %s (rounds: %s).\n", num(GoalCPUVsHandwritten),
		metOrMissed(cpuVsHandwritten > 0 && cpuVsHandwritten <= GoalCPUVsHandwritten), ratio(cpuVsHandwritten), cpuRounds(servers.Handwritten))
	fmt.Fprintf(&b, "- CPU goal against controller-runtime (≤ %s×): **%s** — %s (rounds: %s).\n", num(GoalCPUVsControllerRuntime),
		metOrMissed(cpuVsCR > 0 && cpuVsCR <= GoalCPUVsControllerRuntime), ratio(cpuVsCR), cpuRounds(servers.ControllerRuntime))
	fmt.Fprintf(&b, "- Throughput goal (≥ %.1f× controller-runtime): **%s** — %s.\n", GoalThroughputVsControllerRuntime,
		metOrMissed(vsCR >= GoalThroughputVsControllerRuntime), ratio(vsCR))
	rep.addGoal("Serving CPU per request", fmt.Sprintf("≤ %s× the hand-written server's", num(GoalCPUVsHandwritten)), ratio(cpuVsHandwritten),
		cpuVsHandwritten > 0 && cpuVsHandwritten <= GoalCPUVsHandwritten)
	rep.addGoal("Serving CPU per request", fmt.Sprintf("≤ %s× controller-runtime's", num(GoalCPUVsControllerRuntime)), ratio(cpuVsCR),
		cpuVsCR > 0 && cpuVsCR <= GoalCPUVsControllerRuntime)
	rep.addGoal("Serving throughput", fmt.Sprintf("≥ %s× controller-runtime's", num(GoalThroughputVsControllerRuntime)), ratio(vsCR),
		vsCR >= GoalThroughputVsControllerRuntime)
	fmt.Fprintf(&b, "\n![CPU per request](%sserving-cpu.svg)\n![Maximum throughput](%sserving-throughput.svg)\n![Latency at a fixed rate](%sserving-latency.svg)\n",
		in.ChartPath, in.ChartPath, in.ChartPath)
	rep.Sections[SectionServing] = b.String()

	labels := make([]string, len(kinds))
	for i, k := range kinds {
		labels[i] = string(k)
	}
	values := func(f func(servingSummary) float64) []float64 {
		out := make([]float64, len(kinds))
		for i, k := range kinds {
			out[i] = f(sums[k])
		}
		return out
	}
	charts := map[string]chart.Bars{
		"serving-throughput.svg": {Title: "Maximum throughput (higher is better)", Unit: "requests per second", Categories: labels,
			Series: []chart.Series{{Name: "req/s", Values: values(func(s servingSummary) float64 { return s.throughput })}}, Format: num},
		"serving-cpu.svg": {Title: "Server CPU time per request (lower is better)", Unit: "microseconds", Categories: labels,
			Series: []chart.Series{{Name: "µs", Values: values(func(s servingSummary) float64 { return s.cpuMicros })}}, Format: num},
		"serving-latency.svg": {Title: fmt.Sprintf("Latency at %.0f requests/s (lower is better)", cfg.Rate), Unit: "milliseconds", Categories: labels,
			Series: []chart.Series{
				{Name: "p50", Values: values(func(s servingSummary) float64 { return s.p50ms })},
				{Name: "p99", Values: values(func(s servingSummary) float64 { return s.p99ms })},
			}, Format: num},
	}
	return renderCharts(rep, charts)
}

// dispatchSummary holds one dispatcher's medians over rounds.
type dispatchSummary struct{ cpuMicros, allocs, allocKiB, webhookMicros, perSecond float64 }

func dispatchSection(in Input, rep *Report) error {
	r := in.Results
	if len(r.Dispatch) == 0 {
		rep.Sections[SectionDispatch] = "Not measured in this run."
		rep.goals = append(rep.goals, goal{what: "Dispatcher CPU per admission", target: "see below", measured: "–", status: "not measured"})
		return nil
	}
	// Per round: the apiserver's figures less the input copy, then the ratio to admit.
	type round struct{ admit, apiserver, copy suite.DispatchSample }
	rounds := map[int]*round{}
	for _, s := range r.Dispatch {
		if rounds[s.Round] == nil {
			rounds[s.Round] = &round{}
		}
		switch s.Dispatcher {
		case suite.DispatcherAdmit:
			rounds[s.Round].admit = s
		case suite.DispatcherAPIServer:
			rounds[s.Round].apiserver = s
		case suite.DispatcherInputCopy:
			rounds[s.Round].copy = s
		}
	}
	var admit, apiserver, copies []dispatchSummary
	var cpuRatios, allocRatios []float64
	for _, rd := range rounds {
		a := summarizeDispatch(rd.admit)
		c := summarizeDispatch(rd.copy)
		p := summarizeDispatch(rd.apiserver)
		p.cpuMicros -= c.cpuMicros
		p.allocs -= c.allocs
		p.allocKiB -= c.allocKiB
		admit, apiserver, copies = append(admit, a), append(apiserver, p), append(copies, c)
		if p.cpuMicros > 0 {
			cpuRatios = append(cpuRatios, a.cpuMicros/p.cpuMicros)
		}
		if p.allocs > 0 {
			allocRatios = append(allocRatios, a.allocs/p.allocs)
		}
	}
	a, p, c := medianDispatch(admit), medianDispatch(apiserver), medianDispatch(copies)
	cpuRatio, allocRatio := median(cpuRatios), median(allocRatios)
	cfg := r.Config.Dispatch

	var b strings.Builder
	fmt.Fprintf(&b, "One admission: a CREATE of the Pod through one mutating webhook (label and sidecar) and two validating webhooks, all admit webhooks in another process on loopback over TLS. %d admissions in flight, %d per phase; medians of %s. CPU and allocations are the dispatching process's.\n\n",
		cfg.Concurrency, cfg.Admissions, plural(r.Rounds, "round"))
	b.WriteString("| Dispatcher | CPU per admission | vs apiserver | Allocs per admission | Allocated per admission | Admissions/s | Webhook server CPU per admission |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| admit `dispatch` | %s µs | %s | %s | %s KiB | %s | %s µs |\n", num(a.cpuMicros), ratio(cpuRatio), num(a.allocs), num(a.allocKiB), num(a.perSecond), num(a.webhookMicros))
	fmt.Fprintf(&b, "| k8s.io/apiserver plugins | %s µs | 1× | %s | %s KiB | %s | %s µs |\n", num(p.cpuMicros), num(p.allocs), num(p.allocKiB), num(p.perSecond), num(p.webhookMicros))
	fmt.Fprintf(&b, "\nThe apiserver row excludes the DeepCopy of the input Pod its loop makes before each admission (measured alone: %s µs, %s allocations, %s KiB). Allocations: admit makes %s the plugins' count.\n",
		num(c.cpuMicros), num(c.allocs), num(c.allocKiB), ratio(allocRatio))
	fmt.Fprintf(&b, "\n- CPU goal (≤ %s× the apiserver's CPU per admission): **%s** — %s.\n", num(GoalDispatchCPUVsAPIServer),
		metOrMissed(cpuRatio > 0 && cpuRatio <= GoalDispatchCPUVsAPIServer), ratio(cpuRatio))
	rep.addGoal("Dispatcher CPU per admission", fmt.Sprintf("≤ %s× the apiserver plugins'", num(GoalDispatchCPUVsAPIServer)), ratio(cpuRatio),
		cpuRatio > 0 && cpuRatio <= GoalDispatchCPUVsAPIServer)
	fmt.Fprintf(&b, "\n![CPU per admission](%sdispatch-cpu.svg)\n", in.ChartPath)
	rep.Sections[SectionDispatch] = b.String()

	return renderCharts(rep, map[string]chart.Bars{
		"dispatch-cpu.svg": {Title: "Dispatcher CPU time per admission (lower is better)", Unit: "microseconds",
			Categories: []string{"admit dispatch", "apiserver plugins"},
			Series: []chart.Series{
				{Name: "dispatcher", Values: []float64{a.cpuMicros, p.cpuMicros}},
				{Name: "webhook server (3 calls)", Values: []float64{a.webhookMicros, p.webhookMicros}},
			}, Format: num},
	})
}

func summarizeDispatch(s suite.DispatchSample) dispatchSummary {
	d := dispatchSummary{
		cpuMicros:     micros(s.PerAdmission.CPU),
		allocs:        s.PerAdmission.Allocs,
		allocKiB:      s.PerAdmission.AllocBytes / 1024,
		webhookMicros: micros(s.WebhookCPU),
	}
	if s.Elapsed > 0 {
		d.perSecond = float64(s.Admissions) / s.Elapsed.Seconds()
	}
	return d
}

func medianDispatch(ds []dispatchSummary) dispatchSummary {
	field := func(f func(dispatchSummary) float64) float64 {
		v := make([]float64, len(ds))
		for i, d := range ds {
			v[i] = f(d)
		}
		return median(v)
	}
	return dispatchSummary{
		cpuMicros:     field(func(d dispatchSummary) float64 { return d.cpuMicros }),
		allocs:        field(func(d dispatchSummary) float64 { return d.allocs }),
		allocKiB:      field(func(d dispatchSummary) float64 { return d.allocKiB }),
		webhookMicros: field(func(d dispatchSummary) float64 { return d.webhookMicros }),
		perSecond:     field(func(d dispatchSummary) float64 { return d.perSecond }),
	}
}

// latencyBaseline is the variant without webhooks the others are compared with.
const latencyBaseline = "none"

// latencyGoalVariant is the variant the latency goals are about: admit's mutating webhook.
const latencyGoalVariant = "mutating"

// latencyFloor is the variant through the floor webhook, which answers a precomputed patch:
// what any mutating webhook costs the apiserver.
const latencyFloor = "floor"

func latencySection(in Input, rep *Report) error {
	lat := in.Latency
	if lat == nil {
		rep.Sections[SectionLatency] = "Not measured in this run (it needs a real kube-apiserver: `make bench` runs it)."
		rep.goals = append(rep.goals, goal{what: "Latency a mutating webhook adds to a write, p50", target: fmt.Sprintf("< %s ms", num(GoalAddedP50)),
			measured: "–", status: "not measured"})
		return nil
	}
	byName := map[string]*LatencyVariant{}
	for i := range lat.Variants {
		byName[lat.Variants[i].Name] = &lat.Variants[i]
	}
	base := byName[latencyBaseline]
	if base == nil {
		return fmt.Errorf("the latency benchmark has no %q variant to compare with", latencyBaseline)
	}
	floor := byName[latencyFloor]
	// The baseline first, then the others in the order the benchmark reported them.
	variants := slices.Clone(lat.Variants)
	slices.SortStableFunc(variants, func(x, y LatencyVariant) int {
		return boolRank(y.Name == latencyBaseline) - boolRank(x.Name == latencyBaseline)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d ConfigMap creates per variant, the variants interleaved, one create at a time, through a real kube-apiserver and etcd on loopback (medians over %s).\n\n", lat.Creates, plural(lat.Runs, "run"))
	b.WriteString("| Webhooks | p50 | p99 | added at p50 | added at p99 | added at p50 vs the floor's |\n|---|---:|---:|---:|---:|---:|\n")
	var lines []string
	for _, v := range variants {
		added50, added99 := v.P50-base.P50, v.P99-base.P99
		if v.Name == latencyBaseline {
			fmt.Fprintf(&b, "| %s | %s ms | %s ms | | | |\n", v.Name, num(v.P50), num(v.P99))
			continue
		}
		vsFloor := ""
		if floor != nil && floor.P50 > base.P50 {
			vsFloor = ratio(added50 / (floor.P50 - base.P50))
		}
		fmt.Fprintf(&b, "| %s | %s ms | %s ms | %s ms | %s ms | %s |\n", v.Name, num(v.P50), num(v.P99), signed(added50), signed(added99), vsFloor)
		if v.Name != latencyGoalVariant {
			continue
		}
		lines = append(lines, fmt.Sprintf("- Latency goal (< %s ms added at p50 by a mutating webhook): **%s** — %s ms.",
			num(GoalAddedP50), metOrMissed(added50 < GoalAddedP50), signed(added50)))
		rep.addGoal("Latency a mutating webhook adds to a write, p50", fmt.Sprintf("< %s ms", num(GoalAddedP50)), signed(added50)+" ms",
			added50 < GoalAddedP50)
		if floor == nil {
			continue
		}
		floorAdded := floor.P50 - base.P50
		r := 0.0
		if floorAdded > 0 {
			r = added50 / floorAdded
		}
		lines = append(lines, fmt.Sprintf("- Against the floor webhook (admit's added p50 ≤ %s× the floor's): **%s** — %s (%s ms against %s ms).",
			num(GoalAddedP50VsFloor), metOrMissed(r > 0 && r <= GoalAddedP50VsFloor), ratio(r), signed(added50), signed(floorAdded)))
		rep.addGoal("Latency admit's mutating webhook adds, p50", fmt.Sprintf("≤ %s× the floor webhook's", num(GoalAddedP50VsFloor)), ratio(r),
			r > 0 && r <= GoalAddedP50VsFloor)
	}
	if len(lines) == 0 {
		lines = append(lines, fmt.Sprintf("- Latency goal (< %s ms added at p50 by a mutating webhook): not measured.", num(GoalAddedP50)))
	}
	fmt.Fprintf(&b, "\n%s\n", strings.Join(lines, "\n"))
	fmt.Fprintf(&b, "\n![Write latency](%se2e-latency.svg)\n", in.ChartPath)
	rep.Sections[SectionLatency] = b.String()

	names := make([]string, len(variants))
	p50s := make([]float64, len(variants))
	p99s := make([]float64, len(variants))
	for i, v := range variants {
		names[i], p50s[i], p99s[i] = v.Name, v.P50, v.P99
	}
	return renderCharts(rep, map[string]chart.Bars{
		"e2e-latency.svg": {Title: "ConfigMap create latency through kube-apiserver (lower is better)", Unit: "milliseconds",
			Categories: names, Series: []chart.Series{{Name: "p50", Values: p50s}, {Name: "p99", Values: p99s}}, Format: num},
	})
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func renderCharts(rep *Report, charts map[string]chart.Bars) error {
	for name, c := range charts {
		svg, err := c.SVG()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rep.Charts[name] = svg
	}
	return nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// num prints three significant digits, without exponent for the magnitudes in these tables.
func num(v float64) string {
	if v == 0 || math.IsNaN(v) {
		return "0"
	}
	digits := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	if digits < 0 {
		p := math.Pow(10, float64(-digits))
		return strconv.FormatFloat(math.Round(v/p)*p, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

func signed(v float64) string {
	if v > 0 {
		return "+" + num(v)
	}
	return num(v)
}

func ratio(v float64) string {
	if v == 0 {
		return "–"
	}
	return num(v) + "×"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func metOrMissed(met bool) string {
	if met {
		return "met"
	}
	return "missed"
}

func joinKinds(kinds []servers.Kind, f func(servers.Kind) string) string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %s", k, f(k))
	}
	return strings.Join(parts, ", ")
}
