// Package typecheck type-checks admission CEL expressions against the schemas of the kinds
// they are evaluated on, as kube-apiserver's type checker for ValidatingAdmissionPolicies does,
// and keeps what fails at runtime: an expression that reads a field its kind does not have
// errors on every object of that kind.
//
// It links no Kubernetes apiserver code beyond the CEL packages kube-apiserver's type checker
// itself is made of, so that package webhook can refuse, at Register, a match condition that
// cannot succeed, with the same checker admit lint uses (through package chain, which holds
// the published schemas of Kubernetes' kinds and of custom resources).
//
// Webhooks' match conditions are checked in the environment kube-apiserver compiles them in:
// object, oldObject, request, namespaceObject (always null for webhooks), authorizer and
// authorizer.requestResource; no params. object and oldObject, dyn in the apiserver, are typed
// by the kind's schema, as the apiserver's type checker for policies types them.
//
//	typecheck.go   Checker, Error; RuntimeErrors: the type errors that fail at runtime
//	conditions.go  Kind; Checker.Condition: a webhook's match condition against kinds' schemas
//	guards.go      the parts of an expression a guard on object.kind skips for a kind
//	goschema.go    SchemaOf: the schema of a Kubernetes API type, from its Go type
//	loosen.go      Loosen: what a schema does not list (unknown fields kept, RawExtensions) made dyn
package typecheck
