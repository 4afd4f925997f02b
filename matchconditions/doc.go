// Package matchconditions compiles and evaluates the matchConditions of an admission webhook
// exactly as kube-apiserver 1.36 does, using the apiserver's own CEL environment.
//
// # The environment
//
// Expressions see the variables kube-apiserver gives webhook match conditions: object,
// oldObject, request, namespaceObject (always null for webhooks), authorizer and
// authorizer.requestResource; there is no params. The base environment is the one of
// kube-apiserver 1.36 with its default compatibility version, 1.35 (see CompatibilityVersion).
// Two flavours of it are used, as in the apiserver:
//
//   - Validate compiles with the environment for new expressions, as the apiserver does when a
//     configuration is created. Its errors are the ones kubectl shows ("compilation failed: ...").
//   - Compile compiles with the environment for stored expressions, as the apiserver does when it
//     loads configurations to call their webhooks.
//
// # Evaluation
//
// Matcher.Match evaluates the conditions in order against one admission, with the apiserver's
// cost limits: 1,000,000 per expression and 2,500,000 for all of a webhook's conditions together.
// The outcome follows the apiserver:
//
//   - a condition evaluated to false: not matched, even if other conditions failed;
//   - otherwise an evaluation failed: an error aggregating every failure, worded as the apiserver
//     words it (the caller applies the webhook's failurePolicy: with Fail the client sees
//     `<resource> "<name>" is forbidden: <error>`, with Ignore the webhook is skipped);
//   - running out of the cost budget is an error whatever the other conditions said;
//   - every condition true: matched.
//
// Matching applies no failurePolicy and records no metrics: the dispatcher does both, using
// Result.EvaluationErrors for the apiserver's per-condition error counter.
//
// # Files
//
//	environment.go  CompatibilityVersion: the apiserver's CEL environments, built once; compiling
//	validate.go     Validate, MaxConditions: the checks of a configuration being created
//	matcher.go      Compile, Matcher, Result, EvaluationError: conditions compiled, then evaluated
//	input.go        Input: one admission as the conditions see it, and its request variable
package matchconditions
