// Package report turns the harness's measurements into the generated parts of
// docs/benchmarks.md — tables of medians and ratios, the goals met or missed — and SVG charts.
//
// Generated text lives between marker comments in the page,
//
//	<!-- admitbench:begin serving -->
//	...
//	<!-- admitbench:end serving -->
//
// and Splice replaces only what is between them, so the hand-written analysis around them stays.
//
// Ratios are medians of per-round ratios: every round measures all the compared things back to
// back, so a ratio within a round compares them under the same load from the rest of the machine.
//
//	report.go    Input, Report, Build: the goals, every section and chart
//	serving.go   the serving section and charts: medians and per-round ratios of each server
//	dispatch.go  the dispatcher section and chart: medians over rounds
//	latency.go   Latency, ParseLatency: the end-to-end latency benchmark's output, and its section
//	review.go    Review, ParseReview: the review throughput benchmark's output, and its section
//	audit.go     Audit, ParseAudit: the audit benchmark's output (admit audit of 100,000 objects), and its section
//	memory.go    Memory, ParseMemory: the memory benchmark's output (each command by input size), its section and goals
//	auditlog.go  AuditLog, ParseAuditLog: an audit log's audit unsharded and in shards (cmd/auditlogbench), its section,
//	             goals and the projection of a week's audit
//	anchors.go   Anchors, ParseAnchors: admit review against kube-apiserver's dry runs and kubectl-validate, its
//	             section and goals
//	results.go   the result lines of a benchmark's output, read alike for the parsers
//	patch.go     Patch, ParsePatch: the patch benchmarks' output, and the section of their table
//	size.go      Binary, ReadBinary: the release binary's size section, with what the linker kept
//	linking.go   Linking, ReadSymbols, ParseDumpdep, TopModules: what the linker kept, by module
//	splice.go    Splice: the generated sections put between their markers in the page
//	figures.go   ProseFigures, Figure.Held: the numbers of the page's hand-written text, and
//	             whether a recorded file or a generated section holds each
//
// The page is checked against bench/results by this package's tests (docs_test.go): its
// generated sections are what the recorded runs render, and every number of its text is held by
// a recorded file or a generated section, or is listed as no measurement with the reason.
package report
