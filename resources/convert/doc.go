// Package convert converts objects between the versions kube-apiserver 1.36 treats as equivalent,
// so that admit's dispatcher can call a webhook with matchPolicy Equivalent in the version its
// rules name (a dispatch.Converter).
//
// Three kinds of pairs are known:
//
//   - HorizontalPodAutoscaler autoscaling/v1 <-> autoscaling/v2. v1 holds one CPU utilization
//     target; what v2 has beyond it (other metrics, behavior, current metrics, conditions) rides
//     in autoscaling.alpha.kubernetes.io/* annotations on v1, and an autoscaling/v1 object that
//     names no target gets the implied 80% CPU utilization in v2. The mapping is the apiserver's,
//     checked against a real one in test/e2e.
//   - Event v1 <-> events.k8s.io/v1 Event, which share storage: involvedObject is regarding,
//     message is note, source and the timestamps and count become the deprecated* fields.
//   - Custom resources whose CustomResourceDefinition converts with strategy None: only the
//     apiVersion changes, between any two versions the CRD lists, served or not.
//
// Anything else is an error naming both kinds, as is a CRD whose conversion is a webhook: package
// chain's Converter calls conversion webhooks, with Kubernetes' own client, which this package
// leaves out to stay light.
//
// Conversion is all the apiserver does between versions, not defaulting: the apiserver decodes a
// request with its version's defaults before it converts (an autoscaling/v1 object without
// minReplicas reaches a v2 webhook with minReplicas 1), and admit does not default.
//
//	convert.go  Converter, New: the pairs known, custom resources with strategy None
//	hpa.go      HorizontalPodAutoscaler v1 <-> v2, with the annotations that carry v2 in v1
//	events.go   Event v1 <-> events.k8s.io/v1 Event
package convert
