// Package dispatchers runs the same admission — a CREATE of the benchmark Pod — through one
// mutating and two validating webhooks with two dispatchers:
//
//   - Admit: admit's dispatch.Dispatcher, given the Pod as JSON, as `admit review` and tests do;
//   - APIServer: kube-apiserver's own admission plugins (MutatingAdmissionWebhook then
//     ValidatingAdmissionWebhook from k8s.io/apiserver), driven in-process the way their own tests
//     and benchmarks drive them: configurations served to the plugins' informers by a fake
//     clientset, a static authentication-info resolver that trusts the webhooks' CA, and the
//     typed Pod in admission attributes.
//
// Both call the same webhooks over TLS on loopback with the same configurations and answer the
// same thing: Check verifies that the Pod came out labelled and with its sidecar.
//
// What the APIServer dispatcher does not do, compared with a real kube-apiserver: it is given the
// external (v1) Pod rather than the internal type, so no internal/external conversion happens, and
// the scheme has no defaulting functions, so the Pod is not re-defaulted after the patch. Both
// omissions make it cheaper than the real thing; the comparison errs in the apiserver's favour.
//
//	dispatchers.go  Dispatcher, Webhooks, NewWebhooks; InputCopy, the apiserver loop's copy alone
//	admit.go        Admit: admit's dispatcher
//	apiserver.go    APIServer: kube-apiserver's webhook admission plugins, set up in-process
package dispatchers
