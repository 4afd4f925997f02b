// Package dispatch calls admission webhooks exactly as kube-apiserver 1.36 does: its Webhooks
// are the two steps (MutatingAdmissionWebhook, ValidatingAdmissionWebhook) an engine.Pipeline
// runs among its other steps, and a Dispatcher is a Pipeline of those two steps alone.
//
// One admission travels through these files, in order (engine.Pipeline runs the phases):
//
//	dispatcher.go  NewWebhooks compiles the configurations, New builds a Dispatcher
//	hook.go        one webhook as NewWebhooks compiled it: parsed selectors, compiled conditions
//	admission.go   what the webhooks keep of one admission: reinvocation, the webhooks' patches
//	mutating.go    the serial mutating webhooks, with reinvocation
//	match.go       whether a webhook is called: namespaceSelector, objectSelector, rules,
//	               matchPolicy Equivalent, matchConditions (in the apiserver's order)
//	namespaces.go  where namespaceSelector reads a namespace's labels
//	outcome.go     one webhook's call and answer, and how it ends: recorded, counted, and
//	               decided by failurePolicy
//	call.go        one call: dry-run and version checks, the timeout, the HTTP exchange
//	review.go      the AdmissionReview the webhook receives
//	client.go      the HTTP client and URL of a client configuration
//	post.go        the HTTP POST, client-go's retries, and decoding the answer
//	verify.go      the apiserver's checks of an answer
//	applypatch.go  applying a webhook's JSON patch as the apiserver's library does
//	typecheck.go   whether the patched object still decodes into its kind's Go type
//	validating.go  the parallel validating fan-out
//	errors.go      calling errors vs rejections, and the statuses the client sees
//	metrics.go     the apiserver's webhook metrics on an injected registry
//
// What a program links is its choice: CEL matchConditions come from package celconditions
// (celconditions.Compiler), namespace labels read from a live cluster from package live;
// this package needs neither.
//
// Two deliberate differences from kube-apiserver, both documented where they happen: a webhook
// that answers with a redirect is not followed (CVE-2020-8561), and when several validating
// webhooks reject, the rejection of the lowest-index webhook is returned (the apiserver returns
// whichever finished first); every rejection is still in the engine.Result.
//
// Without a Codec a patched object stays the JSON the patch made. The apiserver decodes it into
// the kind's Go type and defaults it before the next webhook, so there a member the type does not
// have disappears and defaults reappear; a Codec does the same (package chain's does it with
// Kubernetes' own code).
package dispatch
