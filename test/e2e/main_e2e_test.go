//go:build e2e

// Package e2e tests admit against a real kube-apiserver and etcd started on loopback by
// TestMain (see internal/testenv). Run with: go test -race -count=1 -tags e2e ./test/e2e/
package e2e

import (
	"os"
	"testing"

	"github.com/admitkit/admit/internal/testenv"
)

// env is the environment shared by every test in this package; TestMain sets it before
// any test runs. Tests that create objects use their own namespace so they can run in
// parallel.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, &env, testenv.Options{}))
}
