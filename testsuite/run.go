package testsuite

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/builtin"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/review"
)

// Options say how test files run.
type Options struct {
	// Filter, when set, selects the cases whose name it matches.
	Filter *regexp.Regexp
	// Timeout is each case's deadline, as the apiserver's request timeout (default 30s).
	Timeout time.Duration
	// Update rewrites the expectations of every failing case from its result, like golden files.
	Update bool
	// Admit is the admit binary $(ADMIT) names in a server's command (default: this program).
	Admit string
	// Warnings, when set, receives the apiserver's warnings about the configurations.
	Warnings io.Writer
	// Coverage reports what the cases exercised of the file's webhooks and policies
	// (Report.Coverage).
	Coverage bool
}

// RunFile loads a test file and runs it; a file that does not load is the Report's Error. Its
// cases are read from the file as they are run, not held, unless Options.Update rewrites them.
func RunFile(ctx context.Context, path string, opts Options) *Report {
	if opts.Update {
		s, err := Load(path)
		if err != nil {
			return &Report{Name: path, File: path, Error: err.Error()}
		}
		return Run(ctx, s, opts)
	}
	s, cases, err := openCases(path)
	if err != nil {
		return &Report{Name: path, File: path, Error: err.Error()}
	}
	if cases == nil {
		return Run(ctx, s, opts)
	}
	defer cases.Close()
	return runCases(ctx, s, cases, cases.Names(), opts, holdAtMost)
}

// Run runs a test file's cases (those Options.Filter selects): its server started, each case
// admitted as `admit review` admits an object, its expectations checked — and, with
// Options.Update, the failing cases' expectations rewritten in the file. A problem that stops
// the whole file is the Report's Error; a case that cannot be built is that case's. Close the
// Report when done with its cases.
func Run(ctx context.Context, s *Suite, opts Options) *Report {
	names := make([]string, len(s.Cases))
	for i, c := range s.Cases {
		names[i] = c.Name
	}
	return runCases(ctx, s, heldCases(s.Cases), names, opts, holdAtMost)
}

// runCases runs the cases of s that cases gives, named names, holding hold reports at most.
func runCases(ctx context.Context, s *Suite, cases caseSource, names []string, opts Options, hold int) *Report {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	report := &Report{Name: s.Name, File: s.Path, Names: names}
	r := &run{suite: s, opts: opts, report: report, cases: cases, hold: hold}
	for i, name := range names {
		if opts.Filter == nil || opts.Filter.MatchString(name) {
			r.selected = append(r.selected, i)
		}
	}
	if len(r.selected) == 0 {
		return report
	}
	if err := r.run(ctx); err != nil {
		// The cases did not run: listed, they would count as failed without a reason.
		report.Error, report.Coverage = err.Error(), nil
		report.Close()
	}
	return report
}

// run is one test file's run.
type run struct {
	suite  *Suite
	opts   Options
	report *Report
	cases  caseSource
	// selected are the positions of the cases the filter selects, in the file's order.
	selected []int
	// hold is how many case reports the report holds before it keeps them in a file.
	hold int
	// control are the cases that passed, for the control runs.
	control controlGroups
	// closers stop the server and the built-in webhooks, and remove the work directory.
	closers []func()
}

func (r *run) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
}

func (r *run) run(ctx context.Context) (err error) {
	defer r.close()
	resolve, caBundle, server, err := r.start(ctx)
	if err != nil {
		return err
	}
	if server != nil {
		// A server that exited while the cases ran is the file's error; the cases' reports
		// stay, they say what its absence did.
		defer func() {
			if early := server.exitedEarly(); early != nil && err == nil {
				r.report.Error = early.Error()
			}
		}()
	}
	cfg, err := r.config(ctx, resolve, caBundle)
	if err != nil {
		return fmt.Errorf("%s: %w", r.suite.Path, err)
	}
	crds, err := r.survey(cfg)
	if err != nil {
		return err
	}
	if r.opts.Coverage {
		r.report.Coverage = r.newCoverage(cfg)
	}
	r.report.cases = newCaseLog(r.hold)
	all := make([]int, len(r.selected))
	for k := range all {
		all[k] = k
	}
	if err := r.admit(ctx, cfg, crds, all, r.decide); err != nil {
		return fmt.Errorf("%s: %w", r.suite.Path, err)
	}
	if r.report.Updated {
		if err := r.suite.write(); err != nil {
			return err
		}
	}
	if err := r.findVacuous(ctx, cfg, crds); err != nil {
		return fmt.Errorf("%s: %w", r.suite.Path, err)
	}
	return nil
}

// start expands the file's variables and starts its server, when it has one: the resolve
// entries, the generated CA, and the server.
func (r *run) start(ctx context.Context) (resolve []string, caBundle []byte, server *process, err error) {
	work, err := os.MkdirTemp("", "admit-test-")
	if err != nil {
		return nil, nil, nil, err
	}
	r.closers = append(r.closers, func() { os.RemoveAll(work) })
	port, err := freePort()
	if err != nil {
		return nil, nil, nil, err
	}
	self := r.opts.Admit
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return nil, nil, nil, fmt.Errorf("finding the admit binary for $(ADMIT): %w", err)
		}
	}
	dir, err := filepath.Abs(filepath.Dir(r.suite.Path))
	if err != nil {
		return nil, nil, nil, err
	}
	v := vars{"PORT": fmt.Sprint(port), "ADMIT": self, "SUITE_DIR": dir}
	for _, e := range r.suite.Resolve {
		expanded, err := v.expand(e)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: resolve: %w", r.suite.Path, err)
		}
		resolve = append(resolve, expanded)
	}
	if r.suite.Server == nil {
		return resolve, nil, nil, nil
	}
	services, err := review.ParseServices(resolve)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: resolve %w", r.suite.Path, err)
	}
	keys, err := newServerTLS(work, services.DNSNames())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: the server's certificates: %w", r.suite.Path, err)
	}
	v["CERT_DIR"] = keys.dir
	if server, err = startServer(ctx, r.suite.Server, v, dir, keys.pool); err != nil {
		return nil, nil, nil, fmt.Errorf("%s:%d: %w", r.suite.Path, r.suite.Server.Line, err)
	}
	r.closers = append(r.closers, server.stop)
	return resolve, keys.caBundle, server, nil
}

// config is what the file's cases are reviewed with: its webhooks (or the built-in ones), how
// they are reached, its cluster state.
func (r *run) config(ctx context.Context, resolve []string, caBundle []byte) (review.Config, error) {
	s := r.suite
	services, err := review.ParseServices(resolve)
	if err != nil {
		return review.Config{}, fmt.Errorf("resolve %w", err)
	}
	cfg := review.Config{
		WebhooksOnly: s.WebhooksOnly, ServiceResolver: services.Resolve, Timeout: r.opts.Timeout, DefaultCABundle: caBundle,
		Terms: review.Terms{OldObjects: "old", CRDs: "crds", Resolve: "a resolve entry"},
	}
	if len(s.Webhooks) > 0 {
		a, warnings, err := review.LoadAdmission("webhooks", s.Webhooks, false, nil)
		if r.opts.Warnings != nil {
			for _, w := range warnings {
				fmt.Fprintln(r.opts.Warnings, "warning:", w)
			}
		}
		if err != nil {
			return review.Config{}, err
		}
		a.Use(&cfg)
	} else {
		demo, err := builtin.ServeDemo(ctx)
		if err != nil {
			return review.Config{}, fmt.Errorf("starting the built-in webhooks: %w", err)
		}
		r.closers = append(r.closers, demo.Close)
		cfg.Mutating, cfg.Validating = demo.Mutating, demo.Validating
	}
	if err := (review.Paths{Cluster: s.Cluster, CRDs: s.CRDs}).LoadState(&cfg); err != nil {
		return review.Config{}, err
	}
	return cfg, nil
}

// write is how a case writes its object, as kubectl would: its operation, user and namespace.
func (r *run) write(c *Case) review.Write {
	namespace := r.suite.Namespace
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
	return w
}

// newCoverage lists the units of cfg's webhooks and policies, placed in the file's webhooks
// files (read again for their positions: a file that does not read leaves them unplaced).
func (r *run) newCoverage(cfg review.Config) *Coverage {
	c := NewCoverage(cfg)
	if len(r.suite.Webhooks) > 0 {
		if set, err := config.Load(config.Options{}, r.suite.Webhooks...); err == nil {
			c.locate(set)
		}
	}
	return c
}

// write rewrites the test file in place, and the expectation files --update rewrote, keeping
// their modes.
func (s *Suite) write() error {
	data, err := s.Encode()
	if err != nil {
		return err
	}
	files, err := s.Files()
	if err != nil {
		return err
	}
	files[s.Path] = data
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
