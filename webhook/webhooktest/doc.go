// Package webhooktest tests admission webhooks written with package webhook, in process and
// without TLS.
//
// Build a request from objects as kube-apiserver would send it — Create, Update, Delete, with
// the user, namespace, dry run and subresource as options — then either:
//
//   - Run one Handler through the same HTTP handling admit serve uses (AdmissionReview encoding,
//     body limits, panics, the answer's checks), and read the Result: allowed, the status of a
//     denial or failure, warnings, audit annotations, the patch and the object after it; or
//   - Admit a request through a whole Registry as kube-apiserver calls it: the configurations the
//     Registry describes, their rules, selectors and match conditions, failure policies, mutating
//     webhooks in order with reinvocation, then the validating ones, with kube-apiserver's error
//     messages. A request through another version of a webhook's kind reaches it converted by the
//     Registry's conversion webhook, as matchPolicy Equivalent has kube-apiserver do.
//
// Convert sends objects to a Registry's conversion webhook in one ConversionReview and returns
// them converted, checked as kube-apiserver checks a conversion's answer; ConversionFailure
// returns the message of one that fails.
//
// Errors building a request or calling a handler fail the test (t.Fatal): the helpers return
// only what a test asserts on.
//
//	request.go  T, Option, Create, Update, Delete: a request built as kube-apiserver sends it
//	run.go      Run, RunRegistry, Result: one handler through webhook.NewHTTPHandler, and its answer
//	admit.go    Admit: a request through a whole Registry, by package dispatch in process
//	admit_crds.go  the custom resources Admit knows, and their conversion through the Registry
//	convert.go  Convert, ConversionFailure: objects through a Registry's conversion webhook, checked
package webhooktest
