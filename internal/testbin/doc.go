// Package testbin provides the programs that the reliability and e2e suites run as separate
// processes — the admit command, contrib's example server — built before any test starts a clock.
//
// Building admit statically takes minutes on a machine whose Go build cache has never built it,
// so a build must never happen inside a test's deadline. `make test` builds each program once,
// before the suites, and names it in an environment variable (Admit.Env); a suite run by hand
// (go test ./test/reliability) builds what it needs in its TestMain instead, before m.Run.
//
//	testbin.go  Program, Binary: the admit command and contrib's example server, the binary an
//	            environment variable names or one built into a temporary directory
package testbin
