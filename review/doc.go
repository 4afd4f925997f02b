// Package review runs objects through kube-apiserver 1.36's admission offline, as `admit review`
// and `admit test` do: a Session takes the webhook configurations, admission policies and the
// cluster's state, builds the admission request the apiserver would make for each object (an
// UPDATE of its old object, a generateName CREATE, a subresource's own kind), and admits them
// concurrently through package chain (Kubernetes' decoding, defaults, built-in plugins, policies,
// registry) around package dispatch (the webhooks), one Outcome per object in input order.
//
// One review through the package reads in this order:
//
//	session.go     Config, New: the CRDs (given, in the cluster, among the objects), the
//	               resources they add, the policies checked as the apiserver checks them
//	services.go    the webhook configurations defaulted and checked as the apiserver stores them,
//	               the default CA, the services a webhook calls placed (Services) or refused
//	load.go        Admission, LoadAdmission, Paths: what a review reviews with, read from files
//	input.go       Input: an object read from a file, with where it came from; Parse
//	requests.go    Write, Requests: each object's admission request, UPDATEs paired with their
//	               old objects, names generated, the options kubectl sends
//	subresource.go subresources' own kinds: a Scale on its parent, an Eviction, a Binding
//	state.go       what admission reads of the cluster: the given state, policies, and the
//	               reviewed objects that other objects' admission reads (applied together)
//	admit.go       Admit: the chain and the dispatcher built once, every request admitted with
//	               bounded concurrency, each result at its object's place
//	batches.go     Batches: the same built once for a run too large to hold, a batch at a time
//	text.go        Outcome.WriteText, WriteTexts, WriteSummary: reviews for people
//	list.go        Single, List: reviews as `admit review -o json|yaml` prints them
//
// A review is deterministic: the same inputs give the same results whatever the concurrency —
// created objects' uids are derived from the object, creation times are one moment per run,
// generated names are derived from the object and its source, and cluster IPs are the lowest
// free ones.
package review
