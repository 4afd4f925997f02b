// Package testsuite runs the declarative test files of `admit test`, for the CLI and for Go
// tests alike: which webhook configurations and policies to run, how to reach (or start) the
// webhook servers, and cases — an object (with its old object, operation, user, dry run) and
// what admission must decide about it. Run (or RunFile) starts the file's server, admits every
// case as `admit review` admits an object (package review), checks each case's expectations
// against its result (with Options.Coverage, what the cases exercised of the webhooks and
// policies: Report.Coverage), and with Options.Update rewrites a failing case's expectations
// from its result, keeping the rest of the file as written. RunT runs a file's cases as Go
// subtests, so that `go test ./...` holds a repository's test files. Find and RunFiles run every
// test file under directories and add up their reports as `admit test` does, with its guards
// and its outputs (WriteText, WriteJUnit, WriteMarkdown, WriteStructured).
//
// A run's memory does not grow with its cases: RunFile reads a file's cases one at a time from
// the file (but under Options.Update, which rewrites it), and a Report keeps its case reports as
// they are decided, in a temporary file past a few hundred, read back with EachCase; Close the
// Report (or the Results) to remove it.
//
// A file looks like this (paths are relative to the file):
//
//	apiVersion: admit.dev/v1alpha1
//	kind: TestSuite
//	name: image mirrors
//	webhooks: [webhooks.yaml]
//	resolve: ["admit-system/admit=127.0.0.1:$(PORT)"]
//	server:
//	  command: ["$(ADMIT)", "serve", "--addr", "127.0.0.1:$(PORT)", "--cert-dir", "$(CERT_DIR)"]
//	  env: {ADMIT_IMAGE_MIRRORS: docker.io=mirror.local/hub}
//	  ready: https://127.0.0.1:$(PORT)/readyz
//	cases:
//	- name: a Pod's image is mirrored
//	  object: pod.yaml
//	  expect:
//	    allowed: true
//	    fields:
//	      spec.containers[0].image: mirror.local/hub/library/nginx:1.27
//
// One file's run, in these files:
//
//	suite.go   Suite, Case, Expect, Load, Parse: a test file, read strictly with every problem
//	parse.go   the parser's helpers: fields, strings, paths, YAML's aliases and merge keys
//	expect.go  a case's objects and expectations, inline or in files
//	caseread.go openCases, caseFile: a file's cases found by a line scan and read one at a time
//	run.go     Options, Run, RunFile: the server, the configuration, the main and control runs
//	admit.go   the selected cases read again and admitted a batch at a time as if applied
//	           together (review.Plan), each decided in the file's order
//	server.go  the file's server: variables, a throwaway CA, started, probed, stopped
//	check.go   Check, Called, Outcomes, Rows: a result against a case's expectations
//	object.go  the admitted object against expected fields and documents
//	schema.go  absent expectations checked against the kind's schema: one naming no field fails
//	markdown.go WriteMarkdown: a run for a pull request's comment, bounded
//	vacuous.go the control run: a case that passes without what it tests fails
//	coverage.go        Coverage, NewCoverage: the units of a file's webhooks, policies and bindings
//	coverage_record.go Record: what each case's result rows prove was exercised
//	coverage_text.go   MergeCoverage, WriteText: several files' coverage added up, as a table
//	coverage_html.go   WriteHTML: the configuration files with each unit's line marked
//	update.go  Update, Encode, Files: expectations rewritten from results
//	report.go  Report, CaseReport: what a run found, its cases read with EachCase
//	caselog.go the case reports as decided: held, or kept in a temporary file past a few hundred
//	structured.go WriteStructured: -o json and -o yaml, a case report at a time
//	files.go   Find, IsFileName: the test files under directories
//	results.go Results, RunFiles: several files run and counted; a filter selecting no case
//	text.go    WriteText, WriteJUnit: results for people and for CI systems
//	gotest.go  RunT: a file's cases as Go subtests
package testsuite
