// Package live gives the dispatcher what it reads from a running cluster through client-go:
// namespace labels for namespaceSelector matching, with a live GET per lookup (Namespaces) or
// from an informer's lister with a live fallback, as kube-apiserver reads them
// (ListerNamespaces). It is its own package so that a program that only dispatches offline does
// not link client-go's typed clientset.
//
//	namespaces.go  Namespaces (a live GET), ListerNamespaces (a lister, a live GET when it has none)
package live
