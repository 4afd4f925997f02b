// Package operator is the webhook side of an operator for a custom kind, Cache
// (caching.example.com), written with admit's webhook package the way an operator author would:
//
//   - api.go: the kind in two versions, v1 (a size name) and v2 (the storage version and the
//     conversion hub: replicas and memory);
//   - webhooks.go: defaulting (the image from the environment, one replica) and validation with
//     field paths, which kube-apiserver returns as a 422 with a cause per field;
//   - conversion.go: v1 to and from the hub;
//   - registry.go: everything registered in one webhook.Registry, which serves it and writes the
//     webhook configurations and the CRD's spec.conversion.
//
// cmd/cache-webhook serves it; config/crd.yaml is the CustomResourceDefinition. The tests use
// webhook/webhooktest, the public test kit: no server, no certificates.
package operator
