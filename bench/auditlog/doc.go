// Package auditlog writes a Kubernetes audit log of a cluster at work, for the benchmark of
// `admit audit --audit-log` and its shards (`make bench-audit-log`, cmd/auditlogbench).
//
// The log is what kube-apiserver's --audit-log-path writes: JSON lines of audit.k8s.io/v1 Events
// at stage ResponseComplete. A fixed cluster — namespaces, and in each the same number of apps, an
// app being a Deployment, its Pods, a Service and a ConfigMap — is created at the start, then
// written to as controllers, kubelets, a GitOps controller and people write to a cluster: Pods'
// status patched, Pods replaced (deleted, created with a generated name, bound, started),
// Deployments' status updated (some in conflict), Deployments and ConfigMaps updated and patched,
// Services patched, Pods labelled. Pods' creates and deletes are logged at RequestResponse level,
// the other writes at Request level; reads (get, list, watch) at Metadata level are interleaved,
// Config.ReadsPerWrite per write on average, as real logs are mostly reads.
//
// The cluster does not grow with the log: a longer log writes the same objects more often, as a
// longer stretch of a real cluster's log does, so that what an audit of it holds — the objects as
// they were last written — is the cluster's size, and only its time the log's length. The log is
// deterministic, a function of its Config (a fixed seed), and a shorter log is the start of a
// longer one. It is written as it is generated, in memory bounded by the cluster.
//
//	generate.go  Config, Generate, Stats: the log, the cluster at work
//	event.go     an event's line as kube-apiserver writes it, and who writes it
//	objects.go   the objects' JSON, as the apiserver logs them
package auditlog
