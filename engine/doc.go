// Package engine runs one write through kube-apiserver 1.36's admission: the pipeline whose
// order of steps is the apiserver's, with its per-request state and the rows of its result.
// kube-apiserver makes its webhooks admission plugins inside one chain; so does engine: the
// webhook dispatcher (package dispatch) and Kubernetes' own code (package chain: decoding,
// built-in plugins, admission policies, the registry) are steps of equal standing, and neither
// reaches into the other.
//
// One admission, in these files:
//
//	pipeline.go    Pipeline.Admit: the request body's limit, decoding (Codec), the mutating steps
//	               round after round while one asks for reinvocation, the preparation (the
//	               registry; the generated name), the validating steps, the storage (Codec)
//	steps.go       what a step is: MutatingStep, ValidatingStep, Preparer, Codec
//	attributes.go  what a step sees of the admission in flight and how it adds to the result:
//	               the object, warnings, audit annotations, rows, per-admission state
//	request.go     Request: what the apiserver knows of a write when admission runs
//	result.go      Result, Row, Outcome: the `admit review` contract
//	warnings.go    the apiserver's warning budget
//	status.go      the statuses the client receives
//
// engine links neither Kubernetes' code nor an HTTP client: a program that only calls webhooks
// links dispatch and engine.
package engine
