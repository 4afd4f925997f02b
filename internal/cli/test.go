package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/cobra"

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
	files, err := testsuite.Find(args...)
	if err != nil {
		return badInput(err)
	}
	opts := testsuite.Options{Filter: filter, Timeout: o.timeout, Update: o.update, Warnings: streams.Err, Coverage: o.coverage}
	report, err := testsuite.RunFiles(ctx, files, opts)
	defer report.Close()
	if err != nil {
		return badInput(fmt.Errorf("--run %w", err))
	}
	if err := o.writeReport(streams.Out, report); err != nil {
		return err
	}
	if o.junitFile != "" {
		f, err := os.Create(o.junitFile)
		if err != nil {
			return badInput(fmt.Errorf("--junit: %w", err))
		}
		err = testsuite.WriteJUnit(f, report)
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

func (o *testOptions) writeReport(w io.Writer, report *testsuite.Results) error {
	switch o.output {
	case outputJUnit:
		return testsuite.WriteJUnit(w, report)
	case outputMarkdown:
		return testsuite.WriteMarkdown(w, report.Suites)
	case outputJSON, outputYAML:
		return testsuite.WriteStructured(w, o.output, report)
	}
	return testsuite.WriteText(w, report)
}
