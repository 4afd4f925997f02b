// Package policycheck gives lint kube-apiserver's own answers about admission policies — their
// validation when created, and the type checking of their CEL expressions against the kinds
// they match — and the type checking of webhooks' match conditions against the same schemas,
// from package chain. It is apart from lint so that a program linting webhook
// configurations alone links no Kubernetes apiserver code.
//
//	policycheck.go  Checker: lint.PolicyChecker with the apiserver's code; Needed, HasPolicies
package policycheck
