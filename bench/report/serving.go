package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/admitkit/admit/bench/chart"
	"github.com/admitkit/admit/bench/servers"
	"github.com/admitkit/admit/bench/suite"
)

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

	return renderCharts(rep, servingCharts(kinds, sums, cfg.Rate))
}

// servingCharts are the serving section's charts: each server's throughput, CPU per request, and
// latency at the fixed rate.
func servingCharts(kinds []servers.Kind, sums map[servers.Kind]servingSummary, rate float64) map[string]chart.Bars {
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
	return map[string]chart.Bars{
		"serving-throughput.svg": {Title: "Maximum throughput (higher is better)", Unit: "requests per second", Categories: labels,
			Series: []chart.Series{{Name: "req/s", Values: values(func(s servingSummary) float64 { return s.throughput })}}, Format: num},
		"serving-cpu.svg": {Title: "Server CPU time per request (lower is better)", Unit: "microseconds", Categories: labels,
			Series: []chart.Series{{Name: "µs", Values: values(func(s servingSummary) float64 { return s.cpuMicros })}}, Format: num},
		"serving-latency.svg": {Title: fmt.Sprintf("Latency at %.0f requests/s (lower is better)", rate), Unit: "milliseconds", Categories: labels,
			Series: []chart.Series{
				{Name: "p50", Values: values(func(s servingSummary) float64 { return s.p50ms })},
				{Name: "p99", Values: values(func(s servingSummary) float64 { return s.p99ms })},
			}, Format: num},
	}
}
