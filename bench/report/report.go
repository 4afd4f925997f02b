package report

import (
	"errors"
	"fmt"
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
	// GoalCPUVsHandwritten: admit spends at most this fraction of the CPU per request of the
	// server a careful engineer writes without a framework (issue #41).
	GoalCPUVsHandwritten = 0.30
	// GoalCPUVsControllerRuntime: admit spends at most this fraction of controller-runtime's CPU
	// per request (issue #41).
	GoalCPUVsControllerRuntime = 0.20
	// GoalDispatchCPUVsAPIServer: admit's dispatcher spends at most this fraction of the apiserver
	// plugins' CPU per admission (issue #41).
	GoalDispatchCPUVsAPIServer = 0.27
	// GoalAddedP50: admit's mutating webhook adds less than this to a write's p50, in ms.
	GoalAddedP50 = 1.0
	// GoalAddedP50VsFloor: what admit's mutating webhook adds to a write's p50 is at most this many
	// times what the floor webhook adds (issue #41).
	GoalAddedP50VsFloor = 1.15
	// GoalBinaryMB: the release binary, stripped, is at most this many megabytes (10^6 bytes).
	GoalBinaryMB = 80
)

// Input is what a report is built from. Latency (it needs a real kube-apiserver), Review, Audit,
// Memory, AuditLog, Anchors, Patch and Binary come from `make bench`'s other steps and are
// optional.
type Input struct {
	Results *suite.Results
	Latency *Latency
	Review  *Review
	Audit   *Audit
	Memory  *Memory
	// AuditLog is the audit of an audit log, unsharded and in shards.
	AuditLog *AuditLog
	// Anchors is admit review against kube-apiserver's dry runs and kubectl-validate.
	Anchors *Anchors
	Patch   *Patch
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
	SectionAudit    = "audit"
	SectionMemory   = "memory"
	SectionAuditLog = "auditlog"
	SectionAnchors  = "anchors"
	SectionPatch    = "patch"
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
	for _, build := range []func(Input, *Report) error{servingSection, dispatchSection, latencySection, reviewSection, anchorsSection, auditSection, memorySection, auditLogSection, patchSection, sizeSection} {
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
