// Package usage measures what a process consumed — CPU time, allocations, peak memory — and
// describes the machine it ran on.
//
// The benchmark machine is shared, so wall time says little about cost: CPU time charged to the
// process (getrusage) does not grow when another process takes the core. A server under test runs
// in a child process that serves its own Sample over HTTP (Handler), so the parent reads the
// server's consumption without counting its own load generator:
//
//	before, _ := usage.Fetch(ctx, client, controlURL)
//	// ... send n requests ...
//	after, _ := usage.Fetch(ctx, client, controlURL)
//	perRequest := after.Sub(before).Per(n)
//
//	usage.go          Sample, Delta, PerOp, Self; Handler and Fetch for a child's Sample
//	machine.go        Machine, DescribeMachine, LoadAverage
//	maxrss_darwin.go  peak memory as macOS reports it, in bytes
//	maxrss_other.go   peak memory as Linux and the BSDs report it, in kilobytes
package usage
