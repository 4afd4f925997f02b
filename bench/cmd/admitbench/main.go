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
	in, err := reportInput(results, *latency, *review, *binary, *symbols, *dumpdep)
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

// reportInput is what the report is built from: the results, and the outputs of the other steps
// of make bench given as files (empty names: not given).
func reportInput(results *suite.Results, latency, review, binary, symbols, dumpdep string) (report.Input, error) {
	in := report.Input{Results: results}
	if latency != "" {
		data, err := os.ReadFile(latency)
		if err != nil {
			return in, fmt.Errorf("reading the latency benchmark's output: %w", err)
		}
		if in.Latency, err = report.ParseLatency(data); err != nil {
			return in, fmt.Errorf("%s: %w", latency, err)
		}
	}
	if review != "" {
		data, err := os.ReadFile(review)
		if err != nil {
			return in, fmt.Errorf("reading the review benchmark's output: %w", err)
		}
		if in.Review, err = report.ParseReview(data); err != nil {
			return in, fmt.Errorf("%s: %w", review, err)
		}
	}
	if binary != "" {
		var err error
		if in.Binary, err = report.ReadBinary(binary); err != nil {
			return in, fmt.Errorf("the release binary: %w", err)
		}
		if in.Linking, err = readLinking(symbols, dumpdep, in.Binary.ModulePaths); err != nil {
			return in, err
		}
	}
	return in, nil
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
