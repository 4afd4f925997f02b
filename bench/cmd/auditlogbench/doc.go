// Command auditlogbench measures `admit audit --audit-log` whole and in shards, each shard a
// process of its own as an Indexed Job's pods run it, for `make bench-audit-log`:
//
//	auditlogbench -admit BIN -passes-bench AUDIT_TEST [-writes 100000,1000000] [-shards 2] [-rounds 1] -dir DIR -o FILE
//
// For each size it generates an audit log of that many writes (package auditlog: a cluster of
// Deployments, Pods, Services and ConfigMaps at work, reads interleaved) in DIR, then:
//
//   - runs AUDIT_TEST, the audit package's test binary, for BenchmarkLogShardPasses: the CPU
//     every shard spends on each line of the log whatever it owns (the state pass, and the
//     writes pass skipping another shard's line);
//   - runs BIN, admit, on the log with a proposal — a ValidatingAdmissionPolicy capping
//     Deployments at five replicas, and a validating webhook on Pods served by this process over
//     TLS and HTTP/2, allowing every call with a warning — unsharded, then as each of -shards
//     shards, one process after the other so that each has the machine to itself; each
//     process's CPU time and peak RSS are its own, from getrusage (wait4), and the webhook's CPU,
//     another service in a real cluster, is this process's;
//   - checks that the shards' reports add up to the unsharded one's counts, so that the
//     shards did the whole audit's work between them.
//
// Results are written to FILE as Go benchmark lines, as they are measured (a long run that stops
// keeps what it measured): BenchmarkAuditLogGenerate/writes=N (the log's shape),
// BenchmarkLogShardPasses/writes=N (the test binary's line, its name given the size) and
// BenchmarkAuditLogReplay/writes=N/shard=S for each run, S "all" or "IofN". bench/report reads
// them (ParseAuditLog) for docs/benchmarks.md. The logs are deleted once measured (-keep keeps
// them): a million writes are about 5 GB.
//
//	main.go     the flags, the sizes, the runs and their checks
package main
