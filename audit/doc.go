// Package audit answers, before a rollout, what new webhook configurations and admission
// policies would do to a cluster: every write of a source — a dump of its objects, the cluster
// itself, an audit log's traffic — is admitted under the baseline (what the cluster has) and
// under the proposal (the baseline with the changes applied over it, Overlay), with
// kube-apiserver's whole admission chain (package review), and the two answers compared: the
// writes the proposal newly denies, fails, warns or mutates, per webhook and policy, per
// namespace, the worst first.
//
// Writes no changed webhook or policy can match are admitted alike under both and are not run
// (Matcher, which errs on the side of running). Memory is bounded by a batch of writes
// (Options.BatchSize): a source is read twice, once for the state admission reads, then a batch
// of writes at a time.
//
// An audit spreads over processes — the pods of an Indexed Job — with Options.Shard: each shard
// audits the writes of the objects whose key hashes to it, reading the whole source for the
// state, and Merge adds the shards' reports (ReadReport) up to the report of one run, byte for
// byte but for its time and duration.
//
// A program audits a dump with Run and renders the Report as it likes (WriteText, WriteJUnit,
// WriteHTML, its JSON, or PolicyReports: the working group's and openreports.io's Policy Reports,
// which the dashboards of policy results show); Report.Check says what the counts make of the
// rollout under thresholds. `admit audit` is that, with flags.
//
// One audit, in these files:
//
//	run.go            Options, Run: the two configurations' sessions, the writes a batch at a time
//	source.go         Source, Sink, Write: where writes come from
//	dump.go           Dump: a dump's objects, each written again
//	cluster.go        Cluster, ClusterInputs: a live cluster's objects, its baseline and state
//	log.go            Log: an audit log's writes, replayed
//	logfile.go        an audit log's files, lines and event heads, read a line at a time
//	event.go          an audit log's events
//	replay.go         an event's write: its object, the object before it, its user and options
//	admission.go      Overlay: the proposal over the baseline
//	changes.go        Step, Change, Changes: what the proposal changes, step by step
//	match.go          Matcher: whether a write can reach a changed step
//	compare.go        Compare, Finding: one write's two admissions compared
//	tally.go          the counts of a run, the worst findings kept
//	shard.go          Shard, ObjectKey: which writes a shard audits
//	merge.go          Merge, ReadReport, ReadShardReports: shards' reports read and added up
//	report.go         Report, Thresholds, Verdict: what was found, and what it means
//	text.go           Report.WriteText
//	markdown.go       Report.WriteMarkdown: for a pull request's comment, bounded
//	junit.go          Report.WriteJUnit
//	html.go           Report.WriteHTML: a self-contained page
//	policyreport.go   Report.PolicyReports: a Policy Report per namespace and the cluster's
//	policyresults.go  a write's Policy Report results, one per step, and how steps are named
//	chart.go          the page's charts
package audit
