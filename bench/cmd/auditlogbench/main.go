package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/admitkit/admit/bench/auditlog"
	"github.com/admitkit/admit/bench/usage"
	"github.com/admitkit/admit/internal/benchinput"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "auditlogbench:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	admit, passes, dir, out string
	writes                  []int
	shards, rounds          int
	keep                    bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("auditlogbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.admit, "admit", "", "the admit binary to measure")
	fs.StringVar(&o.passes, "passes-bench", "", "the audit package's test binary (go test -c ./audit), for BenchmarkLogShardPasses (empty: not measured)")
	fs.StringVar(&o.dir, "dir", "", "where the logs, the proposal and the reports are written")
	fs.StringVar(&o.out, "o", "", "the results file, rewritten (default: standard output only)")
	sizes := fs.String("writes", "100000,1000000", "the sizes of the logs, in writes, comma-separated")
	fs.IntVar(&o.shards, "shards", 2, "the shards the sharded audit runs in")
	fs.IntVar(&o.rounds, "rounds", 1, "runs of each audit, the unsharded one and the shards in turn")
	fs.BoolVar(&o.keep, "keep", false, "keep the logs once measured")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-writes %q: want positive counts, comma-separated", *sizes)
		}
		o.writes = append(o.writes, n)
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.admit == "" || o.dir == "":
		return errors.New("-admit and -dir are required")
	case o.shards < 2 || o.rounds < 1:
		return errors.New("-shards must be 2 or more, -rounds 1 or more")
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	results := io.Writer(stdout)
	if o.out != "" {
		f, err := os.Create(o.out)
		if err != nil {
			return err
		}
		defer f.Close()
		results = io.MultiWriter(f, stdout)
	}
	logger := log.New(stderr, "auditlogbench: ", log.Ltime)
	m := usage.DescribeMachine()
	fmt.Fprintf(results, "goos: %s\ngoarch: %s\ncpu: %s\n", m.OS, m.Arch, m.CPUModel)
	url, caBundle, stop := benchinput.WarningWebhook("pods will need a team label")
	defer stop()
	proposal, err := benchinput.WriteAuditProposal(o.dir, url, caBundle)
	if err != nil {
		return err
	}
	for _, n := range o.writes {
		if err := measureSize(ctx, o, n, proposal, results, logger); err != nil {
			return fmt.Errorf("%d writes: %w", n, err)
		}
	}
	return nil
}

// measureSize generates a log of n writes and measures it: the passes every shard pays, then
// the audit unsharded and in shards.
func measureSize(ctx context.Context, o options, n int, proposal string, results io.Writer, logger *log.Logger) error {
	path := filepath.Join(o.dir, fmt.Sprintf("audit-%d.log", n))
	logger.Printf("generating %s", path)
	start := time.Now()
	stats, err := generate(path, n)
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.Remove(path)
	}
	fmt.Fprintf(results, "BenchmarkAuditLogGenerate/writes=%d\t1\t%d ns/op\t%d writes\t%d reads\t%d lines\t%.1f log-MiB\t%d namespaces\t%d apps\t%d objects\t%d request-response-events\n",
		n, time.Since(start).Nanoseconds(), stats.Writes, stats.Reads, stats.Lines, float64(stats.Bytes)/(1<<20), stats.Namespaces, stats.Apps, stats.Objects, stats.RequestResponse)
	if o.passes != "" {
		logger.Printf("the passes of every shard over %s", path)
		line, err := passes(ctx, o.passes, path, n)
		if err != nil {
			return err
		}
		fmt.Fprintln(results, line)
	}
	for round := 1; round <= o.rounds; round++ {
		logger.Printf("round %d of %d: unsharded", round, o.rounds)
		whole, err := runAudit(ctx, o, path, proposal, "")
		if err != nil {
			return err
		}
		whole.print(results, n, "all")
		if whole.totals["read"] != stats.Writes {
			return fmt.Errorf("the unsharded audit read %d writes of the log's %d", whole.totals["read"], stats.Writes)
		}
		sum := map[string]int{}
		for i := range o.shards {
			shard := fmt.Sprintf("%d/%d", i, o.shards)
			logger.Printf("round %d of %d: shard %s", round, o.rounds, shard)
			r, err := runAudit(ctx, o, path, proposal, shard)
			if err != nil {
				return err
			}
			r.print(results, n, strings.Replace(shard, "/", "of", 1))
			for k, v := range r.totals {
				sum[k] += v
			}
		}
		if err := sameCounts(whole.totals, sum); err != nil {
			return fmt.Errorf("round %d: the shards' reports do not add up to the unsharded one's: %w", round, err)
		}
	}
	return nil
}

// generate writes a log of n writes at path.
func generate(path string, n int) (auditlog.Stats, error) {
	f, err := os.Create(path)
	if err != nil {
		return auditlog.Stats{}, err
	}
	stats, err := auditlog.Generate(f, auditlog.Config{Writes: n})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return stats, err
}

// passes runs BenchmarkLogShardPasses on the log at path in a process of its own and returns its
// result line, named after the log's size.
func passes(ctx context.Context, testBinary, path string, n int) (string, error) {
	cmd := exec.CommandContext(ctx, testBinary, "-test.run", "^$", "-test.bench", "^BenchmarkLogShardPasses$", "-test.benchtime", "1x", "-test.timeout", "2h")
	cmd.Env = append(environment(), "ADMIT_AUDIT_LOG="+path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w\n%s", testBinary, err, tail(out.Bytes()))
	}
	for _, line := range strings.Split(out.String(), "\n") {
		name, rest, ok := strings.Cut(line, "\t")
		if base, procs, _ := strings.Cut(strings.TrimSpace(name), "-"); ok && base == "BenchmarkLogShardPasses" {
			return fmt.Sprintf("%s/writes=%d-%s\t%s", base, n, procs, rest), nil
		}
	}
	return "", fmt.Errorf("%s printed no BenchmarkLogShardPasses result:\n%s", testBinary, tail(out.Bytes()))
}

// measured is one audit's process: its wall time, CPU time and peak RSS, and its report's counts.
type measured struct {
	wall, cpu time.Duration
	peakRSS   int64
	totals    map[string]int
	procs     int
	load      float64
}

func (m measured) print(w io.Writer, n int, shard string) {
	fmt.Fprintf(w, "BenchmarkAuditLogReplay/writes=%d/shard=%s-%d\t1\t%d ns/op\t%.3f cpu-s/op\t%.1f peak-RSS-MiB\t%d own-writes\t%d audited\t%d newly-denied\t%d newly-warned\t%.2f load1\n",
		n, shard, m.procs, m.wall.Nanoseconds(), m.cpu.Seconds(), float64(m.peakRSS)/(1<<20), m.totals["read"], m.totals["audited"], m.totals["newlyDenied"], m.totals["newlyWarned"], m.load)
}

// runAudit runs admit audit on the log at path with the proposal, the whole log or a shard
// ("I/N"), in a process of its own.
func runAudit(ctx context.Context, o options, path, proposal, shard string) (measured, error) {
	name := "all"
	args := []string{"audit", "--audit-log", path, "--webhooks", proposal, "-o", "json", "--max-new-denials", "-1"}
	if shard != "" {
		args = append(args, "--shard", shard)
		name = strings.Replace(shard, "/", "of", 1)
	}
	report := filepath.Join(o.dir, "report-"+name+".json")
	out, err := os.Create(report)
	if err != nil {
		return measured{}, err
	}
	defer out.Close()
	var errs bytes.Buffer
	cmd := exec.CommandContext(ctx, o.admit, args...)
	cmd.Env = environment()
	cmd.Stdout, cmd.Stderr = out, &errs
	m := measured{procs: runtime.NumCPU()}
	if load, err := usage.LoadAverage(); err == nil {
		m.load = load[0]
	}
	start := time.Now()
	err = cmd.Run()
	m.wall = time.Since(start)
	if err != nil {
		return m, fmt.Errorf("admit %s: %w\n%s", strings.Join(args, " "), err, tail(errs.Bytes()))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return m, errors.New("no resource usage of the audit's process on this system")
	}
	m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	m.peakRSS = ru.Maxrss * 1024 // Linux and the BSDs count kilobytes...
	if runtime.GOOS == "darwin" {
		m.peakRSS = ru.Maxrss // ... macOS bytes
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return m, err
	}
	var rep struct {
		Totals map[string]int `json:"totals"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Totals == nil {
		return m, fmt.Errorf("%s: not an audit report: %v", report, err)
	}
	m.totals = rep.Totals
	return m, nil
}

// sameCounts says how two reports' counts differ, if they do.
func sameCounts(whole, shards map[string]int) error {
	var keys []string
	for k := range whole {
		keys = append(keys, k)
	}
	for k := range shards {
		if _, ok := whole[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diffs []string
	for _, k := range keys {
		if whole[k] != shards[k] {
			diffs = append(diffs, fmt.Sprintf("%s %d unsharded, %d in shards", k, whole[k], shards[k]))
		}
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, "; "))
	}
	return nil
}

// environment is this process's, without what would make an audit a shard of an Indexed Job
// (audit.EnvCompletionIndex and audit.EnvShardCount: importing package audit would bring
// Kubernetes' own module, which this module does not build with).
func environment() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "JOB_COMPLETION_INDEX=") || strings.HasPrefix(kv, "ADMIT_AUDIT_SHARDS=")
	})
}

// tail is the end of a process's output, for an error.
func tail(out []byte) string {
	const max = 4000
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return string(out)
}
