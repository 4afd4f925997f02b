// Package cli builds the admit command tree. Commands are thin: they parse flags, call the
// library packages and print results; exit codes follow the outcome (see ExitCode constants).
//
// One command per file, with what the commands share:
//
//	root.go          Run, NewRootCommand: the command tree, its streams and the exit codes
//	serve.go         admit serve: the built-in webhooks, their flags and environment, TLS, the
//	                 certificate rotator, --print-config
//	review.go        admit review: its flags; the run, with progress on a terminal; the report and
//	                 the exit status, the worst of the objects' outcomes
//	review_flags.go  review's flags checked: names given twice, --dry-run, --validate, --ca-file
//	review_input.go  the objects under review read from files, directories and stdin
//	session.go       the review.Config the flags of review and audit describe: configurations,
//	                 policies, the cluster's state from files or --kubeconfig, how webhooks are
//	                 reached, the cluster's options
//	test.go          admit test: test files found, run with package testsuite, reported as text,
//	                 JSON, YAML or JUnit
//	audit.go         admit audit: its flags and the checks between them
//	audit_run.go     the audit run with package audit: the source, the shard, the cluster read,
//	                 progress
//	audit_report.go  how an audit's report is written and judged, in admit audit and its merge:
//	                 the formats, the thresholds and the exit code
//	audit_merge.go   admit audit merge: shards' reports read from files, directories and
//	                 ConfigMaps, added up
//	audit_store.go   the cluster an audit's reports are kept in (--in-cluster, --to-configmap,
//	                 --from-configmaps, --apply-policy-reports), with package audit/reportstore
//	lint.go          admit lint: its flags, the rules run on files or a cluster, the report (text,
//	                 JSON, YAML, SARIF), --list-rules
//	lint_input.go    lint's inputs read one by one, a bad file not hiding the others' findings
//	certs.go         admit certs create and admit certs inject
//	dev.go           admit dev: a fresh certificate, the cluster's webhooks pointed at this machine
//	                 by package devsession, COMMAND run, the copies deleted after (--cleanup)
//	version.go       admit version: the version from the link, the module or the checkout
//	flags.go         flags given at most once, fixed completions, a flag given under two names,
//	                 whether a writer is a terminal
//	kubeconfig.go    the cluster a command reaches, found as kubectl finds it
//	output.go        -o text|json|yaml, and structured output
//	progress.go      progressLine: one line rewritten on the terminal while a run lasts
package cli
