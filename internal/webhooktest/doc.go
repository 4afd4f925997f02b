// Package webhooktest serves fake admission webhooks for tests of admission callers: kube-apiserver
// itself, or admit's dispatcher. One Server answers every webhook of a test, over real TLS on
// 127.0.0.1 with a fresh CA, and the URL path of each webhook's clientConfig chooses how it answers.
// The server counts the calls and records the AdmissionRequests (and the timeout each caller said it
// would wait) it receives per path, so a test can run the same admission through two callers and
// compare what each webhook saw.
//
// # Paths
//
// A path is a behaviour, its positional arguments, then optional key=value parameters:
//
//	/allow                          allowed
//	/allowTextPlain                 allowed, the JSON labelled Content-Type: text/plain
//	/allowYAML                      allowed, the AdmissionReview in YAML (application/yaml)
//	/deny                           allowed=false without a status
//	/setLabel/<key>/<value>         JSON patch setting a label (creating metadata.labels when absent)
//	/removeLabel/<key>              JSON patch removing a label (fails to apply when it is absent)
//	/sleep/<duration>               waits (until the caller gives up), then allowed
//	/busyOnce                       503 with Retry-After: 0 on its first call, then allowed
//	/internalError                  500 with a text/plain body
//	/statusError                    500 with a metav1.Status body
//	/statusErrorTextPlain           the same labelled text/plain, as http.Error sends it
//	/invalidJSON                    200 with a body that is not JSON
//	/emptyBody                      200 without a body or a Content-Type
//	/absentResponse                 an AdmissionReview without a response
//	/wrongUID                       a response whose uid is not the request's
//	/undecodablePatch               patch `[{`
//	/missingPathPatch               a patch adding below a path no object has
//	/emptyPatch                     patch `[]`
//	/patchWithoutType               a patch without patchType
//	/unsupportedPatchType           a JSON patch labelled patchType MergePatch
//
// Parameters, on any behaviour that answers with a response (allow, deny and the patches):
//
//	code=<n> reason=<r> message=<m>   the response status (a denial's code, reason and message)
//	warning=<text>                    a warning; repeat for several, duplicates are kept
//	annotation=<key>=<value>          an audit annotation
//
// Build paths with the functions of this package (Allow, Deny, SetLabel...): they escape values,
// which may hold any character but "/" and may not be empty — kube-apiserver cleans the webhook
// URL's path, so neither an escaped slash nor an empty segment would survive the trip. An unknown
// behaviour answers 404, so a mistyped path fails loudly instead of allowing.
//
// Each answer mirrors the request's AdmissionReview version (admission.k8s.io/v1 or v1beta1).
//
// # Files
//
//	server.go  Server, Start, NewServer: the TLS server, and the calls it records per path
//	paths.go   the paths and the functions that build them (Allow, Deny, SetLabel...), Option
//	answer.go  each behaviour's answer: a response with its patch and parameters, or a failure
package webhooktest
