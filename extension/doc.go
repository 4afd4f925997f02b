// Package extension calls external extensions — webhook-style HTTP services such as Cluster API
// lifecycle hooks — and decides what their failures mean, following the Runtime SDK design note's
// "Error Handling V2".
//
// # Model
//
// An Extension is one handler of an external service: a name, the Hook it serves
// (group/version/name), where it listens (an https URL or a Kubernetes service reference, with
// a CA bundle), a timeout (DefaultTimeout, at most MaxTimeout), a FailurePolicy and a
// namespaceSelector. A Registry holds them; Caller.Discover asks an ExtensionServer which
// handlers it serves and returns them ready to register. Requests are JSON-encoded values of any
// type; responses are any struct embedding CommonResponse (status Success|Failure, message,
// retryAfterSeconds), decoded through the type parameters of Call and CallAll.
//
// # Call
//
// Call sends one request to one extension, with ?timeout=<N>s in the URL and a deadline that is
// the earlier of the extension's timeout and the caller's context. Redirects are never followed.
//
//   - Success: the response and nil, whatever the policy.
//   - Failure: the response and an FailureError carrying its message, whatever the
//     policy — the extension did answer.
//   - Transport error, timeout, non-200 or undecodable body: with Fail, an CallingError
//     naming the extension and the cause; with Ignore, a bare Success response (no message, no
//     RetryAfter) and nil, the error logged and counted.
//   - The caller's own context ended: an CallingError, whatever the policy.
//
// A body that decodes but carries an unknown status or a negative retryAfterSeconds is
// undecodable in this sense: an extension that cannot give a valid answer is what the failure
// policy is for.
//
// # CallAll
//
// CallAll calls every extension serving a hook whose namespaceSelector selects the request's
// namespace, in name order, concurrently up to Options.MaxConcurrency, and waits for all. It
// aggregates: error — every CallingError if any (a calling error wins), else every
// FailureError, else none; status — Failure if any extension failed; message —
// "<extension>: <message>" per failed extension joined with "; "; RetryAfterSeconds — the
// lowest non-zero value.
//
// # Logs and metrics
//
// Errors are logged at slog.LevelError (ignored ones included, marked ignored=true), the
// extensions called at slog.LevelDebug, and what each answered at LevelTrace, a level this
// package defines because log/slog has none. Metrics are registered on an injected
// prometheus.Registerer: admit_extension_requests_total and
// admit_extension_request_duration_seconds by extension, hook and outcome (success, failure,
// error, ignored), admit_extension_calling_errors_total by extension, hook, reason and failure
// policy, and admit_extension_metrics_dropped_total. Calls hand observations to a bounded queue
// drained by one goroutine, so a slow metrics sink never slows a call; when the queue is full,
// observations are dropped and counted.
//
// # Differences from Cluster API's Runtime SDK client
//
//   - Calling errors and failures are exported types usable with errors.As.
//   - An ignored calling error resets RetryAfterSeconds (and the whole response), not only the
//     status and message.
//   - CallAll calls every extension instead of stopping at the first error, in name order
//     instead of map order, and reports failures in the aggregated status and message.
//   - An unknown response status is a calling error subject to the failure policy, not an
//     unconditional failure.
//   - Cluster-scoped requests are not filtered by namespaceSelector (as in kube-apiserver)
//     rather than failing.
//   - The caller's own deadline or cancellation is never ignored by failurePolicy Ignore.
//
// # Files
//
//	hook.go       Hook, HandlerPath, ResponseStatus, FailurePolicy, CommonResponse, Response
//	config.go     Extension, ClientConfig, ServiceReference: a registration, validated and defaulted
//	registry.go   Registry: the extensions by name, registered all or none
//	caller.go     Options, Caller, Request, Call: one call, its failure policy, logs and metrics
//	callall.go    CallAll, Aggregate, Result: every selected extension of a hook, answers combined
//	discovery.go  ExtensionServer, Caller.Discover: the handlers a server says it serves
//	resolve.go    ServiceResolver, ClusterDNS, NamespaceLabeler: services and namespaces' labels
//	transport.go  the HTTP client per CA bundle and server name, and the answer's body read
//	errors.go     CallingError and its reasons, FailureError, NotSelectedError, CallAllError
//	log.go        LevelTrace, ReplaceLevelName
//	metrics.go    the Prometheus metrics, fed from a bounded queue by one goroutine
package extension
