package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/resources"
	"github.com/admitkit/admit/review"
)

// auditRun is one audit: the two configurations' streams, what is read, what is found.
type auditRun struct {
	o       *auditOptions
	changed map[stepKey]string
	matcher *changeMatcher
	mapper  *resources.Mapper
	// base and prop admit under the baseline and under the proposal.
	base, prop auditSide
	tally      *tally
	// write is how a dump's or a cluster's objects are written.
	write review.Write
	batch []auditItem
	// read counts the writes read; total is how many there are, when known (0 otherwise).
	read, total atomic.Int64
	// ctx ends on Ctrl-C: the batch being admitted finishes, no other is read.
	ctx         context.Context
	interrupted bool
	notes       []string
}

// auditSide is one configuration's session, and its stream over the run's state.
type auditSide struct {
	session *review.Session
	stream  *review.Stream
}

// errInterrupted stops reading when Ctrl-C was pressed.
var errInterrupted = errors.New("interrupted")

// auditPlan is what is compared: the baseline, the proposal, what differs, where the objects
// come from.
type auditPlan struct {
	base, proposed admissionSet
	changed        []change
	cluster        *auditCluster
	served         []servedResource
	report         *auditReport
}

func (o *auditOptions) run(cmd *cobra.Command, streams Streams) error {
	start := time.Now()
	if err := o.check(cmd); err != nil {
		return badInput(err)
	}
	plan, err := o.plan(cmd.Context(), streams)
	if err != nil {
		return err
	}
	r, dump, cleanup, err := o.open(cmd, streams, plan)
	defer cleanup()
	if err != nil {
		return err
	}
	stop := r.showProgress()
	switch {
	case dump != nil:
		err = r.auditDump(dump)
	case o.auditLog != "":
		err = r.auditLog()
	default:
		err = r.auditCluster(plan.cluster, plan.served)
	}
	if err == nil {
		err = r.flush()
	}
	stop()
	switch {
	case errors.Is(err, errInterrupted):
		r.interrupted = true
	case err != nil:
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return badInput(err)
	}
	for _, a := range r.prop.session.Assumed() {
		r.notes = append(r.notes, "assumed "+a)
	}
	r.fill(plan.report)
	plan.report.DurationSeconds = time.Since(start).Seconds()
	return o.finish(streams, plan.report)
}

// plan reads the proposal, the cluster's discovery and the baseline, and compares them.
func (o *auditOptions) plan(ctx context.Context, streams Streams) (*auditPlan, error) {
	proposedSet, err := o.session.loadConfigurations("--webhooks", o.session.webhooks, streams)
	if err != nil {
		return nil, badInput(err)
	}
	p := &auditPlan{report: &auditReport{APIVersion: "admit.dev/v1alpha1", Kind: "AuditReport", Proposal: strings.Join(o.session.webhooks, ", ")}}
	if o.session.kubeconfig != "" {
		if p.cluster, err = newAuditCluster(o.session.kubeconfig, o.namespace); err != nil {
			return nil, badInput(err)
		}
		if p.served, err = p.cluster.served(); err != nil {
			return nil, err
		}
	}
	switch {
	case len(o.baseline) > 0:
		set, err := o.session.loadConfigurations("--baseline", o.baseline, streams)
		if err != nil {
			return nil, badInput(err)
		}
		p.base, p.report.Baseline = admissionSetOf(set), strings.Join(o.baseline, ", ")
	case p.cluster != nil:
		if p.base, err = p.cluster.admission(ctx, p.served); err != nil {
			return nil, err
		}
		p.report.Baseline = "the configurations and policies of " + p.cluster.host
	default:
		p.report.Baseline = "none (no webhook configuration or admission policy)"
	}
	p.proposed = overlay(p.base, admissionSetOf(proposedSet))
	p.changed = changes(p.base, p.proposed)
	for _, c := range p.changed {
		p.report.Changes = append(p.report.Changes, auditChange{stepKey: c.step, Change: c.what})
	}
	return p, nil
}

// open prepares the run: the cluster's state (from the cluster, or a first reading of the dump
// or the log), the resources the changes can match, and both configurations' sessions and
// streams. files are the dump's; cleanup closes what open opened, whatever its error.
func (o *auditOptions) open(cmd *cobra.Command, streams Streams, plan *auditPlan) (r *auditRun, dump *manifest.Inputs, cleanup func(), err error) {
	var closers []func()
	cleanup = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	ctx := cmd.Context()
	cfg, resolved, err := o.session.baseConfig()
	if err != nil {
		return nil, nil, cleanup, badInput(err)
	}
	// Both configurations admit every object at one moment, so that what they create (uids,
	// creation times, managedFields' times) is the same unless a step changes it.
	moment := time.Now().UTC().Truncate(time.Second)
	cfg.Now = func() time.Time { return moment }
	cfg.Concurrency = o.concurrency
	cfg.Terms = review.Terms{OldObjects: "the object's own stored version", CRDs: "their CustomResourceDefinition (--crds, or in the dump)"}
	if err := o.session.loadFileState(&cfg); err != nil {
		return nil, nil, cleanup, badInput(err)
	}
	var caBundle []byte
	if o.session.caFile != "" {
		if caBundle, err = readCABundle(o.session.caFile); err != nil {
			return nil, nil, cleanup, badInput(err)
		}
	}

	r = &auditRun{o: o, ctx: ctx, changed: map[stepKey]string{}}
	for _, c := range plan.changed {
		r.changed[c.step] = c.what
	}
	validation, _ := fieldValidationOf(o.validate) // checked
	r.write = review.Write{
		Operation: admissionv1.Operation(strings.ToUpper(o.operation)), DryRun: o.dryRun == "server", FieldValidation: validation,
		User: authenticationv1.UserInfo{Username: o.user, Groups: o.groups}, FieldManager: o.session.fieldManager,
	}
	report := plan.report

	// The state admission reads, and the namespaces the writes live in.
	var namespaces []string
	if plan.cluster != nil {
		live, notes, err := plan.cluster.state(ctx, plan.served, plan.base, plan.proposed)
		if err != nil {
			return nil, nil, cleanup, err
		}
		cfg.Live, r.notes = live, append(r.notes, notes...)
		if !cmd.Flags().Changed("service-cidr") {
			if cidr := plan.cluster.serviceCIDR(ctx, plan.served); cidr != "" {
				cfg.APIServer.ServiceCIDR = cidr
			}
		}
	}
	var found dumpScan
	switch {
	case len(o.files) > 0:
		report.Source = strings.Join(o.files, ", ")
		var remove func()
		dump, remove, err = o.dumpInputs(streams.In)
		closers = append(closers, remove)
		if err != nil {
			return nil, nil, cleanup, badInput(err)
		}
		if found, err = scanDump(dump, plan.base, plan.proposed, plan.cluster == nil); err != nil {
			return nil, nil, cleanup, badInput(err)
		}
	case o.auditLog != "":
		report.Source = o.auditLog
		if found, err = scanAuditLog(o.auditLog, plan.cluster == nil); err != nil {
			return nil, nil, cleanup, badInput(err)
		}
	default:
		report.Source = plan.cluster.host
	}
	cfg.Live = append(cfg.Live, found.state...)
	namespaces = found.namespaces
	r.total.Store(int64(found.objects))
	if o.auditLog == "" {
		report.Operation = string(r.write.Operation)
	}

	crds, err := knownCRDs(cfg)
	if err != nil {
		return nil, nil, cleanup, badInput(err)
	}
	if r.mapper, err = resources.Builtin(); err != nil {
		return nil, nil, cleanup, err
	}
	if len(crds) > 0 {
		if r.mapper, err = r.mapper.WithCRDs(crds...); err != nil {
			return nil, nil, cleanup, badInput(err)
		}
	}
	r.matcher = newChangeMatcher(plan.changed, r.mapper)

	// The two configurations, each with its own session and stream over the same state.
	for _, side := range []struct {
		set    admissionSet
		target *auditSide
		name   string
	}{{plan.base, &r.base, "the baseline"}, {plan.proposed, &r.prop, "the proposal"}} {
		c := cfg
		c.Mutating, c.Validating, c.Policies = side.set.mutating, side.set.validating, side.set.policies
		if len(caBundle) > 0 {
			fillCABundles(c.Mutating, c.Validating, caBundle)
		}
		if !o.session.resolveDNS {
			if err := checkServicesResolved(c.Mutating, c.Validating, resolved); err != nil {
				return nil, nil, cleanup, badInput(fmt.Errorf("%s: %w", side.name, err))
			}
		}
		session, err := review.New(c, nil)
		if err != nil {
			return nil, nil, cleanup, badInput(fmt.Errorf("%s: %w", side.name, err))
		}
		// Admissions go on when Ctrl-C is pressed: the batch under way finishes and is reported.
		stream, err := session.Stream(context.WithoutCancel(ctx), namespaces)
		if err != nil {
			return nil, nil, cleanup, badInput(fmt.Errorf("%s: %w", side.name, err))
		}
		closers = append(closers, stream.Close)
		side.target.session, side.target.stream = session, stream
	}
	r.tally = newTally(o.limit, plan.changed)
	return r, dump, cleanup, nil
}
