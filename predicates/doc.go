// Package predicates holds kube-apiserver 1.36's predicates of admission webhooks' matching —
// which rules match a request, which requests a namespaceSelector or an objectSelector judges and
// on what labels — for every part of admit that asks: the dispatcher calling webhooks, lint
// reading what a webhook intercepts, audit telling which writes a changed webhook can reach. It
// links nothing but Kubernetes' API types, as the apiserver keeps these predicates in small
// packages of their own.
//
//	rules.go      Rule, Scope, Operation, AnyOrExact, Resources: the rule predicate and its parts
//	selectors.go  NamespaceJudged, OwnNamespaceLabels, Object: when selectors apply, on what labels
package predicates
