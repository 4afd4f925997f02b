// Package bench compares admit with the libraries and frameworks other webhooks use, and holds
// the workload every comparison shares: the 10 KB Pod of testdata/pod.json (Pod, PodJSON), the
// AdmissionReview of its CREATE (AdmissionReview) and the defaulter that labels it and injects a
// sidecar (Inject), with checks that an answer did exactly that (CheckResponse, CheckPatch). It is
// a module of its own so that the compared libraries never become dependencies of admit itself.
// Results are in docs/benchmarks.md.
//
// Patch generation, in this package's benchmarks (`make bench-patch` runs them five times and
// keeps the output in results/patch.txt, from which the harness renders their table):
//
//	cd bench && go test -run '^$' -bench 'Diff|Lossless|Typed' -benchmem -count 5
//
// compares patch.Diff and patch.Lossless with gomodules.xyz/jsonpatch/v2 (controller-runtime,
// kubewebhook, knative) and github.com/wI2L/jsondiff. TestPatchesApply checks first that every
// library's patch, applied with the API server's library, really produces the intended document,
// so the timings compare equivalent work.
//
// Serving and dispatching, in the harness (`make bench`, or `make bench-smoke` for a brief run):
//
//	cmd/admitbench  the harness: measures, saves results, draws charts, rewrites the docs page
//	suite           the comparisons: servers in child processes, rounds, samples
//	servers         the servers under test: admit, controller-runtime, a bare floor
//	dispatchers     admit's dispatcher and kube-apiserver's webhook admission plugins
//	loadgen         the load generator: keep-alive TLS connections, fixed-rate and maximum modes
//	usage           CPU time, allocations and memory of a process; the machine
//	report, chart   tables, goals and SVG charts for docs/benchmarks.md
//
// An audit log's audit, unsharded and in shards (`make bench-audit-log`):
//
//	cmd/auditlogbench  the harness: each audit a process of its own, the passes every shard pays
//	auditlog           the generated audit log: a cluster at work, reads interleaved
//
//	fixture.go  Pod, PodJSON, Inject, AdmissionReview; CheckResponse, CheckPatch: an answer checked
package bench
