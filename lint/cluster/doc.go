// Package cluster reads, without changing anything, what admit lint needs from a live cluster: the
// Mutating- and ValidatingWebhookConfigurations, every Namespace (for their labels), and, where
// lint.NeedsOf says the configurations' surroundings are, in the namespaces of the webhooks'
// Services those Services, the Deployments, StatefulSets and DaemonSets serving them, their
// PodDisruptionBudgets and HorizontalPodAutoscalers, the Pods running there and, when cert-manager
// is installed, its Certificates; the admission policies and their bindings, and the objects of
// their parameter kinds. Secrets are never read: lint must not need permission to read private
// keys, so the serving-certificate checks that look at Secrets only apply to files. RBAC is not
// read either: who may fill in a caBundle tells what a manifest will become, while a cluster's
// stored caBundle is what the apiserver uses now.
//
//	load.go  Options, Load: what lint reads of a cluster, listed only, into a config.Set
package cluster
