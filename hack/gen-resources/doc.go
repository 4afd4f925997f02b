// Command gen-resources writes the built-in resource data of package resources from a real
// kube-apiserver: it starts etcd and kube-apiserver on loopback (internal/testenv), reads
// discovery and the OpenAPI documents that mark CONNECT subresources, and writes the result as
// sorted, indented JSON.
//
// Run it from the module root whenever the Kubernetes version changes:
//
//	go run ./hack/gen-resources            # writes resources/kube-1.36.json
//	go run ./hack/gen-resources -o FILE    # writes elsewhere
//
// It needs the binaries `make tools` provides (kube-apiserver in .cache/bin, etcd on PATH).
// The apiserver runs with its default feature gates and API versions, so APIs that are off by
// default (alpha, and beta APIs introduced since 1.24) are not in the data.
//
// Equivalence: the apiserver counts resources as equivalent when they share storage. For its
// own resources that is every version of a group-resource, plus core and events.k8s.io events.
// Because the apiserver keys its storage by plural name, two groups serving the same plural
// could share storage too; gen-resources refuses to write data in which that happens without
// the resources package treating them as equivalent, so that someone looks at the apiserver's
// storage setup before such data is trusted.
//
//	main.go  the apiserver started, its resources read and checked, the JSON written
package main
