//go:build e2e

// Package e2e tests admit against a real kube-apiserver and etcd started on loopback by
// TestMain (see internal/testenv). Run with: go test -race -count=1 -tags e2e ./test/e2e/
package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/admitkit/admit/internal/testbin"
	"github.com/admitkit/admit/internal/testenv"
	"github.com/admitkit/admit/kubelog"
)

// env is the environment shared by every test in this package; TestMain sets it before
// any test runs. Tests that create objects use their own namespace so they can run in
// parallel.
var env *testenv.Env

func TestMain(m *testing.M) {
	// klog's logger is process-wide and may not change while other goroutines log: quieted
	// here, before the tests' clients log, rather than by the first chain a parallel test
	// builds (package kubelog).
	kubelog.Quiet()
	// Tests run admit and contrib's example as processes under deadlines of their own: the
	// binaries are there before the first test starts (a cold build takes minutes; make test
	// builds them beforehand).
	admit, err := testbin.Admit().Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	admitPath = admit.Path
	labeller, err := testbin.ContribLabeller().Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	labellerPath = labeller.Path
	code := testenv.Main(m, &env, testenv.Options{})
	for _, b := range []*testbin.Binary{admit, labeller} {
		if err := b.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: removing a binary:", err)
		}
	}
	os.Exit(code)
}
