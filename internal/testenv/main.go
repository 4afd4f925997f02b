package testenv

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
)

// envKeep, when set to a non-empty value, keeps the environment's directory after the
// tests for inspection.
const envKeep = "ADMIT_TESTENV_KEEP"

// Main starts one Env for a test package, stores it in *env, runs the tests, stops the Env
// and returns the exit code. Call it from TestMain:
//
//	var env *testenv.Env
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m, &env, testenv.Options{})) }
//
// Progress goes to stderr with -v. When tests fail, the end of the apiserver log is
// printed; set ADMIT_TESTENV_KEEP=1 to keep all logs and data.
func Main(m *testing.M, env **Env, opts Options) int {
	flag.Parse() // testing.Verbose needs parsed flags, and m.Run has not parsed them yet
	if opts.Logf == nil && testing.Verbose() {
		opts.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	if os.Getenv(envKeep) != "" {
		opts.KeepDir = true
	}
	started, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: cannot start kube-apiserver and etcd: %v\n", err)
		return 1
	}
	*env = started

	code := m.Run()

	if code != 0 {
		fmt.Fprintf(os.Stderr, "testenv: tests failed; last lines of %s (set %s=1 to keep it):\n%s\n",
			started.APIServerLogPath, envKeep, started.APIServerLogTail(logTailLines))
	}
	if err := started.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
