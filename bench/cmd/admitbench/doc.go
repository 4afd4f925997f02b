// Command admitbench runs the serving and dispatcher comparisons and writes their results,
// charts and the generated sections of docs/benchmarks.md, with those of the other steps of
// `make bench` given as files: the output of the end-to-end latency, review throughput, audit,
// memory, audit log (cmd/auditlogbench), anchors (admit review against kube-apiserver and
// kubectl-validate) and patch benchmarks, and the release binary.
//
//	admitbench [-smoke] [-results DIR] [-docs FILE] [-docs-out FILE] [-latency FILE] [-review FILE] [-audit FILE] [-memory FILE] [-audit-log FILE] [-anchors FILE] [-patch FILE] [-binary FILE] [-profiles DIR]
//	admitbench -report-only [-results DIR] [-docs FILE] [-latency FILE] [-review FILE] [-audit FILE] [-memory FILE] [-audit-log FILE] [-anchors FILE] [-patch FILE] [-binary FILE]
//
// `make bench` runs the full size and updates the docs in place; `make bench-smoke` runs every
// phase briefly and writes everything to a temporary directory. The harness also re-executes
// itself as `admitbench serve -server KIND -certs DIR` to run each server in a process of its own.
//
//	main.go  the flags, the measurements or the last results, the report; `admitbench serve`
package main
