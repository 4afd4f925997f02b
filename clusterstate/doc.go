// Package clusterstate reads what kube-apiserver's admission reads of a cluster — its
// Namespaces, ServiceAccounts, LimitRanges, ResourceQuotas, the cluster-wide classes
// (resources.StateKinds), CustomResourceDefinitions and the objects admission policies take as
// parameters — from wherever a program has it: a live cluster (Cluster), or a stream of objects
// such as a dump or an audit log's last-known objects (Collector). `admit review --kubeconfig`,
// `admit audit` and programs that review against a cluster read it here.
//
// A live cluster is read only: discovery, and paginated lists and gets. Secrets are never read.
//
//	cluster.go    Cluster: discovery, paginated lists, the admission configuration, the service range
//	state.go      Cluster.State: the state admission reads, for some namespaces or all
//	collect.go    Collector: the state among a stream of objects; ParamKinds
//	accounts.go   AccountUse: which ServiceAccounts admission reads of those a set holds
package clusterstate
