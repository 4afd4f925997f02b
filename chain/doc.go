// Package chain is the rest of kube-apiserver's admission around the webhooks, for a
// dispatch.Dispatcher: built with Kubernetes' own code, so that webhooks see what they would see
// behind kube-apiserver 1.36 and a write is admitted or rejected as it would be.
//
// One admission meets it at these places (Chain.Apply wires them into dispatch.Options):
//
//	codec.go       before admission: the request body decoded as the apiserver's handler does
//	               (strict field checks as warnings or errors, defaulting, conversion to the
//	               internal version and back, system metadata wiped, owner references
//	               deduplicated); the old object as the storage reads it
//	plugins.go     the built-in admission plugins kube-apiserver enables by default, in its
//	               order (NamespaceLifecycle, LimitRanger, ServiceAccount, PodSecurity, Priority,
//	               DefaultTolerationSeconds, DefaultStorageClass, RuntimeClass, ...), before the
//	               webhooks of each phase and reinvoked with them; ResourceQuota after the
//	               validating webhooks
//	codec.go       after every mutating webhook's patch: decoded into the webhook's version of
//	               the kind and defaulted again; conversions for equivalent versions through the
//	               internal object
//	prepare.go     between the phases: the registry's strategy for the resource (strategies.go)
//	               — uid, creation timestamp, generated name, PrepareForCreate/ForUpdate, the
//	               kind's own validation (422), canonicalization
//	custom.go      the same for custom resources of the CRDs given: structural pruning and
//	               defaulting, the CRD's conversion, the custom resource strategy
//	cluster.go     the cluster state the plugins read, held by client-go's in-memory clientset
//	               with real informers; what is not given is what a fresh cluster has
//
// Kubernetes' strategies and plugins use its process-wide scheme of built-in types
// (legacyscheme), which its install packages register when linked; chain uses that scheme as
// they do and registers nothing of its own.
//
// Importing chain links k8s.io/kubernetes, so a module that imports it needs the replace
// directives of admit's own go.mod (k8s.io/kubernetes refers to its staging repositories as
// v0.0.0). The lighter packages (webhook, patch, certs, extension, dispatch) need none.
package chain
