// Package bench compares admit's building blocks with the libraries other
// webhook frameworks use. It is a module of its own so that those libraries
// never become dependencies of admit itself.
//
// Patch generation (see docs/benchmarks.md for results):
//
//	cd bench && go test -run '^$' -bench 'Diff|Lossless|Typed' -benchmem -count 5
//
// compares patch.Diff and patch.Lossless with gomodules.xyz/jsonpatch/v2
// (controller-runtime, kubewebhook, knative) and github.com/wI2L/jsondiff.
// TestPatchesApply checks first that every library's patch, applied with
// the API server's library, really produces the intended document, so the
// timings compare equivalent work.
package bench
