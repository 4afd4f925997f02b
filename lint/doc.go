// Package lint checks admission webhook configurations for what breaks clusters: what the
// apiserver refuses, fail-closed webhooks that deadlock the cluster's own recovery, scopes wider
// than needed, timeouts that add up past the request deadline, and TLS material that cannot
// work.
//
// Run takes a config.Set (files loaded with config.Load, or a cluster read with package
// lint/cluster): the Mutating- and ValidatingWebhookConfigurations, and around them the
// Namespaces, Services, Deployments (StatefulSets, DaemonSets), PodDisruptionBudgets, TLS
// Secrets, cert-manager Certificates and CustomResourceDefinitions of the same input. Rules that
// need those objects stay silent when the input lacks them, rather than guess. Rules() lists the
// rules; docs/lint.md explains each with examples.
//
// # How lint decides what a webhook intercepts
//
// The questions "does this webhook intercept pods in kube-system?" are answered with the
// apiserver's own semantics: rules matched against the resources of Kubernetes 1.36 (package
// resources, with matchPolicy Equivalent), namespaceSelector evaluated on the namespace's
// labels (those of its Namespace object in the input, else only kubernetes.io/metadata.name),
// objectSelector on the object's labels, and matchConditions evaluated with the apiserver's CEL
// environment on a synthetic request: the write a controller, the scheduler or the kubelet
// makes, with the labels the webhook server's pods carry when the input says so. A condition
// that fails to evaluate on such a request counts as matching.
//
// The writes that matter for availability are those the control plane makes (control_plane.go
// models them, with their writers and what stops while they are refused): those that bring pods
// back and route traffic to them (pods and their binding and status, ServiceAccount tokens,
// ReplicaSets, EndpointSlices, Endpoints, Leases and ConfigMaps), those that take pods away (the
// kubelet's final delete, the taint eviction controller's and the garbage collector's, drains'
// evictions) and those that keep nodes in the cluster (Node registration, status and taints,
// kubelets' certificate requests). RBAC is read with Kubernetes' built-in ClusterRoles
// (cluster-admin, admin, edit, view) known, as the input never holds them.
//
// # Runlevels
//
// Kubernetes' design for webhook bootstrapping exempts namespaces by runlevel: 0 for the
// control plane (kube-system), 1 for the add-ons webhook servers need (DNS, CNI, storage), 2 for
// the namespaces of webhook servers, higher levels for webhooks that depend on other webhooks.
// A configuration must exempt every namespace at or below its own level. lint reads a
// namespace's runlevel from the label admit.dev/runlevel (RunlevelLabel), else "runlevel" (the
// design's own example), else "openshift.io/run-level" (Options.RunlevelLabels changes the
// list). A configuration's level is its admit.dev/runlevel annotation, else the runlevel of its
// server's namespace, else 2. Labelling namespaces must be reserved to cluster administrators:
// whoever can label a namespace can exempt it.
//
// # Severities and suppression
//
// Each finding has a Severity: Error (the apiserver refuses it, or it breaks as soon as the
// webhook is down), Warning (a risk under conditions that happen) or Info (advice). A
// configuration annotated admit.dev/lint-disable: "B07,mirror-pods" (DisableAnnotation) turns
// those rules off for itself; Options.Disable turns rules off everywhere. Suppressed findings
// are still returned, marked, so reports can count them.
//
// # Files
//
// The run, its input and its output:
//
//	lint.go           Options, Run: the input indexed, every check run, the findings completed
//	rules.go          Rule, Rules: the rules by group, and rule lists read by ID or name
//	severity.go       Severity: Info, Warning, Error
//	finding.go        Finding, Suppression, AtLeast
//	text.go           WriteText: the findings for people, by configuration, with a summary
//	markdown.go       WriteMarkdown: the findings for a pull request's comment, bounded
//	model.go          configurations and webhooks as the checks see them, the Service called
//	inventory.go      the objects around the configurations, indexed: namespaces, Services,
//	                  workloads and other pod runners, budgets, autoscalers
//	inventory_certs.go  the TLS material among them: Secrets' certificates, cert-manager
//	                  Certificates and CA issuers
//	surroundings.go   Surroundings: those objects read as the input loads, in one pass or two
//	needs.go          NeedsOf: where the objects the configurations can refer to are
//	focus.go          which of them a second pass keeps, from the Needs and the role bindings
//	policies.go       PolicyChecker, TypeWarning: admission policies and bindings as checks see them
//	policy_params.go  how a policy's expressions use params
//
// What a webhook intercepts:
//
//	scope.go          requests, and whether the apiserver calls a webhook for a write
//	control_plane.go  the control plane's writes: who makes them, what stops while they are refused
//	satisfiable.go    whether selectors can all match one namespace and one object
//	roles.go          the ClusterRoles a cluster holds once the input is applied, aggregated
//	builtin_roles.go  the built-in ClusterRoles (cluster-admin, admin, edit, view) and their rules
//	fillers.go        who fills in a caBundle at runtime, and which bound built-in roles may not
//	serving.go        which certificates a webhook's server presents, and which the configuration
//	                  trusts
//
// The checks, by rule:
//
//	check_validation.go       A01, A02: what the apiserver refuses or warns about on create
//	check_availability.go     B01, B02, B05, B06: kube-system, own namespace, node leases, reviews
//	check_runlevels.go        B03: webhooks reaching down the runlevels
//	check_cycles.go           B04: configurations whose servers depend on each other
//	check_servers.go          B07, B08, B09: a server's replicas, disruption budget, Service
//	check_addons.go           B10, B11: workloads in kube-system and own namespace; add-ons
//	check_nodes.go            B12: the writes that keep nodes in the cluster
//	check_scope.go            C01 to C04: wildcards, no conditions, matchPolicy Exact, mirror pods
//	check_unserved.go         C05: rules naming a resource nothing in Kubernetes or the input serves
//	check_conditions.go       C06: match conditions that do not type-check against the rules' kinds
//	check_timeouts.go         D01, D02: long timeouts, timeouts adding up past the deadline for
//	                          webhooks one request can reach together
//	check_tls.go              E01, E05: what a caBundle holds, and who fills in an empty one
//	check_certs.go            E02 to E04: expiry, names and SHA-1 signatures of certificates
//	check_policy_bindings.go  F01, F07: bindings without policies, policies without bindings
//	check_params.go           F02, F08, F09: parameters missing, paramRef mismatched or out of scope
//	check_policies.go         F03 to F06: kube-system, own parameters, types, warn-only bindings
package lint
