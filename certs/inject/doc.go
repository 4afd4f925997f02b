// Package inject fills in the caBundle of webhook configurations and of CRDs' conversion
// webhooks in YAML, as cert-manager's CA injector does in a cluster — for manifests applied
// where no injector runs (`admit certs inject`). Only the caBundle values change: comments, key
// order, quoting and the other documents are kept byte for byte.
//
//	inject.go  CABundle: a YAML stream's client configurations given a CA
package inject
