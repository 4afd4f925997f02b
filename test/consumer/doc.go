// Package consumer proves that a program importing admit's library packages — webhook, patch,
// certs, extension, dispatch — builds as a module of its own without the replace directives
// that admit's go.mod needs for k8s.io/kubernetes (which only package chain and the CLI link),
// and links none of Kubernetes' internal packages.
package consumer
