package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/admitkit/admit/audit"
	"github.com/admitkit/admit/clusterstate"
	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

// run audits what the flags name with package audit and prints its report.
func (o *auditOptions) run(cmd *cobra.Command, streams Streams) error {
	if err := o.check(cmd); err != nil {
		return badInput(err)
	}
	ctx := cmd.Context()
	opts, source, cleanup, err := o.options(ctx, cmd, streams)
	defer cleanup()
	if err != nil {
		return err
	}
	store, err := o.shardStore(ctx, opts.Shard, streams)
	if err != nil {
		return err
	}
	stop := o.showProgress(&opts)
	report, err := audit.Run(ctx, source, opts)
	stop()
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return badInput(err)
	}
	if opts.Shard.Sharded() {
		// A shard's verdict is the merge's: its report is written, and it succeeded.
		if store != nil {
			return store.put(ctx, streams, report)
		}
		return o.report.write(streams, report)
	}
	return o.report.finish(streams, report)
}

// options are the audit's options and source, as the flags give them: the proposal over the
// baseline (the cluster's configurations with --kubeconfig unless --baseline), the state, how
// objects are written. cleanup removes what it made, whatever its error.
func (o *auditOptions) options(ctx context.Context, cmd *cobra.Command, streams Streams) (opts audit.Options, source audit.Source, cleanup func(), err error) {
	cleanup = func() {}
	s := &o.session
	cfg, err := s.baseConfig(nil)
	if err != nil {
		return opts, nil, cleanup, badInput(err)
	}
	cfg.Concurrency = o.concurrency
	cfg.Terms.OldObjects, cfg.Terms.CRDs = "the object's own stored version", "their CustomResourceDefinition (--crds, or in the dump)"
	if err := s.paths(streams).LoadState(&cfg); err != nil {
		return opts, nil, cleanup, badInput(err)
	}
	changes, err := s.loadAdmission("--webhooks", s.webhooks, streams)
	if err != nil {
		return opts, nil, cleanup, badInput(err)
	}
	opts = audit.Options{Config: cfg, Write: o.write(), Namespace: o.namespace, Limit: o.limit, BatchSize: o.batchSize, ProposalName: strings.Join(s.webhooks, ", ")}
	if opts.Shard, err = o.shardOf(streams); err != nil {
		return opts, nil, cleanup, badInput(err)
	}
	var baseline *review.Admission
	switch {
	case len(o.baseline) > 0:
		b, err := s.loadAdmission("--baseline", o.baseline, streams)
		if err != nil {
			return opts, nil, cleanup, badInput(err)
		}
		baseline, opts.BaselineName = &b, strings.Join(o.baseline, ", ")
	case !o.readsCluster():
		baseline, opts.BaselineName = &review.Admission{}, "none (no webhook configuration or admission policy)"
	}
	var cluster *clusterstate.Cluster
	if o.readsCluster() {
		if cluster, err = o.readCluster(ctx, cmd, &opts, changes, baseline); err != nil {
			return opts, nil, cleanup, err
		}
	} else {
		opts.Baseline = *baseline
	}
	opts.Proposal = audit.Overlay(opts.Baseline, changes)
	source, cleanup, err = o.source(cluster, streams.In)
	return opts, source, cleanup, err
}

// readCluster reads the cluster --kubeconfig (or --in-cluster) names: its configurations as the
// baseline (unless given), its state, its Service range.
func (o *auditOptions) readCluster(ctx context.Context, cmd *cobra.Command, opts *audit.Options, changes review.Admission, baseline *review.Admission) (*clusterstate.Cluster, error) {
	rc, err := o.access().restConfig()
	if err != nil {
		return nil, badInput(err)
	}
	cluster, err := clusterstate.Connect(rc)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: %w", o.access().name(), err))
	}
	// The cluster's whole state is read: what it lacks does not exist (as with --kubeconfig).
	opts.Config.CompleteState = true
	base, state, notes, err := audit.ClusterInputs(ctx, cluster, o.namespace, changes, baseline)
	if err != nil {
		return nil, err
	}
	if baseline == nil {
		opts.BaselineName = "the configurations and policies of " + cluster.Host
	}
	opts.Baseline, opts.Config.Live, opts.Notes = base, state, notes
	if !cmd.Flags().Changed("service-cidr") {
		if cidr := cluster.ServiceCIDR(ctx); cidr != "" {
			opts.Config.APIServer.ServiceCIDR = cidr
		}
	}
	return cluster, nil
}

// source is what -f, --audit-log or --kubeconfig names; cleanup removes a copy of stdin.
func (o *auditOptions) source(cluster *clusterstate.Cluster, stdin io.Reader) (audit.Source, func(), error) {
	switch {
	case len(o.files) > 0:
		dump, err := manifest.Expand(o.files, manifest.Options{Recursive: o.session.recursive, Stdin: stdin, Command: "admit audit -f -"})
		if err != nil {
			return nil, func() {}, badInput(err)
		}
		// A dump is read twice: its state, then its objects.
		remove, err := dump.Spool()
		if err != nil {
			return nil, remove, badInput(err)
		}
		return &audit.Dump{Inputs: dump, Paths: o.files}, remove, nil
	case o.auditLog == "-":
		// A log is read twice: its state, then its writes.
		log, remove, err := audit.SpoolLog(stdin, "standard input")
		if err != nil {
			return nil, remove, badInput(err)
		}
		return log, remove, nil
	case o.auditLog != "":
		return &audit.Log{Path: o.auditLog}, func() {}, nil
	}
	return &audit.Cluster{Cluster: cluster, Namespace: o.namespace}, func() {}, nil
}

// shardOf is the shard --shard names, or the Indexed Job's the environment gives; the zero
// Shard for the whole source. A shard's report is for admit audit merge: JSON or YAML.
func (o *auditOptions) shardOf(streams Streams) (audit.Shard, error) {
	var shard audit.Shard
	if o.shard != "" {
		s, err := audit.ParseShard(o.shard)
		if err != nil {
			return shard, fmt.Errorf("--shard: %w", err)
		}
		shard = s
	} else {
		s, ok, err := audit.ShardFromEnv(streams.getenv)
		if !ok || err != nil {
			return shard, err
		}
		shard = s
	}
	if o.store.toConfigMap == "" && o.report.output != outputJSON && o.report.output != outputYAML {
		return shard, fmt.Errorf("shard %s: a shard's report is for admit audit merge to read: give -o json or -o yaml", shard)
	}
	return shard, nil
}

// write is how a dump's or a cluster's objects are written.
func (o *auditOptions) write() review.Write {
	dryRun, _ := parseDryRun(o.dryRun)             // checked
	validation, _ := fieldValidationOf(o.validate) // checked
	return review.Write{
		Operation: admissionv1.Operation(strings.ToUpper(o.operation)), DryRun: dryRun, FieldValidation: validation,
		User: authenticationv1.UserInfo{Username: o.user, Groups: o.groups}, FieldManager: o.session.fieldManager,
	}
}

// showProgress rewrites one line on the terminal with how far the audit is (see progressLine).
func (o *auditOptions) showProgress(opts *audit.Options) (stop func()) {
	if o.progress == nil {
		return func() {}
	}
	var p progress
	opts.Progress = func(read, total int64) { p.done.Store(read); p.total.Store(total) }
	return progressLine(o.progress, func(elapsed time.Duration) string {
		of := ""
		if total := p.total.Load(); total > 0 {
			of = fmt.Sprintf(" of %d", total)
		}
		return fmt.Sprintf("auditing: %d%s (%s; Ctrl-C reports what is done)", p.done.Load(), of, elapsed.Round(time.Second))
	})
}

// writeFile writes a file through write, reporting the first error.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
