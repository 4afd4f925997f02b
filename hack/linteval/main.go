package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	admit, cache, corpus, judgments, mirrors, out, analysis string
	check, printUnjudged                                    bool
}

// parseFlags parses the command line; on an error, it has printed it with the usage.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("linteval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.admit, "admit", "", "the admit binary to evaluate (default: build ./cmd/admit)")
	fs.StringVar(&o.cache, "cache", filepath.Join(".cache", "linteval"), "where the projects' files and clones are kept")
	fs.BoolVar(&o.check, "check", false, "exit 1 if a warning or error is unjudged or a judgment matches no finding")
	fs.StringVar(&o.corpus, "corpus", filepath.Join("hack", "linteval", "corpus.yaml"), "the projects to lint")
	fs.StringVar(&o.analysis, "analysis", filepath.Join("hack", "linteval", "analysis.md"), "hand-written Markdown placed after the verdicts (none if the file does not exist)")
	fs.StringVar(&o.judgments, "judgments", filepath.Join("hack", "linteval", "judgments.yaml"), "the verdicts on the findings")
	fs.StringVar(&o.mirrors, "mirrors", "", "read git objects from DIR/<owner>+<name>/repo where it is a git directory")
	fs.StringVar(&o.out, "out", filepath.Join("docs", "lint-evaluation.md"), "the report to write")
	fs.BoolVar(&o.printUnjudged, "print-unjudged", false, "print the unjudged warnings and errors as judgments.yaml entries to fill in")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected arguments %q", fs.Args())
		fmt.Fprintf(stderr, "linteval: %v\n", err)
		return options{}, err
	}
	return o, nil
}

// run is the program; it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2 // parseFlags has said why
	}
	ok, err := evaluate(ctx, o, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "linteval: %v\n", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

// evaluate runs the evaluation and writes the report. ok is false when a project could not be
// evaluated or, with --check, when judgments are missing or stale.
func evaluate(ctx context.Context, o options, stdout, stderr io.Writer) (ok bool, err error) {
	projects, err := loadCorpus(o.corpus)
	if err != nil {
		return false, err
	}
	judgments, err := loadJudgments(o.judgments, projects)
	if err != nil {
		return false, err
	}
	if o.cache, err = filepath.Abs(o.cache); err != nil {
		return false, fmt.Errorf("--cache: %w", err)
	}
	admit, cleanup, err := admitBinary(ctx, o.admit)
	if err != nil {
		return false, err
	}
	defer cleanup()

	results := make([]projectResult, 0, len(projects))
	for _, p := range projects {
		fmt.Fprintf(stderr, "linteval: %s (%s@%s)\n", p.Name, p.Repo, p.Commit[:12])
		results = append(results, evaluateProject(ctx, o, p, judgments[p.Name], admit))
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("interrupted, the report is left as it was: %w", err) // every project after the interruption failed
	}
	if err := writeReportFile(o, results); err != nil {
		return false, err
	}
	failed := printTotals(stderr, results)
	if o.printUnjudged {
		if err := writeUnjudged(stdout, results); err != nil {
			return false, fmt.Errorf("printing the unjudged findings: %w", err)
		}
	}
	ok = failed == 0
	if o.check && !checkJudgments(stderr, results) {
		ok = false
	}
	return ok, nil
}

// admitBinary returns the admit to evaluate: the one given, or one built from this repository
// into a temporary directory that cleanup removes.
func admitBinary(ctx context.Context, given string) (bin string, cleanup func(), err error) {
	if given != "" {
		// admit runs in each project's directory: a relative path would not be found there.
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", nil, fmt.Errorf("--admit: %w", err)
		}
		return abs, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "linteval-")
	if err != nil {
		return "", nil, fmt.Errorf("building admit: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if bin, err = buildAdmit(ctx, dir); err != nil {
		cleanup()
		return "", nil, err
	}
	return bin, cleanup, nil
}

// evaluateProject materializes, lints and judges one project. A failure is kept in the result,
// not returned: one project's trouble (a blob missing from a mirror) must not hide the others'.
func evaluateProject(ctx context.Context, o options, p Project, judgments []Judgment, admit string) projectResult {
	r := projectResult{Project: p}
	repo, err := openRepo(ctx, o.mirrors, o.cache, p.Repo, githubURL+p.Repo)
	if err != nil {
		r.Err = err
		return r
	}
	m, err := materialize(ctx, repo, p, o.cache)
	if err != nil {
		r.Err = err
		return r
	}
	if p.Kustomize != "" {
		if err := buildKustomization(&m, p.Kustomize); err != nil {
			r.Err = err
			return r
		}
	}
	out, err := runLint(ctx, admit, m)
	if err != nil {
		r.Err = err
		return r
	}
	r.Notes = append(m.Notes, out.Notes...)
	r.Renamed = m.Renamed
	r.Findings, r.Stale = judge(judgments, out.Findings)
	r.Gone = goneJudgments(judgments)
	sortFindings(r.Findings)
	return r
}

// writeReportFile writes the report, with the machine's directories taken out of its notes.
func writeReportFile(o options, results []projectResult) error {
	var pairs []string
	if o.mirrors != "" {
		if abs, err := filepath.Abs(o.mirrors); err == nil {
			pairs = append(pairs, abs, "<mirrors>")
		}
		pairs = append(pairs, o.mirrors, "<mirrors>")
	}
	pairs = append(pairs, o.cache, "<cache>")
	analysis, err := os.ReadFile(o.analysis)
	if err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("reading the analysis: %w", err)
	}
	var b strings.Builder
	if err := writeReport(&b, results, reportOptions{Scrub: strings.NewReplacer(pairs...), Analysis: string(analysis)}); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := os.WriteFile(o.out, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// printTotals prints each project's counts and returns how many projects failed.
func printTotals(w io.Writer, results []projectResult) (failed int) {
	var all severityCounts
	for _, r := range results {
		if r.Err != nil {
			failed++
			fmt.Fprintf(w, "%-30s FAILED: %v\n", r.Project.Name, r.Err)
			continue
		}
		c := countSeverities(r.Findings)
		all.Errors, all.Warnings, all.Infos = all.Errors+c.Errors, all.Warnings+c.Warnings, all.Infos+c.Infos
		fmt.Fprintf(w, "%-30s %3d errors %3d warnings %3d info\n", r.Project.Name, c.Errors, c.Warnings, c.Infos)
	}
	t, _ := tallies(results)
	fmt.Fprintf(w, "%-30s %3d errors %3d warnings %3d info; %d of %d warnings and errors unjudged; precision %s\n",
		"total", all.Errors, all.Warnings, all.Infos, t.Unjudged, t.total(), t.precisionText())
	for _, s := range corpusSets(results) {
		fmt.Fprintf(w, "%-30s %d projects; precision %s", s.label(), s.Projects, s.All.precisionText())
		if s.Unseen != "" && s.Gone.total() > 0 {
			fmt.Fprintf(w, "; before the change %s", s.Before.plus(s.Gone).precisionText())
		}
		if s.Unseen != "" && s.After.total() > 0 {
			fmt.Fprintf(w, "; on verdicts given before the change %s, after it %s", s.Before.precisionText(), s.After.precisionText())
		}
		fmt.Fprintln(w)
	}
	return failed
}

// checkJudgments prints the unjudged warnings and errors and the stale judgments, and reports
// whether there are none.
func checkJudgments(w io.Writer, results []projectResult) bool {
	ok := true
	for _, r := range results {
		for _, f := range r.Findings {
			if f.counts() && f.Verdict == Unjudged {
				ok = false
				fmt.Fprintf(w, "unjudged: %s: %s %s\n", r.Project.Name, f.Severity, findingSubject(f.Finding))
			}
		}
		for _, j := range r.Stale {
			ok = false
			fmt.Fprintf(w, "stale judgment: %s: %s\n", r.Project.Name, j.subject())
		}
	}
	return ok
}

func findingSubject(f Finding) string {
	return Judgment{Rule: f.Rule, Configuration: f.Configuration, Webhook: f.Webhook, Field: f.Field}.subject()
}
