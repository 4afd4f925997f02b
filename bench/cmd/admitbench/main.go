package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/admitkit/admit/bench/report"
	"github.com/admitkit/admit/bench/suite"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(suite.ChildMain(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "admitbench:", err)
		os.Exit(1)
	}
}

// resultsFile holds the measurements of the last run in the results directory.
const resultsFile = "results.json"

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("admitbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	smoke := fs.Bool("smoke", false, "run every phase briefly (for `make test`); the numbers mean nothing")
	resultsDir := fs.String("results", "results", "directory for "+resultsFile+" and the SVG charts")
	docs := fs.String("docs", "", "docs/benchmarks.md, whose generated sections are rewritten (empty: none)")
	docsOut := fs.String("docs-out", "", "where to write the updated docs (default: -docs itself)")
	latency := fs.String("latency", "", "Go benchmark output of BenchmarkWebhookLatency (test/e2e) to report")
	review := fs.String("review", "", "Go benchmark output of BenchmarkReviewThroughput (review) to report")
	audit := fs.String("audit", "", "Go benchmark output of BenchmarkAudit100k (internal/cli) to report")
	memory := fs.String("memory", "", "Go benchmark output of BenchmarkCommandMemory (internal/cli) to report")
	auditLog := fs.String("audit-log", "", "output of cmd/auditlogbench (an audit log's audit, unsharded and in shards) to report")
	anchors := fs.String("anchors", "", "Go benchmark output of BenchmarkReviewAnchors (test/e2e: admit review against kube-apiserver and kubectl-validate) to report")
	patch := fs.String("patch", "", "Go benchmark output of the patch benchmarks (package bench, -benchmem) to report")
	binary := fs.String("binary", "", "the release binary (make release-binary) whose size to report")
	symbols := fs.String("symbols", "", "an unstripped build of the release binary, to report what links what (needs -binary)")
	dumpdep := fs.String("dumpdep", "", "the linker's -dumpdep output for that build, to report whether it drops unused methods (needs -binary)")
	profiles := fs.String("profiles", "", "directory for CPU profiles (pprof) of every server and dispatcher")
	reportOnly := fs.Bool("report-only", false, "re-render the report from "+resultsFile+" without measuring")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	logger := log.New(stderr, "", log.Ltime)

	var results *suite.Results
	var err error
	if *reportOnly {
		results, err = lastResults(*resultsDir)
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		results, err = measure(ctx, *smoke, *resultsDir, *profiles, logger)
	}
	if err != nil {
		return err
	}
	in, err := reportInput(results, benchOutputs{latency: *latency, review: *review, audit: *audit, memory: *memory, auditLog: *auditLog, anchors: *anchors, patch: *patch}, *binary, *symbols, *dumpdep)
	if err != nil {
		return err
	}
	rep, err := report.Build(in)
	if err != nil {
		return err
	}
	for name, svg := range rep.Charts {
		if err := os.WriteFile(filepath.Join(*resultsDir, name), svg, 0o644); err != nil {
			return fmt.Errorf("writing chart %s: %w", name, err)
		}
	}
	logger.Printf("results and charts in %s", *resultsDir)
	if *docs == "" {
		return nil
	}
	out := *docsOut
	if out == "" {
		out = *docs
	}
	return updateDocs(*docs, out, rep)
}

// lastResults reads the results a run wrote in resultsDir.
func lastResults(resultsDir string) (*suite.Results, error) {
	data, err := os.ReadFile(filepath.Join(resultsDir, resultsFile))
	if err != nil {
		return nil, fmt.Errorf("reading the last results: %w", err)
	}
	results := &suite.Results{}
	if err := json.Unmarshal(data, results); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", resultsFile, err)
	}
	return results, nil
}

// measure runs the comparisons, the full size or the smoke test's, and writes the results in
// resultsDir.
func measure(ctx context.Context, smoke bool, resultsDir, profiles string, logger *log.Logger) (*suite.Results, error) {
	cfg := suite.Full()
	if smoke {
		cfg = suite.Smoke()
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the harness executable: %w", err)
	}
	cfg.Executable, cfg.ProfileDir, cfg.Logf = exe, profiles, logger.Printf
	command := "make bench"
	if smoke {
		command = "make bench-smoke"
	}
	results, err := suite.Run(ctx, cfg, command)
	if err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(resultsDir, resultsFile), results); err != nil {
		return nil, err
	}
	return results, nil
}

// benchOutputs are the files of Go benchmark output the other steps of make bench write (empty
// names: not given).
type benchOutputs struct{ latency, review, audit, memory, auditLog, anchors, patch string }

// reportInput is what the report is built from: the results, and the outputs of the other steps
// of make bench given as files (empty names: not given).
func reportInput(results *suite.Results, outputs benchOutputs, binary, symbols, dumpdep string) (report.Input, error) {
	in := report.Input{Results: results}
	var err error
	if in.Latency, err = parseOutput(outputs.latency, "the latency benchmark's output", report.ParseLatency); err != nil {
		return in, err
	}
	if in.Review, err = parseOutput(outputs.review, "the review benchmark's output", report.ParseReview); err != nil {
		return in, err
	}
	if in.Audit, err = parseOutput(outputs.audit, "the audit benchmark's output", report.ParseAudit); err != nil {
		return in, err
	}
	if in.Memory, err = parseOutput(outputs.memory, "the memory benchmark's output", report.ParseMemory); err != nil {
		return in, err
	}
	if in.AuditLog, err = parseOutput(outputs.auditLog, "the audit log benchmark's output", report.ParseAuditLog); err != nil {
		return in, err
	}
	if in.Anchors, err = parseOutput(outputs.anchors, "the anchors benchmark's output", report.ParseAnchors); err != nil {
		return in, err
	}
	if in.Patch, err = parseOutput(outputs.patch, "the patch benchmarks' output", report.ParsePatch); err != nil {
		return in, err
	}
	if binary != "" {
		if in.Binary, err = report.ReadBinary(binary); err != nil {
			return in, fmt.Errorf("the release binary: %w", err)
		}
		if in.Linking, err = readLinking(symbols, dumpdep, in.Binary.ModulePaths); err != nil {
			return in, err
		}
	}
	return in, nil
}

// parseOutput reads the benchmark output in path with parse; nil when path is empty.
func parseOutput[T any](path, what string, parse func([]byte) (*T, error)) (*T, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	v, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// readLinking reads what the linker kept of the release binary, or nil when neither file is given.
func readLinking(symbols, dumpdep string, modules []string) (*report.Linking, error) {
	if symbols == "" && dumpdep == "" {
		return nil, nil
	}
	if symbols == "" || dumpdep == "" {
		return nil, errors.New("-symbols and -dumpdep go together")
	}
	return report.ReadLinking(symbols, dumpdep, modules)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// updateDocs rewrites the generated sections of the docs page read from in and writes it to out.
func updateDocs(in, out string, rep *report.Report) error {
	page, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("reading the docs page: %w", err)
	}
	updated, err := report.Splice(page, rep.Sections)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := os.WriteFile(out, updated, 0o644); err != nil {
		return fmt.Errorf("writing the docs page: %w", err)
	}
	return nil
}
