// Package chain is the rest of kube-apiserver's admission around the webhooks, as steps of an
// engine.Pipeline: built with Kubernetes' own code, so that webhooks see what they would see
// behind kube-apiserver 1.36 and a write is admitted or rejected as it would be.
//
// One admission meets it at these places (Chain.Steps returns them; Steps.Pipeline puts the
// webhooks' steps among them in the apiserver's order):
//
//	chain.go         New builds the chain on a cluster state; Steps, and Steps.Pipeline
//	codec.go         before admission: the request body decoded as the apiserver's handler does
//	                 (strict field checks as warnings or errors, defaulting, conversion to the
//	                 internal version and back, system metadata wiped, owner references
//	                 deduplicated); the old object as the storage reads it; after every mutating
//	                 webhook's patch: decoded into the webhook's version and defaulted again;
//	                 conversions for equivalent versions through the internal object; storage
//	internal.go      the internal objects the plugins take, converted once per admission and
//	                 remembered with their encodings for conversions from the internal object
//	managedfields.go the handler's field managers: metadata.managedFields recorded before
//	                 admission, their times from the chain's clock
//	plugins.go       the built-in admission plugins kube-apiserver enables by default, in its
//	                 order (NamespaceLifecycle, LimitRanger, ServiceAccount, PodSecurity, Priority,
//	                 DefaultTolerationSeconds, DefaultStorageClass, RuntimeClass, ...), before the
//	                 webhooks of each phase and reinvoked with them; ResourceQuota after the
//	                 validating webhooks
//	builtin.go       one built-in plugin run as a step: the admission attributes it gets (the
//	                 request's options and user, audit annotations; policies.go uses them too)
//	                 and the change test after a mutating plugin
//	equal.go         the change test after each plugin: Semantic's equality, without allocating
//	tokenvolume.go   the ServiceAccount plugin's token volume, named deterministically
//	policies.go      MutatingAdmissionPolicies and ValidatingAdmissionPolicies, a binding at a
//	                 time, with kube-apiserver's own policy plugins
//	authorization.go the authorizer plugins and policies ask: system:masters, then Kubernetes'
//	                 RBAC authorizer over the state's and the bootstrap roles and bindings
//	policypairs.go   the bindings paired with their policies, and the policies no binding names
//	policysetup.go   each binding's plugin built: a cluster of its own, its clients and REST
//	                 mapper, its informers synced before it reads them
//	interfaces.go    what the plugins create, convert and default objects with, and the
//	                 resources' equivalent versions for matchPolicy Equivalent
//	openapi.go       the OpenAPI schemas the mutating policy plugin applies configurations with,
//	                 and when the plugin has listed them
//	prepare.go       between the phases: the registry's strategy for the resource (strategies.go)
//	                 — uid, creation timestamp, generated name, PrepareForCreate/ForUpdate, the
//	                 kind's own validation (422), canonicalization
//	strategies.go    the registry strategies of the built-in resources, by resource and subresource
//	services.go      a Service's cluster IPs and node ports, allocated as its storage does
//	prepare_scale.go the scale handler between the phases: the Scale validated and written into
//	                 its parent, whose own update runs (scale.go reads a parent's Scale)
//	scale.go         Scales: a parent's Scale as the scale handler reads it, and its replicas
//	                 written back into the parent
//	custom.go        the same for custom resources of the CRDs given: structural pruning and
//	                 defaulting, the CRD's conversion, the custom resource strategy
//	conversion.go    Converter: conversion between versions, a CRD's conversion webhook called
//	                 with Kubernetes' own converter (Config.Conversion places it)
//	schemaorder.go   a custom resource's schema errors in one of the orders the apiserver gives
//	cluster.go       the cluster state the plugins read, held by client-go's in-memory clientset
//	                 with real informers; what is not given is what a fresh cluster has
//	                 (package clusterstate reads it from a cluster; options.go: the
//	                 apiserver's options)
//	options.go       --allow-privileged, held process-wide by Kubernetes' code, and the
//	                 AdmissionConfiguration file (--admission-control-config-file)
//	scheme.go        Kubernetes' scheme of built-in types, and the version reproduced
//	policytypes.go   not on the path: the type checker lint runs on ValidatingAdmissionPolicies
//	                 and webhooks' match conditions, with the published schemas of the kinds
//
// Kubernetes' strategies and plugins use its process-wide scheme of built-in types
// (legacyscheme), which its install packages register when linked; chain uses that scheme as
// they do and registers nothing of its own.
//
// Importing chain links k8s.io/kubernetes, so a module that imports it needs the replace
// directives of admit's own go.mod (k8s.io/kubernetes refers to its staging repositories as
// v0.0.0). The lighter packages (webhook, patch, certs, extension, dispatch) need none.
package chain
