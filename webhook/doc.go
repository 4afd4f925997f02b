// Package webhook is a framework for writing Kubernetes admission webhook servers.
//
// One admission request travels through these files, in order:
//
//	server.go              Server: its options, defaults, listeners and TLS configuration
//	server_run.go          Run: serving, and the graceful drain that loses no request
//	server_health.go       /healthz, /readyz (a TLS self-check of the serving certificate), /metrics
//	server_certificates.go the serving certificate: files (hot-reloaded), in memory, or a function
//	registry.go            Registry: Register fills defaults in, checks, serves each webhook on its path
//	guard.go               answers 400 to a request for a kind or resource the webhook is not for
//	http.go                NewHTTPHandler: media type, body limit, AdmissionReview v1/v1beta1
//	                       decoding, panics, metrics, logs
//	envelope.go            the review's envelope decoded without copying the objects
//	handler.go             Handler / HandlerFunc and the Request they receive
//	typed.go               DefaultingHandler and ValidatingHandler: typed adapters that decode objects for user code
//	                       (internal/typedjson: one pass, what sigs.k8s.io/json decodes)
//	errors.go              how errors returned by user code become denials or failures
//	response.go            Response and its outcomes, encoded back in the request's review version
//	metrics.go             the admission metrics recorded on the way
//	conversion_registry.go CRD conversion webhooks served by the same Registry (package conversion)
//
// What a registration says, and how it is checked:
//
//	webhook.go             Webhook: everything a configuration says of a webhook; Path, NotMirrorPod
//	check.go               the checks of Register, as kube-apiserver validates a configuration
//	handler_kind.go        the kind a handler's Go type says: a Scheme's, Kubernetes', or its name
//	check_kind.go          kind against handler, resource and rules against Kubernetes' own
//	                       resources (internal/kinds, generated from package resources)
//	rules.go               rules: generated, validated, matched
//	match_conditions.go    matchConditions compiled with kube-apiserver's CEL environment
//	condition_types.go     matchConditions type-checked against a Kubernetes kind's schema
//	                       (package typecheck), from the handler's Go type
//	configurations.go      the Mutating- and ValidatingWebhookConfiguration a Registry writes
//	conversion_check.go    a Hub checked against its CRD
//
// # Outcomes: deny is not fail
//
// A webhook answers with one of four outcomes, and the difference between the last two matters:
//
//   - Allowed: the request may proceed.
//   - Patched: the request may proceed with the object changed by a JSON patch.
//   - Denied: the webhook looked at the request and refuses it. It is sent as HTTP 200 with
//     allowed=false; the caller's failurePolicy does not apply, the client sees the message.
//   - Errored: the webhook could not decide (a dependency is down, a bug). It is sent as HTTP 500
//     with a metav1.Status body, so kube-apiserver treats it as a failed call and the webhook's
//     failurePolicy decides: Ignore admits the request, Fail rejects it with a 500.
//
// Typed handlers pick between them by the error they return: Fail(err) means Errored; any other
// error is a denial (see StatusFromError for how API statuses and field errors are kept).
//
// # Patches
//
// DefaultingHandler computes its patch as patch.Lossless does: the changes user code made to the typed
// object are applied to the raw object the apiserver sent, so fields unknown to the Go type are never
// removed and zero-valued structs never appear. It finds them with patch.Typed, comparing the object
// with a copy taken before user code ran, so that only the values that changed are encoded.
//
// # Testing
//
// Package webhook/webhooktest builds requests from objects and runs a Handler, or a whole
// Registry as kube-apiserver calls it, in process: unit tests assert on the patched object,
// warnings and status without a server or certificates, and converts objects through a
// Registry's conversion webhooks in one call.
package webhook
