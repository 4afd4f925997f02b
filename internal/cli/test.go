package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/admitkit/admit/internal/junit"
	"github.com/admitkit/admit/internal/words"
	"github.com/admitkit/admit/testsuite"
)

// outputJUnit is admit test's extra output format.
const outputJUnit = "junit"

type testOptions struct {
	output    string
	junitFile string
	update    bool
	run       string
	timeout   time.Duration
	// coverage reports what the cases exercised; coverageHTML and minCoverage ask for it too.
	coverage     bool
	coverageHTML string
	minCoverage  float64
}

func newTestCommand(streams Streams) *cobra.Command {
	o := &testOptions{}
	cmd := &cobra.Command{
		Use:   "test [FILE|DIR]...",
		Short: "Run declarative test suites: objects through your webhooks and policies, with the expected decisions",
		Long: `Run test files: each names webhook configurations and admission policies (as admit review's
--webhooks), the cluster state, how to reach the webhooks (--resolve entries, or a command that
starts the server, which admit test runs and stops), and cases: an object — with its old object,
operation, user, dry run — and what admission must decide: allowed, code, reason, message (exact
or a regular expression), warnings, audit annotations, the webhooks and policies called and their
outcomes, fields of the admitted object. Each case is admitted as admit review admits an object.

Directories are searched, subdirectories included, for admit-test.yaml and *.admit-test.yaml
files; with no argument, the current directory. --update rewrites each case's expectations from
what happened, like golden files. See docs/testing.md for the file format.

--coverage reports what the cases exercised of the files' webhooks and policies: each webhook
called, each matchCondition seen true and false, each validation seen holding and failing, each
mutation applied, each binding matched, and by which cases. --coverage-html writes it as a page
of the configuration files with each of these lines marked; --min-coverage fails the run when
less is covered.

Exit codes: 0 every case passed, 1 a case failed (or coverage is below --min-coverage), 2 bad input (a file that cannot be read, a
case that cannot be built, a server that does not start).`,
		Example: `  # every test file under the current directory
  admit test

  # one file, JUnit XML for the CI system besides the text output
  admit test examples/testing/admit-test.yaml --junit report.xml

  # what the cases exercise of the webhooks and policies, as text and as a page
  admit test examples/testing --coverage --coverage-html coverage.html --min-coverage 80

  # record what happens now as the expectations
  admit test examples/testing/ --update`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			return o.runTests(cmd.Context(), streams, args)
		},
	}
	f := cmd.Flags()
	addOutputFlag(cmd, &o.output, outputJUnit, outputMarkdown)
	onceStringVar(f, &o.junitFile, "junit", "", "also write the results as JUnit XML to this file")
	f.BoolVar(&o.update, "update", false, "rewrite the expectations of every case from its result")
	f.StringVar(&o.run, "run", "", "run only the cases whose name matches this regular expression")
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "each case's deadline, as the apiserver's request timeout")
	f.BoolVar(&o.coverage, "coverage", false, "report what the cases exercised of the webhooks and policies")
	onceStringVar(f, &o.coverageHTML, "coverage-html", "", "also write the coverage as an HTML page to this file (implies --coverage)")
	f.Float64Var(&o.minCoverage, "min-coverage", 0, "fail when less than this percentage of the coverage units is hit (implies --coverage)")
	return cmd
}

// testReport is the JSON and YAML output: each file's report, and the counts.
type testReport struct {
	Suites []*testsuite.Report `json:"suites"`
	Passed int                 `json:"passed"`
	Failed int                 `json:"failed"`
	Errors int                 `json:"errors"`
	// Coverage adds up the files' coverage, with --coverage.
	Coverage *testsuite.Coverage `json:"coverage,omitempty"`
}

func (o *testOptions) runTests(ctx context.Context, streams Streams, args []string) error {
	if err := checkOutput(o.output, outputJUnit, outputMarkdown); err != nil {
		return err
	}
	var filter *regexp.Regexp
	if o.run != "" {
		var err error
		if filter, err = regexp.Compile(o.run); err != nil {
			return badInput(fmt.Errorf("--run: %w", err))
		}
	}
	if o.minCoverage < 0 || o.minCoverage > 100 {
		return badInput(fmt.Errorf("--min-coverage %g: a percentage, from 0 to 100", o.minCoverage))
	}
	o.coverage = o.coverage || o.coverageHTML != "" || o.minCoverage > 0
	files, err := findTestFiles(args)
	if err != nil {
		return badInput(err)
	}
	report := &testReport{}
	selected := 0
	opts := testsuite.Options{Filter: filter, Timeout: o.timeout, Update: o.update, Warnings: streams.Err, Coverage: o.coverage}
	var coverages []*testsuite.Coverage
	for _, file := range files {
		s := testsuite.RunFile(ctx, file, opts)
		report.Suites = append(report.Suites, s)
		selected += len(s.Cases)
		passed, failed, errs := s.Counts()
		report.Passed, report.Failed, report.Errors = report.Passed+passed, report.Failed+failed, report.Errors+errs
		coverages = append(coverages, s.Coverage)
	}
	report.Coverage = testsuite.MergeCoverage(coverages...)
	if filter != nil && selected == 0 && report.Errors == 0 {
		// "0 cases, 0 failed" would pass a CI job whose pattern has a typo.
		return badInput(noCaseSelected(o.run, report))
	}
	if err := o.writeReport(streams.Out, report); err != nil {
		return err
	}
	if o.junitFile != "" {
		f, err := os.Create(o.junitFile)
		if err != nil {
			return badInput(fmt.Errorf("--junit: %w", err))
		}
		err = junit.Write(f, junitSuites(report))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--junit %s: %w", o.junitFile, err)
		}
	}
	if err := o.writeCoverageHTML(report.Coverage); err != nil {
		return err
	}
	switch {
	case report.Errors > 0:
		return &exitError{code: ExitBadInput, err: errors.New("")}
	case report.Failed > 0:
		return &exitError{code: ExitRejected, err: errors.New("")}
	case report.Coverage != nil && report.Coverage.Percent < o.minCoverage:
		return &exitError{code: ExitRejected, err: fmt.Errorf("coverage %s%% is below --min-coverage %s%%",
			strconv.FormatFloat(report.Coverage.Percent, 'f', -1, 64), strconv.FormatFloat(o.minCoverage, 'f', -1, 64))}
	}
	return nil
}

// writeCoverageHTML writes the coverage page --coverage-html asks for.
func (o *testOptions) writeCoverageHTML(c *testsuite.Coverage) error {
	if o.coverageHTML == "" || c == nil {
		return nil
	}
	if err := writeFile(o.coverageHTML, c.WriteHTML); err != nil {
		return fmt.Errorf("--coverage-html %s: %w", o.coverageHTML, err)
	}
	return nil
}

// noCaseSelected says that --run selects nothing, and which cases there are.
func noCaseSelected(pattern string, report *testReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "--run %q selects no case; the cases are:", pattern)
	for _, s := range report.Suites {
		quoted := make([]string, len(s.Names))
		for i, n := range s.Names {
			quoted[i] = strconv.Quote(n)
		}
		fmt.Fprintf(&b, "\n  %s: %s", s.File, strings.Join(quoted, ", "))
	}
	return errors.New(b.String())
}

// isTestFileName reports whether a file found in a directory is a test file.
func isTestFileName(name string) bool {
	for _, ext := range []string{".yaml", ".yml"} {
		if name == "admit-test"+ext || strings.HasSuffix(name, ".admit-test"+ext) {
			return true
		}
	}
	return false
}

// findTestFiles expands directories into the test files under them, in lexical order; files
// named on the command line are taken whatever their name.
func findTestFiles(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, arg)
			continue
		}
		found := 0
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && isTestFileName(d.Name()) {
				files = append(files, path)
				found++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no test files (admit-test.yaml or *.admit-test.yaml) in it or below", arg)
		}
	}
	return files, nil
}

func (o *testOptions) writeReport(w io.Writer, report *testReport) error {
	switch o.output {
	case outputJUnit:
		return junit.Write(w, junitSuites(report))
	case outputMarkdown:
		return testsuite.WriteMarkdown(w, report.Suites)
	case outputJSON, outputYAML:
		return writeStructured(w, o.output, report)
	}
	if err := writeTestText(w, report); err != nil {
		return err
	}
	if report.Coverage == nil {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return report.Coverage.WriteText(w)
}

func writeTestText(w io.Writer, report *testReport) error {
	var b strings.Builder
	cases := 0
	for _, s := range report.Suites {
		title := s.File
		if s.Name != "" && s.Name != s.File {
			title += ": " + s.Name
		}
		fmt.Fprintln(&b, title)
		if s.Error != "" {
			fmt.Fprintf(&b, "  ERROR %s\n", indentLines(s.Error, "        "))
		}
		for _, c := range s.Cases {
			cases++
			switch {
			case c.Error != "":
				fmt.Fprintf(&b, "  ERROR %s\n        %s\n", c.Name, indentLines(c.Error, "        "))
			case c.Updated:
				fmt.Fprintf(&b, "  UPDATED %s (%s)\n", c.Name, readableDuration(c.Took))
			case c.Passed:
				fmt.Fprintf(&b, "  ok    %s (%s)\n", c.Name, readableDuration(c.Took))
			default:
				fmt.Fprintf(&b, "  FAIL  %s (%s)\n", c.Name, readableDuration(c.Took))
				for _, f := range c.Failures {
					fmt.Fprintf(&b, "        %s\n", f)
				}
			}
		}
		if s.Updated {
			fmt.Fprintf(&b, "  expectations rewritten in %s\n", s.File)
		}
	}
	fmt.Fprintf(&b, "%s in %s: %d passed, %d failed", words.Plural(cases, "case", "cases"), words.Plural(len(report.Suites), "file", "files"), report.Passed, report.Failed)
	if report.Errors > 0 {
		fmt.Fprintf(&b, ", %d could not run", report.Errors)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func indentLines(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

// readableDuration rounds a case's duration for the text output.
func readableDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

func junitSuites(report *testReport) []junit.Suite {
	var out []junit.Suite
	for _, s := range report.Suites {
		js := junit.Suite{Name: s.Name}
		if s.Error != "" {
			js.Cases = append(js.Cases, junit.Case{Name: "(the test file)", Class: s.File, Error: s.Error})
		}
		for _, c := range s.Cases {
			js.Cases = append(js.Cases, junit.Case{Name: c.Name, Class: s.File, Duration: c.Took, Failures: c.Failures, Error: c.Error})
		}
		out = append(out, js)
	}
	return out
}
