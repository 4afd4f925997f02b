package report

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The names of the result lines of bench/cmd/auditlogbench that ParseAuditLog reads: the
// generated log's shape, the passes every shard pays (BenchmarkLogShardPasses in
// audit/log_shard_bench_test.go), and each audit's process.
const (
	AuditLogGenerate = "BenchmarkAuditLogGenerate"
	AuditLogPasses   = "BenchmarkLogShardPasses"
	AuditLogReplay   = "BenchmarkAuditLogReplay"
)

// Goals of issue #40 for an audit log's replay in shards.
const (
	// GoalAuditLogScaling: each shard's own writes per CPU-second are within this fraction of
	// the unsharded audit's writes per CPU-second.
	GoalAuditLogScaling = 0.10
	// GoalAuditLogRSSGrowth: each audit's peak RSS (unsharded and every shard) at the largest log
	// is at most this many times its peak at the smallest.
	GoalAuditLogRSSGrowth = 1.2
	// GoalAuditLogSkip: a line of another shard's costs a shard at most this fraction of a
	// replayed write's CPU (the unsharded audit's CPU per write).
	GoalAuditLogSkip = 1.0 / 20
)

// AuditLogWritesPerSecond is the write rate the projection of a week's audit assumes: a large
// cluster's writes as an audit policy logs them. Clusters of thousands of nodes take hundreds
// of writes a second, most of them node leases and events, which audit policies commonly leave
// out (level None); what is left — Pods, Deployments, ConfigMaps, Services and the like, their
// status included — is of the order of a hundred a second.
const AuditLogWritesPerSecond = 100

// auditLogShardCounts are the shard counts of the projection.
var auditLogShardCounts = []int{1, 2, 4, 8, 16, 32}

// AuditLog is what bench/cmd/auditlogbench measured: generated audit logs of one or more sizes,
// each audited unsharded and in shards, each audit a process of its own.
type AuditLog struct {
	// Procs is the cores the audits ran on, 0 when not given; CPU what the output says of the
	// processor.
	Procs int
	CPU   string
	Sizes []AuditLogSize
}

// AuditLogSize is one log and its audits.
type AuditLogSize struct {
	// The log: its writes, its reads, its lines (their sum) and its size in MiB.
	Writes, Reads, Lines int
	MiB                  float64
	// ScanNsPerLine and SkipNsPerLine are the CPU a shard spends on each line of the log in
	// the state pass and in the writes pass skipping another shard's line (0: not measured).
	ScanNsPerLine, SkipNsPerLine float64
	// Runs are the unsharded audit first, then each shard in order.
	Runs []AuditLogRun
}

// AuditLogRun is one audit's process; its figures are medians over its rounds.
type AuditLogRun struct {
	// Shard is "all" for the unsharded audit, else "IofN"; Index and Count are I and N (Count
	// 0 for the unsharded audit).
	Shard        string
	Index, Count int
	Wall         time.Duration
	CPUSeconds   float64
	// PeakRSS is the process's peak resident memory in MiB.
	PeakRSS float64
	// OwnWrites are the writes it audited (all of them, unsharded); Audited those admitted under
	// both configurations.
	OwnWrites, Audited, NewlyDenied, NewlyWarned int
	// Loads are the one-minute load averages its rounds started under.
	Loads []float64
}

// WritesPerCPUSecond is the run's own writes per CPU-second.
func (r AuditLogRun) WritesPerCPUSecond() float64 { return float64(r.OwnWrites) / r.CPUSeconds }

// ParseAuditLog reads the output of bench/cmd/auditlogbench.
func ParseAuditLog(output []byte) (*AuditLog, error) {
	a := &AuditLog{}
	sizes := map[int]*AuditLogSize{}
	size := func(n int) *AuditLogSize {
		if sizes[n] == nil {
			sizes[n] = &AuditLogSize{Writes: n}
		}
		return sizes[n]
	}
	type runKey struct {
		writes int
		shard  string
	}
	rounds := map[runKey][]AuditLogRun{}
	var order []runKey
	sc := bufio.NewScanner(bytes.NewReader(output))
	for line := 1; sc.Scan(); line++ {
		if m := patchCPU.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil && a.CPU == "" {
			a.CPU = m[1]
		}
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue // a log line, not a result
		}
		name, params, procs := splitBenchmarkName(fields[0])
		if name != AuditLogGenerate && name != AuditLogPasses && name != AuditLogReplay {
			continue
		}
		metrics, err := benchMetrics(fields, line)
		if err != nil {
			return nil, err
		}
		writes, err := strconv.Atoi(params["writes"])
		if err != nil || writes < 1 {
			return nil, fmt.Errorf("line %d: want a writes=N size in the name: %q", line, fields[0])
		}
		s := size(writes)
		switch name {
		case AuditLogGenerate:
			if metrics["writes"] != float64(writes) || metrics["lines"] == 0 {
				return nil, fmt.Errorf("line %d: want the log's writes and lines: %q", line, sc.Text())
			}
			s.Reads, s.Lines, s.MiB = int(metrics["reads"]), int(metrics["lines"]), metrics["log-MiB"]
		case AuditLogPasses:
			if metrics["scan-cpu-ns/line"] == 0 || metrics["skip-cpu-ns/line"] == 0 {
				return nil, fmt.Errorf("line %d: want scan-cpu-ns/line and skip-cpu-ns/line metrics: %q", line, sc.Text())
			}
			s.ScanNsPerLine, s.SkipNsPerLine = metrics["scan-cpu-ns/line"], metrics["skip-cpu-ns/line"]
		case AuditLogReplay:
			run, err := replayRun(fields[0], params, metrics, line)
			if err != nil {
				return nil, err
			}
			a.Procs = max(a.Procs, procs)
			k := runKey{writes, run.Shard}
			if _, seen := rounds[k]; !seen {
				order = append(order, k)
			}
			rounds[k] = append(rounds[k], run)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, k := range order {
		run := medianRun(rounds[k])
		s := size(k.writes)
		s.Runs = append(s.Runs, run)
	}
	sorted, err := sortedSizes(sizes)
	if err != nil {
		return nil, err
	}
	a.Sizes = sorted
	return a, nil
}

// sortedSizes are the logs' results, the smallest first, each with its log's line and an
// unsharded audit first among its runs.
func sortedSizes(sizes map[int]*AuditLogSize) ([]AuditLogSize, error) {
	var out []AuditLogSize
	for n, s := range sizes {
		if s.Lines == 0 || len(s.Runs) == 0 {
			return nil, fmt.Errorf("%d writes: want the log's %s line and %s lines", n, AuditLogGenerate, AuditLogReplay)
		}
		slices.SortFunc(s.Runs, func(x, y AuditLogRun) int {
			return cmp.Or(cmp.Compare(x.Count, y.Count), cmp.Compare(x.Index, y.Index))
		})
		if s.Runs[0].Count != 0 {
			return nil, fmt.Errorf("%d writes: no unsharded audit (shard=all)", n)
		}
		out = append(out, *s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s result line found", AuditLogReplay)
	}
	slices.SortFunc(out, func(x, y AuditLogSize) int { return cmp.Compare(x.Writes, y.Writes) })
	return out, nil
}

// benchMetrics are a result line's metrics by unit.
func benchMetrics(fields []string, line int) (map[string]float64, error) {
	if len(fields)%2 != 0 {
		return nil, fmt.Errorf("line %d: metrics are not value-unit pairs: %q", line, strings.Join(fields, " "))
	}
	metrics := map[string]float64{}
	for i := 2; i < len(fields); i += 2 {
		x, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: metric %s: %w", line, fields[i+1], err)
		}
		metrics[fields[i+1]] = x
	}
	return metrics, nil
}

// replayRun is one replay's result line, named name.
func replayRun(name string, params map[string]string, metrics map[string]float64, line int) (AuditLogRun, error) {
	run := AuditLogRun{Shard: params["shard"], Wall: time.Duration(metrics["ns/op"]), CPUSeconds: metrics["cpu-s/op"], PeakRSS: metrics["peak-RSS-MiB"],
		OwnWrites: int(metrics["own-writes"]), Audited: int(metrics["audited"]), NewlyDenied: int(metrics["newly-denied"]), NewlyWarned: int(metrics["newly-warned"]),
		Loads: []float64{metrics["load1"]}}
	if run.Shard != "all" {
		index, count, ok := strings.Cut(run.Shard, "of")
		i, ierr := strconv.Atoi(index)
		n, nerr := strconv.Atoi(count)
		if !ok || ierr != nil || nerr != nil || i < 0 || i >= n {
			return run, fmt.Errorf("line %d: want shard=all or shard=IofN: %q", line, name)
		}
		run.Index, run.Count = i, n
	}
	if run.CPUSeconds == 0 || run.OwnWrites == 0 {
		return run, fmt.Errorf("line %d: want cpu-s/op and own-writes metrics: %q", line, name)
	}
	return run, nil
}

// medianRun is the rounds of one run as one: the median of each figure, every round's load.
func medianRun(runs []AuditLogRun) AuditLogRun {
	of := func(f func(AuditLogRun) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		return median(v)
	}
	run := runs[0]
	run.Wall = time.Duration(of(func(r AuditLogRun) float64 { return float64(r.Wall) }))
	run.CPUSeconds = of(func(r AuditLogRun) float64 { return r.CPUSeconds })
	run.PeakRSS = of(func(r AuditLogRun) float64 { return r.PeakRSS })
	run.Loads = nil
	for _, r := range runs {
		run.Loads = append(run.Loads, r.Loads...)
	}
	return run
}

// scalingGoal judges each shard's own writes per CPU-second against the unsharded audit's.
func scalingGoal(b *strings.Builder, rep *Report, largest AuditLogSize, whole AuditLogRun) {
	var deviations []string
	scales := len(largest.Runs) > 1
	for _, r := range largest.Runs[1:] {
		d := r.WritesPerCPUSecond()/whole.WritesPerCPUSecond() - 1
		deviations = append(deviations, signed(100*d)+"%")
		scales = scales && math.Abs(d) <= GoalAuditLogScaling
	}
	if len(deviations) == 0 {
		deviations = []string{"no shard measured"}
	}
	rep.addGoal(fmt.Sprintf("Audit-log shards: own writes per CPU-second, %s writes", thousands(largest.Writes)),
		fmt.Sprintf("within %s%% of unsharded", num(100*GoalAuditLogScaling)), strings.Join(deviations, ", "), scales)
	fmt.Fprintf(b, "\n- Scaling goal (each shard's writes per CPU-second within %s%% of the unsharded audit's, at %s writes): **%s** — %s.\n",
		num(100*GoalAuditLogScaling), thousands(largest.Writes), metOrMissed(scales), strings.Join(deviations, ", "))
}

// writeAuditLogPasses writes what every shard pays for each line of each log.
func writeAuditLogPasses(b *strings.Builder, sizes []AuditLogSize) {
	b.WriteString("\nWhat every shard pays for each line of the log, whoever owns it (`BenchmarkLogShardPasses`, in a process of its own), against a replayed write:\n\n")
	b.WriteString("| Writes | State pass, CPU a line | Writes pass, CPU a skipped line | Unsharded audit, CPU a write |\n|---:|---:|---:|---:|\n")
	for _, s := range sizes {
		if s.SkipNsPerLine == 0 {
			continue
		}
		fmt.Fprintf(b, "| %s | %s µs | %s µs | %s µs |\n", thousands(s.Writes), num(s.ScanNsPerLine/1e3), num(s.SkipNsPerLine/1e3), num(s.Runs[0].CPUSeconds/float64(s.Writes)*1e6))
	}
}

// writeAuditLogProjection writes a week of a large cluster's writes projected from the costs at
// the largest log (whole its unsharded run, perWrite its CPU a write in ns), on procs cores.
func writeAuditLogProjection(b *strings.Builder, largest AuditLogSize, whole AuditLogRun, perWrite float64, procs int) {
	// A week's audit, projected from the largest log's costs.
	linesPerWrite := float64(largest.Lines) / float64(largest.Writes)
	weekWrites := float64(AuditLogWritesPerSecond) * 86400 * 7
	passSeconds := weekWrites * linesPerWrite * (largest.ScanNsPerLine + largest.SkipNsPerLine) / 1e9
	replaySeconds := weekWrites * perWrite / 1e9
	fmt.Fprintf(b, "\nA week of a large cluster's writes, projected from the costs at %s writes: %s writes a second, %s million a week, with %s lines (reads included) a write as in the generated log. An unsharded audit costs the week's writes times the unsharded audit's CPU a write; each of N shards pays the two passes over every line (%s µs a line) plus 1/N of the unsharded audit's CPU, which holds the unsharded audit's own reading of every line (its state pass, and each line decoded whole in its writes pass, the reads included): an upper bound.\n\n",
		thousands(largest.Writes), num(AuditLogWritesPerSecond), num(weekWrites/1e6), num(linesPerWrite), num((largest.ScanNsPerLine+largest.SkipNsPerLine)/1e3))
	fmt.Fprintf(b, "| Shards | CPU-hours a shard | Of which the two passes | Wall hours a shard, at least, on %s |\n|---:|---:|---:|---:|\n", plural(procs, "core"))
	for _, n := range auditLogShardCounts {
		cpu, pass := replaySeconds, 0.0
		if n > 1 {
			cpu, pass = passSeconds+replaySeconds/float64(n), passSeconds
		}
		// The passes read a line at a time, on one core; the replay admits on every core.
		wall := pass + (cpu-pass)/float64(procs)
		fmt.Fprintf(b, "| %d | %s | %s | %s |\n", n, num(cpu/3600), num(pass/3600), num(wall/3600))
	}
	if len(largest.Runs) > 1 {
		r := largest.Runs[1]
		model := float64(largest.Lines)*(largest.ScanNsPerLine+largest.SkipNsPerLine)/1e9 + whole.CPUSeconds/float64(r.Count)
		var measured []string
		for _, r := range largest.Runs[1:] {
			measured = append(measured, num(r.CPUSeconds))
		}
		fmt.Fprintf(b, "\nThe same reckoning for the measured log in %s: %s CPU-s a shard; measured: %s CPU-s.\n", plural(r.Count, "shard"), num(model), strings.Join(measured, ", "))
	}
}

// splitBenchmarkName reads "Name/k=v/k=v-P": the name, the parameters and P (0 without).
func splitBenchmarkName(s string) (name string, params map[string]string, procs int) {
	if i := strings.LastIndexByte(s, '-'); i > 0 {
		if p, err := strconv.Atoi(s[i+1:]); err == nil {
			s, procs = s[:i], p
		}
	}
	parts := strings.Split(s, "/")
	params = map[string]string{}
	for _, p := range parts[1:] {
		if k, v, ok := strings.Cut(p, "="); ok {
			params[k] = v
		}
	}
	return parts[0], params, procs
}

// runName names a run in the tables.
func (r AuditLogRun) name() string {
	if r.Count == 0 {
		return "unsharded"
	}
	return fmt.Sprintf("shard %d/%d", r.Index, r.Count)
}

func auditLogSection(in Input, rep *Report) error {
	a := in.AuditLog
	if a == nil {
		rep.Sections[SectionAuditLog] = "Not measured in this run (`make bench` runs it with `make bench-audit-log`)."
		for _, what := range []string{"Audit-log shards: own writes per CPU-second", "Audit-log shards: peak RSS, largest log over smallest", "Audit-log shards: a skipped line's CPU"} {
			rep.goals = append(rep.goals, goal{what: what, target: "see below", measured: "–", status: "not measured"})
		}
		return nil
	}
	rounds := 0
	for _, s := range a.Sizes {
		for _, r := range s.Runs {
			rounds = max(rounds, len(r.Loads))
		}
	}
	cores := "the machine's cores"
	if a.Procs > 0 {
		cores = plural(a.Procs, "core")
	}
	if a.CPU != "" {
		cores += fmt.Sprintf(" (`%s`)", a.CPU)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Each audit a process of its own, one after the other, %s; medians. CPU time and peak RSS are each process's own (getrusage); wall time is on %s. Writes per CPU-second are a run's own writes (the writes of the objects its shard owns; all of them, unsharded) over its CPU time. The raw output is [`bench/results/audit-log.txt`](%saudit-log.txt).\n\n",
		plural(rounds, "round"), cores, in.ChartPath)
	b.WriteString("| Writes | Lines | Log | Run | Own writes | CPU time | Wall time | Writes per CPU-second | Against unsharded | Peak RSS | Load |\n|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range a.Sizes {
		whole := s.Runs[0]
		for _, r := range s.Runs {
			against := "–"
			if r.Count > 0 {
				against = signed(100*(r.WritesPerCPUSecond()/whole.WritesPerCPUSecond()-1)) + "%"
			}
			fmt.Fprintf(&b, "| %s | %s | %s MiB | %s | %s | %s CPU-s | %s s | %s | %s | %s MiB | %s |\n", thousands(s.Writes), thousands(s.Lines), num(s.MiB), r.name(),
				thousands(r.OwnWrites), num(r.CPUSeconds), num(r.Wall.Seconds()), num(r.WritesPerCPUSecond()), against, num(r.PeakRSS), loadsOf(r.Loads))
		}
	}
	largest, smallest := a.Sizes[len(a.Sizes)-1], a.Sizes[0]
	whole := largest.Runs[0]

	scalingGoal(&b, rep, largest, whole)

	// Memory: each run's peak at the largest log over its peak at the smallest.
	if len(a.Sizes) > 1 {
		var growths []string
		worst := 0.0
		for _, r := range largest.Runs {
			i := slices.IndexFunc(smallest.Runs, func(s AuditLogRun) bool { return s.Shard == r.Shard })
			if i < 0 {
				continue
			}
			g := r.PeakRSS / smallest.Runs[i].PeakRSS
			worst = max(worst, g)
			growths = append(growths, fmt.Sprintf("%s %s×", r.name(), num(g)))
		}
		rep.addGoal(fmt.Sprintf("Audit-log shards: peak RSS at %s writes over %s", thousands(largest.Writes), thousands(smallest.Writes)),
			fmt.Sprintf("≤ %s×", num(GoalAuditLogRSSGrowth)), num(worst)+"×", worst <= GoalAuditLogRSSGrowth && worst > 0)
		fmt.Fprintf(&b, "- Memory goal (each audit's peak RSS at %s writes at most %s× its peak at %s): **%s** — %s.\n", thousands(largest.Writes),
			num(GoalAuditLogRSSGrowth), thousands(smallest.Writes), metOrMissed(worst <= GoalAuditLogRSSGrowth && worst > 0), strings.Join(growths, ", "))
	}

	// The passes every shard pays for each line, against a replayed write.
	perWrite := whole.CPUSeconds / float64(largest.Writes) * 1e9
	if largest.SkipNsPerLine == 0 {
		rep.goals = append(rep.goals, goal{what: "Audit-log shards: a skipped line's CPU", target: "see below", measured: "–", status: "not measured"})
		b.WriteString("- Skip goal: not measured (no BenchmarkLogShardPasses result).\n")
		rep.Sections[SectionAuditLog] = b.String()
		return nil
	}
	skipRatio := perWrite / largest.SkipNsPerLine
	skips := largest.SkipNsPerLine <= GoalAuditLogSkip*perWrite
	rep.addGoal("Audit-log shards: a skipped line's CPU", fmt.Sprintf("≥ %s× less than a replayed write's", num(1/GoalAuditLogSkip)), num(skipRatio)+"× less", skips)
	fmt.Fprintf(&b, "- Skip goal (another shard's line at least %s× cheaper than a replayed write, at %s writes): **%s** — %s µs of CPU a skipped line, %s µs a replayed write (the unsharded audit's CPU over the log's writes): %s×.\n",
		num(1/GoalAuditLogSkip), thousands(largest.Writes), metOrMissed(skips), num(largest.SkipNsPerLine/1e3), num(perWrite/1e3), num(skipRatio))

	writeAuditLogPasses(&b, a.Sizes)
	writeAuditLogProjection(&b, largest, whole, perWrite, max(a.Procs, 1))
	rep.Sections[SectionAuditLog] = b.String()
	return nil
}

// loadsOf is the range of the load averages runs started under.
func loadsOf(loads []float64) string {
	lo, hi := slices.Min(loads), slices.Max(loads)
	if lo == hi {
		return num1(lo)
	}
	return num1(lo) + "–" + num1(hi)
}
