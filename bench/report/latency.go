package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/admitkit/admit/bench/chart"
)

// LatencyBenchmark is the name of the end-to-end benchmark in test/e2e whose output ParseLatency
// reads.
const LatencyBenchmark = "BenchmarkWebhookLatency"

// Latency is what the end-to-end benchmark measured: for each variant (no webhook, admit's
// webhooks), the p50 and p99 of ConfigMap creates through a real kube-apiserver.
type Latency struct {
	// Creates is the number of creates per variant, per run.
	Creates int
	// Runs is how many benchmark lines were read; the figures are their medians.
	Runs     int
	Variants []LatencyVariant
}

// LatencyVariant is one configuration of webhooks.
type LatencyVariant struct {
	Name     string
	P50, P99 float64 // milliseconds
}

// ParseLatency reads Go benchmark output (`go test -bench WebhookLatency`) and returns the
// median of each metric reported as "<variant>-p50-ms" or "<variant>-p99-ms" over the
// benchmark's result lines, variants in the order they first appear.
func ParseLatency(output []byte) (*Latency, error) {
	values := map[string][]float64{}
	var order []string
	lat := &Latency{}
	matches := func(name string) bool { return strings.HasPrefix(name, LatencyBenchmark) }
	_, err := eachResult(output, matches, func(line int, text string, fields []string) error {
		if len(fields)%2 != 0 {
			return fmt.Errorf("line %d: metrics are not value-unit pairs: %q", line, text)
		}
		lat.Runs++
		lat.Creates, _ = strconv.Atoi(fields[1]) // an iteration count: eachResult read it
		for i := 2; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return fmt.Errorf("line %d: metric %s: %w", line, fields[i+1], err)
			}
			unit := fields[i+1]
			if _, seen := values[unit]; !seen {
				order = append(order, unit)
			}
			values[unit] = append(values[unit], v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if lat.Runs == 0 {
		return nil, fmt.Errorf("no %s result line found", LatencyBenchmark)
	}
	index := map[string]int{}
	for _, unit := range order {
		variant, ok := strings.CutSuffix(unit, "-p50-ms")
		isP50 := ok
		if !ok {
			if variant, ok = strings.CutSuffix(unit, "-p99-ms"); !ok {
				continue // ns/op and other metrics
			}
		}
		i, seen := index[variant]
		if !seen {
			i = len(lat.Variants)
			index[variant] = i
			lat.Variants = append(lat.Variants, LatencyVariant{Name: variant})
		}
		if isP50 {
			lat.Variants[i].P50 = median(values[unit])
		} else {
			lat.Variants[i].P99 = median(values[unit])
		}
	}
	if len(lat.Variants) == 0 {
		return nil, fmt.Errorf("%s reported no <variant>-p50-ms metric", LatencyBenchmark)
	}
	return lat, nil
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
