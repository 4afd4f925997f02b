package report

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
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
	sc := bufio.NewScanner(bytes.NewReader(output))
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !strings.HasPrefix(fields[0], LatencyBenchmark) {
			continue
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			continue // a log line that starts with the name, not a result
		}
		if len(fields)%2 != 0 {
			return nil, fmt.Errorf("line %d: metrics are not value-unit pairs: %q", line, sc.Text())
		}
		lat.Runs++
		lat.Creates = n
		for i := 2; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: metric %s: %w", line, fields[i+1], err)
			}
			unit := fields[i+1]
			if _, seen := values[unit]; !seen {
				order = append(order, unit)
			}
			values[unit] = append(values[unit], v)
		}
	}
	if err := sc.Err(); err != nil {
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
