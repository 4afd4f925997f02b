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
	"github.com/admitkit/admit/resources"
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

// RunFile loads a test file and runs it; a file that does not load is the Report's Error.
func RunFile(ctx context.Context, path string, opts Options) *Report {
	s, err := Load(path)
	if err != nil {
		return &Report{Name: path, File: path, Error: err.Error()}
	}
	return Run(ctx, s, opts)
}

// Run runs a test file's cases (those Options.Filter selects): its server started, each case
// admitted as `admit review` admits an object, its expectations checked — and, with
// Options.Update, the failing cases' expectations rewritten in the file. A problem that stops
// the whole file is the Report's Error; a case that cannot be built is that case's.
func Run(ctx context.Context, s *Suite, opts Options) *Report {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	report := &Report{Name: s.Name, File: s.Path}
	var cases []*Case
	for _, c := range s.Cases {
		report.Names = append(report.Names, c.Name)
		if opts.Filter == nil || opts.Filter.MatchString(c.Name) {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return report
	}
	r := &run{suite: s, opts: opts, report: report, cases: cases}
	if err := r.run(ctx); err != nil {
		// The cases did not run: listed, they would count as failed without a reason.
		report.Error, report.Cases, report.Coverage = err.Error(), nil, nil
	}
	return report
}

// run is one test file's run.
type run struct {
	suite  *Suite
	opts   Options
	report *Report
	cases  []*Case
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
	cs := r.reportCases()
	cfg, err := r.config(ctx, resolve, caBundle)
	if err != nil {
		return fmt.Errorf("%s: %w", r.suite.Path, err)
	}
	if err := r.checkTests(cfg); err != nil {
		return err
	}
	if r.opts.Coverage {
		r.report.Coverage = r.newCoverage(cfg)
	}
	err = r.admit(ctx, cfg, cs, func(i int) bool { return r.report.Cases[i].Error == "" },
		func(i int, err error) { r.report.Cases[i].Error = err.Error() }, r.check)
	if err != nil {
		return fmt.Errorf("%s: %w", r.suite.Path, err)
	}
	if r.report.Updated {
		if err := r.suite.write(); err != nil {
			return err
		}
		for _, cr := range r.report.Cases {
			if cr.Updated {
				cr.Passed, cr.Failures = true, nil
			}
		}
	}
	if err := r.findVacuous(ctx, cfg, cs); err != nil {
		return fmt.Errorf("%s: %w", r.suite.Path, err)
	}
	return nil
}

// cases are the CustomResourceDefinitions among the file's cases' objects: the Session knows
// their kinds. The cases' objects are read again for each admission, not held.
type cases struct {
	crds []review.Input
}

// batchSize is how many cases are admitted at once: a few times the Session's concurrency, so
// that a file of many cases holds a batch of admitted objects rather than all of them.
const batchSize = 64

// admit admits the cases selected with a session of cfg, each as `admit review` admits an
// object, and calls each with the case's index and outcome as soon as it is decided; the outcome
// is dropped after. The cases are read twice: once for what admitting them together reads of
// them (review.Plan), then a batch at a time to admit them. A case whose request cannot be
// built is given to fail instead.
func (r *run) admit(ctx context.Context, cfg review.Config, cs cases, selected func(i int) bool, fail func(i int, err error), each func(i int, o *review.Outcome, schemas fieldSchemas)) error {
	session, err := review.New(cfg, cs.crds)
	if err != nil {
		return err
	}
	plan := session.Plan()
	var built []int
	for i, c := range r.cases {
		if !selected(i) {
			continue
		}
		o, err := r.request(session, c)
		if err != nil {
			fail(i, err)
			continue
		}
		plan.Take(o)
		built = append(built, i)
	}
	if plan.Runnable() == 0 {
		return nil
	}
	batches, err := plan.Batches(ctx)
	if err != nil {
		return err
	}
	defer batches.Close()
	schemas := newFieldSchemas(session.CRDs())
	for batch := range slices.Chunk(built, batchSize) {
		outcomes := make([]*review.Outcome, len(batch))
		for k, i := range batch {
			if outcomes[k], err = r.request(session, r.cases[i]); err != nil {
				return fmt.Errorf("case %q built once, not twice: %w", r.cases[i].Name, err)
			}
		}
		if err := batches.Admit(ctx, outcomes); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, i := range batch {
			each(i, outcomes[k], schemas)
			outcomes[k] = nil
		}
	}
	return nil
}

// request builds case c's request with session: its objects read, written as the case says.
func (r *run) request(session *review.Session, c *Case) (*review.Outcome, error) {
	objects, olds, err := caseObjects(c)
	if err != nil {
		return nil, err
	}
	outcomes, err := session.Requests(objects, olds, r.write(c))
	if err == nil && outcomes[0].Err != nil {
		err = outcomes[0].Err
	}
	if err == nil && outcomes[0].Request == nil {
		// Not reviewed, and no error: what a Session skips (Config.SkipMissingCRDs), which a
		// case's expectations cannot be checked against.
		err = fmt.Errorf("%s: not reviewed: %s", c.ObjectSource, outcomes[0].Skipped)
	}
	if err != nil {
		return nil, err
	}
	return outcomes[0], nil
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

// reportCases starts each case's report, with the error of a case whose objects do not read,
// and returns the CustomResourceDefinitions among the objects.
func (r *run) reportCases() cases {
	var cs cases
	for _, c := range r.cases {
		cr := &CaseReport{Name: c.Name, Line: c.Line, Error: c.Err}
		r.report.Cases = append(r.report.Cases, cr)
		if c.Err != "" {
			continue
		}
		objects, _, err := caseObjects(c)
		if err != nil {
			cr.Error = err.Error()
			continue
		}
		cs.crds = append(cs.crds, slices.DeleteFunc(objects, func(in review.Input) bool { return !resources.IsCRD(in.Object.GroupVersionKind().GroupKind()) })...)
	}
	return cs
}

// caseObjects reads a case's object and old object.
func caseObjects(c *Case) (objects, olds []review.Input, err error) {
	if objects, err = review.Parse(c.ObjectSource, c.Object); err == nil && c.Old != nil {
		olds, err = review.Parse(c.OldSource, c.Old)
	}
	return objects, olds, err
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

// check checks the admission of case i against its expectations, and rewrites those of a
// failing case with Options.Update.
func (r *run) check(i int, o *review.Outcome, schemas fieldSchemas) {
	c, cr := r.cases[i], r.report.Cases[i]
	cr.Took, cr.DurationSeconds = o.Took, o.Took.Seconds()
	if o.Err != nil {
		cr.Error = o.Err.Error()
		return
	}
	if r.report.Coverage != nil {
		r.report.Coverage.Record(c.Name, o.Result)
	}
	allowed := o.Result.Allowed
	cr.Allowed, cr.Called, cr.Webhooks = &allowed, Called(o.Result), Rows(o.Result)
	cr.Warnings, cr.AuditAnnotations = o.Result.Warnings, o.Result.AuditAnnotations
	if !allowed {
		cr.Status = o.Result.Status
	}
	if err := schemas.vacuous(c.Expect, o.Result.Object); err != nil {
		// The expectation cannot fail: the case is wrong, not the admission.
		cr.Error = err.Error()
		return
	}
	cr.Failures = Check(c.Expect, o.Result)
	cr.Passed = len(cr.Failures) == 0
	if r.opts.Update && !cr.Passed {
		if err := c.Update(o.Result); err != nil {
			cr.Error = err.Error()
			return
		}
		cr.Updated, r.report.Updated = true, true
	}
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
