package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AuditBenchmark is the name of the audit benchmark in internal/cli/audit_bench_test.go whose
// output ParseAudit reads.
const AuditBenchmark = "BenchmarkAudit100k"

// Audit is what the audit benchmark measured: `admit audit` of generated dumps of one or more
// sizes, each run in a process of its own.
type Audit struct {
	// Procs is the GOMAXPROCS the benchmark ran with (its name's suffix), 0 when not given; CPU
	// what the output says of the processor, empty when it says nothing.
	Procs int
	CPU   string
	Sizes []AuditSize
}

// AuditSize is the runs of one size of dump; the figures are medians over them.
type AuditSize struct {
	Objects int
	// Wall is the wall time of one audit; CPUSeconds the CPU time the process spent in it;
	// PeakRSS the process's peak resident memory in MiB.
	Wall             time.Duration
	ObjectsPerSecond float64
	CPUSeconds       float64
	PeakRSS          float64
	// Runs are every run, in the order they ran.
	Runs []AuditRun
}

// AuditRun is one run of the benchmark: one audit in a process of its own.
type AuditRun struct {
	Wall             time.Duration
	ObjectsPerSecond float64
	CPUSeconds       float64
	PeakRSS          float64
	// Load is the one-minute load average when the run started.
	Load float64
}

// ParseAudit reads Go benchmark output of BenchmarkAudit100k: result lines with ns/op, objects,
// objects/s, cpu-s/op, peak-RSS-MiB and load1 metrics, grouped by their objects metric.
func ParseAudit(output []byte) (*Audit, error) {
	bySize := map[int][]AuditRun{}
	var sizes []int
	procs := 0
	// The benchmark has no sub-benchmarks: BenchmarkAudit100k[-PROCS].
	matches := func(name string) bool { return name == AuditBenchmark || strings.HasPrefix(name, AuditBenchmark+"-") }
	cpu, err := eachResult(output, matches, func(line int, text string, fields []string) error {
		if len(fields)%2 != 0 {
			return fmt.Errorf("line %d: metrics are not value-unit pairs: %q", line, text)
		}
		if _, suffix, ok := strings.Cut(fields[0], "-"); ok {
			procs, _ = strconv.Atoi(suffix)
		}
		run, objects := AuditRun{}, 0
		for i := 2; i < len(fields); i += 2 {
			x, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return fmt.Errorf("line %d: metric %s: %w", line, fields[i+1], err)
			}
			switch fields[i+1] {
			case "ns/op":
				run.Wall = time.Duration(x)
			case "objects":
				objects = int(x)
			case "objects/s":
				run.ObjectsPerSecond = x
			case "cpu-s/op":
				run.CPUSeconds = x
			case "peak-RSS-MiB":
				run.PeakRSS = x
			case "load1":
				run.Load = x
			}
		}
		if objects == 0 || run.ObjectsPerSecond == 0 || run.CPUSeconds == 0 {
			return fmt.Errorf("line %d: want objects, objects/s and cpu-s/op metrics: %q", line, text)
		}
		if _, seen := bySize[objects]; !seen {
			sizes = append(sizes, objects)
		}
		bySize[objects] = append(bySize[objects], run)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("no %s result line found", AuditBenchmark)
	}
	slices.Sort(sizes)
	a := &Audit{Procs: procs, CPU: cpu}
	for _, n := range sizes {
		runs := bySize[n]
		of := func(f func(AuditRun) float64) float64 {
			v := make([]float64, len(runs))
			for i, r := range runs {
				v[i] = f(r)
			}
			return median(v)
		}
		a.Sizes = append(a.Sizes, AuditSize{Objects: n, Runs: runs,
			Wall:             time.Duration(of(func(r AuditRun) float64 { return float64(r.Wall) })),
			ObjectsPerSecond: of(func(r AuditRun) float64 { return r.ObjectsPerSecond }),
			CPUSeconds:       of(func(r AuditRun) float64 { return r.CPUSeconds }),
			PeakRSS:          of(func(r AuditRun) float64 { return r.PeakRSS }),
		})
	}
	return a, nil
}

func auditSection(in Input, rep *Report) error {
	a := in.Audit
	if a == nil {
		rep.Sections[SectionAudit] = "Not measured in this run (`make bench` runs it with `make bench-audit`)."
		return nil
	}
	var b strings.Builder
	runs := 0
	for _, s := range a.Sizes {
		runs = max(runs, len(s.Runs))
	}
	cores := "the machine's cores"
	if a.Procs > 0 {
		cores = plural(a.Procs, "core")
	}
	if a.CPU != "" {
		cores += fmt.Sprintf(" (`%s`)", a.CPU)
	}
	fmt.Fprintf(&b, "`admit audit` of each dump in a process of its own (so that its peak RSS is its own), %s; medians, with every run's figure. Wall time and objects per second are on %s; the raw output is [`bench/results/audit-100k.txt`](%saudit-100k.txt).\n\n",
		plural(runs, "round"), cores, in.ChartPath)
	b.WriteString("| Objects | CPU time | Wall time | Objects/s | Peak RSS | Runs: CPU time | Runs: wall time | Runs: peak RSS | Load |\n|---:|---:|---:|---:|---:|---|---|---|---|\n")
	for _, s := range a.Sizes {
		var cpu, walls, rss []string
		for _, r := range s.Runs {
			cpu = append(cpu, num(r.CPUSeconds))
			walls = append(walls, num(r.Wall.Seconds()))
			rss = append(rss, num(r.PeakRSS))
		}
		fmt.Fprintf(&b, "| %s | %s CPU-s | %s s | %s | %s MiB | %s CPU-s | %s s | %s MiB | %s |\n", thousands(s.Objects), num(s.CPUSeconds), num(s.Wall.Seconds()),
			num(s.ObjectsPerSecond), num(s.PeakRSS), strings.Join(cpu, ", "), strings.Join(walls, ", "), strings.Join(rss, ", "), loadRangeOf(s.Runs))
	}
	if a.Procs > 0 {
		b.WriteString("\n")
		for _, s := range a.Sizes {
			fmt.Fprintf(&b, "- %s objects: %s CPU-seconds, at least %s s of wall time on %s of its own.\n", thousands(s.Objects),
				num(s.CPUSeconds), num(s.CPUSeconds/float64(a.Procs)), plural(a.Procs, "core"))
		}
	}
	rep.Sections[SectionAudit] = b.String()
	return nil
}

// loadRangeOf is the range of the load averages the runs started under.
func loadRangeOf(runs []AuditRun) string {
	loads := make([]float64, len(runs))
	for i, r := range runs {
		loads[i] = r.Load
	}
	return num1(slices.Min(loads)) + "–" + num1(slices.Max(loads))
}

// thousands prints n with a comma between groups of three digits, as the page writes sizes.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
