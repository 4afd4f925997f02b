// Package operator is the webhook side of an operator for a custom kind, Cache
// (caching.example.com), written with admit's webhook package the way an operator author would:
//
//   - api/v1, api/v2: the kind in two versions, each a Go package with its AddToScheme; v1 has
//     a size name, v2 (stored, and the conversion hub) replicas and memory;
//   - scheme.go: both versions in one runtime.Scheme, from which the webhooks take their kind;
//   - webhooks.go: defaulting (the image from the environment, the engine, one replica) and
//     validation with field paths, an immutable field (spec.engine) and one that may only grow
//     (spec.memory), returned together as a 422 with a cause per field;
//   - clients.go: a Pod webhook that gives cache clients their cache's address, narrowed by an
//     objectSelector to the Pods that ask for it and by a match condition to leave mirror pods
//     out;
//   - conversion.go: v1 to and from the hub;
//   - registry.go: everything registered in one webhook.Registry, which serves it and writes the
//     webhook configurations and the CRD's spec.conversion.
//
// cmd/cache-webhook serves it, with its certificate from files or kept in the cluster by
// certs/rotator; config/crd.yaml is the CustomResourceDefinition. The tests use
// webhook/webhooktest, the public test kit: no server, no certificates; a conversion is one call.
//
//	scheme.go      NewScheme, CRDName
//	webhooks.go    Defaults, Limits: Cache's defaulting and validating webhooks
//	clients.go     Clients: the Pod webhook of cache clients
//	conversion.go  NewConverter: v1 to and from the hub, v2
//	registry.go    NewRegistry, and the webhooks' names
package operator
