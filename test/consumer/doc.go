// Package consumer builds modules of their own that import admit, as a library user's would. A
// program importing webhook, patch, certs, extension, dispatch, engine or clusterstate builds
// without the replace directives that admit's go.mod needs for k8s.io/kubernetes (which only
// chain, the packages built on it and the CLI link), and links none of Kubernetes' internal
// packages. One importing review, chain, audit, testsuite or lint tidies and builds with the
// replace block review's package doc documents, which must be go.mod's, as the README's must.
package consumer
