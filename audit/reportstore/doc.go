// Package reportstore keeps an audit's reports in the cluster it audits, so that the pods of an
// Indexed Job — on any nodes, with no volume they share — hand their shards' reports to the
// merge, and the merge's report is left where a user fetches it.
//
// A shard's report (audit.Options.Shard) is stored gzipped in the binaryData of a ConfigMap of
// its own, NAME-INDEX-of-COUNT, labelled AuditLabel=NAME: any cluster has ConfigMaps, and a
// shard needs no more than create and update on them in one namespace. Store.Shards reads every
// ConfigMap of the label back for audit.Merge, which names a shard that is missing. The merged
// report is stored likewise, as JSON and as its HTML page (Store.PutReport), and its findings
// applied as Policy Reports where the cluster serves their kinds (ApplyPolicyReports).
//
// A ConfigMap holds at most 1 MiB (MaxBytes): a report larger than that gzipped is refused
// before it is sent. What makes a report large is the writes it lists (audit.Options.Limit).
//
//	store.go          Store: a shard's report put and read back, the merged report and its page
//	policyreports.go  ServedFormats, ApplyPolicyReports: the findings as Policy Reports, applied
package reportstore
