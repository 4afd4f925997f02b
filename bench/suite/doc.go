// Package suite runs the serving and dispatcher comparisons and returns every measurement.
//
// Serving (RunServing): each server under test (servers.Kinds) runs in a child process of its own
// — the harness re-executes itself as `<executable> serve -server <kind> -certs <dir>` (see
// ServeChild) — so that its CPU time and allocations, read from the child before and after each
// phase, never include the load generator's. Each round measures every server back to back, in a
// rotated order, with a maximum-throughput phase and a fixed-rate phase; rounds are repeated so
// the report can take medians and per-round ratios on a machine shared with other work.
//
// Dispatch (RunDispatch): admit's webhooks run in a child process; the dispatchers run in this
// process, one phase at a time, so the process's own CPU time and allocations over a phase are the
// dispatcher's.
//
// Every phase is bounded in count and time, and every server and dispatcher is checked to give
// the expected answer before it is measured.
//
//	run.go       Run: the serving comparison, then the dispatcher comparison
//	config.go    Config, Full, Smoke: the sizes of a run
//	serving.go   RunServing: each server checked, then measured in rounds, flat out and at a rate
//	dispatch.go  RunDispatch: each dispatcher checked and warmed up, then measured in rounds
//	child.go     ChildArgs, ChildMain, ServeChild: a server in a child process; its usage, profiles
//	results.go   Results, ServingSample, DispatchSample: what a run saves
package suite
