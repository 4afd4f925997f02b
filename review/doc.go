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
//	admit.go       Admit, AdmitEach: the chain and the dispatcher built once, every request
//	               admitted with bounded concurrency, each result at its object's place
//	window.go      the admissions under way, a window of them, handed on in input order
//	plan.go        Plan: what admitting outcomes together reads of them, learnt a first time
//	               through, for outcomes built one at a time and admitted in Batches
//	batches.go     Batches: the same built once for a run too large to hold, a batch at a time
//	stream.go      Source, Survey, Stream: an input too large to hold, read a document at a
//	               time — surveyed, then its requests, then each object admitted and handed on
//	               in input order — with the outcomes Review gives
//	text.go        Outcome.WriteText: one review for people
//	textwriter.go  TextWriter, SummaryWriter (WriteTexts, WriteSummary): several, as decided
//	spool.go       what a summary holds until its columns' widths are known, on disk when large
//	list.go        Single, List: reviews as `admit review -o json|yaml` prints them
//	markdown.go    MarkdownWriter: reviews for a pull request's comment, bounded
//	listwriter.go  ListWriter: a List written an entry at a time, the bytes of the whole
//
// A review is deterministic: the same inputs give the same results whatever the concurrency —
// created objects' uids are derived from the object, creation times are one moment per run,
// generated names are derived from the object and its source, and cluster IPs are the lowest
// free ones.
//
// # Logs
//
// Kubernetes' admission code logs through klog, process-wide: its informers syncing, its quota
// evaluators starting and stopping. A review keeps that off the program's stderr (package
// kubelog's Quiet, called as the chain is built); to see Kubernetes' errors, call
// kubelog.Route(os.Stderr), or kubelog.RouteTo(logger) for a slog logger, before the first
// review.
//
// # Module requirements
//
// Package review links k8s.io/kubernetes (through package chain), whose go.mod requires its
// staging modules (k8s.io/api, k8s.io/kube-aggregator, ...) at v0.0.0, a version never published:
// go mod tidy fails ("k8s.io/kube-aggregator@v0.0.0: ... 403 Forbidden") in a module importing
// review until its go.mod replaces each by the tag released with that Kubernetes. The same holds
// for chain, audit, testsuite and lint/policycheck, and for lint and lint/sarif, since go mod tidy
// reads lint's tests, which use chain. Such a module pastes this block, admit's own go.mod's
// (test/consumer holds the two equal and builds a module with it), into its go.mod:
//
//	replace (
//		k8s.io/api => k8s.io/api v0.36.3
//		k8s.io/apiextensions-apiserver => k8s.io/apiextensions-apiserver v0.36.3
//		k8s.io/apimachinery => k8s.io/apimachinery v0.36.3
//		k8s.io/apiserver => k8s.io/apiserver v0.36.3
//		k8s.io/cli-runtime => k8s.io/cli-runtime v0.36.3
//		k8s.io/client-go => k8s.io/client-go v0.36.3
//		k8s.io/cloud-provider => k8s.io/cloud-provider v0.36.3
//		k8s.io/cluster-bootstrap => k8s.io/cluster-bootstrap v0.36.3
//		k8s.io/code-generator => k8s.io/code-generator v0.36.3
//		k8s.io/component-base => k8s.io/component-base v0.36.3
//		k8s.io/component-helpers => k8s.io/component-helpers v0.36.3
//		k8s.io/controller-manager => k8s.io/controller-manager v0.36.3
//		k8s.io/cri-api => k8s.io/cri-api v0.36.3
//		k8s.io/cri-client => k8s.io/cri-client v0.36.3
//		k8s.io/cri-streaming => k8s.io/cri-streaming v0.36.3
//		k8s.io/csi-translation-lib => k8s.io/csi-translation-lib v0.36.3
//		k8s.io/dynamic-resource-allocation => k8s.io/dynamic-resource-allocation v0.36.3
//		k8s.io/endpointslice => k8s.io/endpointslice v0.36.3
//		k8s.io/externaljwt => k8s.io/externaljwt v0.36.3
//		k8s.io/kms => k8s.io/kms v0.36.3
//		k8s.io/kube-aggregator => k8s.io/kube-aggregator v0.36.3
//		k8s.io/kube-controller-manager => k8s.io/kube-controller-manager v0.36.3
//		k8s.io/kube-proxy => k8s.io/kube-proxy v0.36.3
//		k8s.io/kube-scheduler => k8s.io/kube-scheduler v0.36.3
//		k8s.io/kubectl => k8s.io/kubectl v0.36.3
//		k8s.io/kubelet => k8s.io/kubelet v0.36.3
//		k8s.io/metrics => k8s.io/metrics v0.36.3
//		k8s.io/mount-utils => k8s.io/mount-utils v0.36.3
//		k8s.io/pod-security-admission => k8s.io/pod-security-admission v0.36.3
//		k8s.io/sample-apiserver => k8s.io/sample-apiserver v0.36.3
//		k8s.io/sample-cli-plugin => k8s.io/sample-cli-plugin v0.36.3
//		k8s.io/sample-controller => k8s.io/sample-controller v0.36.3
//		k8s.io/streaming => k8s.io/streaming v0.36.3
//	)
//
// A module importing only webhook, webhook/conversion, webhook/webhooktest, patch, certs,
// extension, dispatch, engine or clusterstate needs no replace directive.
package review
