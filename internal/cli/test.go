package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/internal/junit"
	"github.com/admitkit/admit/internal/testsuite"
	"github.com/admitkit/admit/review"
)

// outputJUnit is admit test's extra output format.
const outputJUnit = "junit"

type testOptions struct {
	output    string
	junitFile string
	update    bool
	run       string
	timeout   time.Duration
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

Exit codes: 0 every case passed, 1 a case failed, 2 bad input (a file that cannot be read, a
case that cannot be built, a server that does not start).`,
		Example: `  # every test file under the current directory
  admit test

  # one file, JUnit XML for the CI system besides the text output
  admit test examples/testing/admit-test.yaml --junit report.xml

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
	f.StringVarP(&o.output, "output", "o", outputText, "output format: text, json, yaml or junit")
	onceStringVar(f, &o.junitFile, "junit", "", "also write the results as JUnit XML to this file")
	f.BoolVar(&o.update, "update", false, "rewrite the expectations of every case from its result")
	f.StringVar(&o.run, "run", "", "run only the cases whose name matches this regular expression")
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "each case's deadline, as the apiserver's request timeout")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{outputText, outputJSON, outputYAML, outputJUnit}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// testReport is the JSON and YAML output.
type testReport struct {
	Suites []*suiteReport `json:"suites"`
	Passed int            `json:"passed"`
	Failed int            `json:"failed"`
	Errors int            `json:"errors"`
}

type suiteReport struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Error is why the file could not run at all.
	Error   string        `json:"error,omitempty"`
	Cases   []*caseReport `json:"cases"`
	Updated bool          `json:"updated,omitempty"`

	// names are the names of every case of the file, selected by --run or not.
	names []string
}

type caseReport struct {
	Name            string   `json:"name"`
	Line            int      `json:"line"`
	Passed          bool     `json:"passed"`
	Failures        []string `json:"failures,omitempty"`
	Error           string   `json:"error,omitempty"`
	Updated         bool     `json:"updated,omitempty"`
	DurationSeconds float64  `json:"durationSeconds"`
	// What happened, for a reader of the report.
	Allowed          *bool             `json:"allowed,omitempty"`
	Status           *metav1.Status    `json:"status,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	Called           []string          `json:"called,omitempty"`
	// Webhooks are the webhooks and policies configured, each with its outcome: "skipped"
	// ones were not called (they do not match the object), which called does not list.
	Webhooks []testsuite.Row `json:"webhooks,omitempty"`

	took time.Duration
}

func (o *testOptions) runTests(ctx context.Context, streams Streams, args []string) error {
	switch o.output {
	case outputText, outputJSON, outputYAML, outputJUnit:
	default:
		return badInput(fmt.Errorf("--output %q: use text, json, yaml or junit", o.output))
	}
	var filter *regexp.Regexp
	if o.run != "" {
		var err error
		if filter, err = regexp.Compile(o.run); err != nil {
			return badInput(fmt.Errorf("--run: %w", err))
		}
	}
	files, err := findTestFiles(args)
	if err != nil {
		return badInput(err)
	}
	report := &testReport{}
	selected := 0
	for _, file := range files {
		s := o.runSuite(ctx, streams, file, filter)
		report.Suites = append(report.Suites, s)
		selected += len(s.Cases)
		if s.Error != "" {
			report.Errors++
		}
		for _, c := range s.Cases {
			switch {
			case c.Error != "":
				report.Errors++
			case c.Passed:
				report.Passed++
			default:
				report.Failed++
			}
		}
	}
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
	switch {
	case report.Errors > 0:
		return &exitError{code: ExitBadInput, err: errors.New("")}
	case report.Failed > 0:
		return &exitError{code: ExitRejected, err: errors.New("")}
	}
	return nil
}

// noCaseSelected says that --run selects nothing, and which cases there are.
func noCaseSelected(pattern string, report *testReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "--run %q selects no case; the cases are:", pattern)
	for _, s := range report.Suites {
		quoted := make([]string, len(s.names))
		for i, n := range s.names {
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

// runSuite runs one test file. A problem that stops the whole file is its Error; a case that
// cannot be built is that case's.
func (o *testOptions) runSuite(ctx context.Context, streams Streams, file string, filter *regexp.Regexp) *suiteReport {
	report := &suiteReport{Name: file, File: file}
	fail := func(err error) *suiteReport {
		// The cases did not run: listed, they would count as failed without a reason.
		report.Error, report.Cases = errorText(err), nil
		return report
	}
	suite, err := testsuite.Load(file)
	if err != nil {
		return fail(err)
	}
	report.Name = suite.Name
	var cases []*testsuite.Case
	for _, c := range suite.Cases {
		report.names = append(report.names, c.Name)
		if filter == nil || filter.MatchString(c.Name) {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return report
	}

	work, err := os.MkdirTemp("", "admit-test-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(work)
	port, err := freePort()
	if err != nil {
		return fail(err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(fmt.Errorf("finding the admit binary for $(ADMIT): %w", err))
	}
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return fail(err)
	}
	vars := suiteVars{"PORT": fmt.Sprint(port), "ADMIT": self, "SUITE_DIR": dir}
	var resolve []string
	for _, r := range suite.Resolve {
		expanded, err := vars.expand(r)
		if err != nil {
			return fail(fmt.Errorf("%s: resolve: %w", file, err))
		}
		resolve = append(resolve, expanded)
	}
	var caBundle []byte
	if suite.Server != nil {
		keys, err := newSuiteTLS(work, serviceDNSNames(resolve))
		if err != nil {
			return fail(fmt.Errorf("%s: the server's certificates: %w", file, err))
		}
		vars["CERT_DIR"], caBundle = keys.dir, keys.caBundle
		server, err := startSuiteServer(ctx, suite.Server, vars, dir, keys.pool)
		if err != nil {
			return fail(fmt.Errorf("%s:%d: %w", file, suite.Server.Line, err))
		}
		defer server.stop()
		defer func() {
			if err := server.exitedEarly(); err != nil && report.Error == "" {
				report.Error = err.Error()
			}
		}()
	}

	options := &reviewOptions{
		webhooks: suite.Webhooks, cluster: suite.Cluster, crds: suite.CRDs, resolve: resolve,
		onlyHooks: suite.WebhooksOnly, namespace: suite.Namespace, timeout: o.timeout,
		fieldManager: chain.DefaultFieldManager, serviceCIDR: chain.DefaultServiceCIDR, allowPrivileged: true,
	}
	objects := make([][]review.Input, len(cases))
	olds := make([][]review.Input, len(cases))
	var all []review.Input
	for i, c := range cases {
		report.Cases = append(report.Cases, &caseReport{Name: c.Name, Line: c.Line})
		if objects[i], err = review.Parse(c.ObjectSource, c.Object); err == nil && c.Old != nil {
			olds[i], err = review.Parse(c.OldSource, c.Old)
		}
		if err != nil {
			report.Cases[i].Error = errorText(err)
			continue
		}
		all = append(all, objects[i]...)
	}
	cfg, closeWebhooks, err := options.sessionConfig(ctx, Streams{In: streams.In, Out: io.Discard, Err: streams.Err}, all, caBundle)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", file, err))
	}
	defer closeWebhooks()
	session, err := review.New(cfg, all)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", file, err))
	}
	reviews := make([]*review.Outcome, len(cases))
	var runnable []*review.Outcome
	for i, c := range cases {
		if report.Cases[i].Error != "" {
			continue
		}
		namespace := suite.Namespace
		if c.Namespace != "" {
			namespace = c.Namespace
		}
		w := review.Write{
			Operation: admissionv1.Operation(strings.ToUpper(c.Operation)), SubResource: c.SubResource, DryRun: c.DryRun,
			User:            authenticationv1.UserInfo{Username: "admit-test", Groups: []string{"system:authenticated"}},
			FieldValidation: metav1.FieldValidationStrict, Namespace: namespace,
		}
		if c.User != "" {
			w.User.Username = c.User
		}
		if c.Groups != nil {
			w.User.Groups = c.Groups
		}
		built, err := session.Requests(objects[i], olds[i], w)
		if err == nil && built[0].Err != nil {
			err = built[0].Err
		}
		if err != nil {
			report.Cases[i].Error = errorText(err)
			continue
		}
		reviews[i] = built[0]
		runnable = append(runnable, built[0])
	}
	if len(runnable) == 0 {
		return report
	}
	if err := session.Admit(ctx, runnable); err != nil {
		return fail(fmt.Errorf("%s: %w", file, err))
	}

	for i, c := range cases {
		r, cr := reviews[i], report.Cases[i]
		if r == nil {
			continue
		}
		cr.took, cr.DurationSeconds = r.Took, r.Took.Seconds()
		if r.Err != nil {
			cr.Error = errorText(r.Err)
			continue
		}
		allowed := r.Result.Allowed
		cr.Allowed, cr.Called, cr.Webhooks = &allowed, testsuite.Called(r.Result), testsuite.Rows(r.Result)
		cr.Warnings, cr.AuditAnnotations = r.Result.Warnings, r.Result.AuditAnnotations
		if !allowed {
			cr.Status = r.Result.Status
		}
		cr.Failures = testsuite.Check(c.Expect, r.Result)
		cr.Passed = len(cr.Failures) == 0
		if o.update && !cr.Passed {
			if err := c.Update(r.Result); err != nil {
				cr.Error = errorText(err)
				continue
			}
			cr.Updated, report.Updated = true, true
		}
	}
	if report.Updated {
		if err := writeSuite(suite); err != nil {
			return fail(err)
		}
		for _, cr := range report.Cases {
			if cr.Updated {
				cr.Passed, cr.Failures = true, nil
			}
		}
	}
	return report
}

// writeSuite rewrites a test file in place, and the expectation files it names that --update
// rewrote, keeping their modes.
func writeSuite(suite *testsuite.Suite) error {
	data, err := suite.Encode()
	if err != nil {
		return err
	}
	files, err := suite.Files()
	if err != nil {
		return err
	}
	files[suite.Path] = data
	for _, path := range slices.Sorted(maps.Keys(files)) {
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, files[path], info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// serviceDNSNames are the names calls to the resolved services verify (SERVICE.NAMESPACE.svc).
func serviceDNSNames(resolve []string) []string {
	var names []string
	for _, entry := range resolve {
		service, _, ok := strings.Cut(entry, "=")
		namespace, name, ok2 := strings.Cut(service, "/")
		if ok && ok2 {
			names = append(names, name+"."+namespace+".svc")
		}
	}
	return names
}

func (o *testOptions) writeReport(w io.Writer, report *testReport) error {
	switch o.output {
	case outputJUnit:
		return junit.Write(w, junitSuites(report))
	case outputJSON, outputYAML:
		return writeStructured(w, o.output, report)
	}
	return writeTestText(w, report)
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
				fmt.Fprintf(&b, "  UPDATED %s (%s)\n", c.Name, readableDuration(c.took))
			case c.Passed:
				fmt.Fprintf(&b, "  ok    %s (%s)\n", c.Name, readableDuration(c.took))
			default:
				fmt.Fprintf(&b, "  FAIL  %s (%s)\n", c.Name, readableDuration(c.took))
				for _, f := range c.Failures {
					fmt.Fprintf(&b, "        %s\n", f)
				}
			}
		}
		if s.Updated {
			fmt.Fprintf(&b, "  expectations rewritten in %s\n", s.File)
		}
	}
	fmt.Fprintf(&b, "%s in %s: %d passed, %d failed", plural(cases, "case", "cases"), plural(len(report.Suites), "file", "files"), report.Passed, report.Failed)
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
			js.Cases = append(js.Cases, junit.Case{Name: c.Name, Class: s.File, Duration: c.took, Failures: c.Failures, Error: c.Error})
		}
		out = append(out, js)
	}
	return out
}
