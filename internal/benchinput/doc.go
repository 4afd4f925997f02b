// Package benchinput writes the inputs the benchmarks review and send to a real kube-apiserver
// alike, so that their figures are of the same objects: a kustomize-shaped build and the
// admission policy that refuses some of it, and the benchmarks' one webhook; and the audit
// benchmarks' proposal and webhook.
//
//	build.go      Build, Policy: the kustomize-shaped build and its policy
//	labeller.go   RegisterLabeller: the webhook that labels every object it is sent
//	audit.go      WarningWebhook, WriteAuditProposal: what the audit benchmarks roll out
package benchinput
