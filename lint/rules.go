package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Rule describes one check. Rule IDs are stable: scripts, suppression annotations and SARIF
// consumers refer to them. The letter is the group: A what the apiserver refuses or warns about,
// B availability and bootstrap deadlocks, C scope (what reaches a webhook), D timeouts, E TLS,
// F admission policies.
type Rule struct {
	// ID is the stable identifier, e.g. "B02".
	ID string
	// Name is a readable identifier, e.g. "fail-closed-own-namespace"; suppression accepts it
	// too.
	Name string
	// Severity is the rule's usual severity. Rules that grade (see Summary) report some
	// findings lower or higher.
	Severity Severity
	// Summary says in one sentence what the rule finds.
	Summary string
	// Help says why it matters and what to do, in a few sentences. docs/lint.md has examples.
	Help string
}

// Rules returns the rules in ID order. The slice is fresh: callers may keep or change it. Each
// group of Rule's doc is listed by a function of its own.
func Rules() []Rule {
	return slices.Concat(
		apiserverRules(),
		availabilityRules(),
		scopeRules(),
		timeoutRules(),
		tlsRules(),
		policyRules(),
	)
}

// apiserverRules are group A: what kube-apiserver refuses, or accepts with a warning.
func apiserverRules() []Rule {
	return []Rule{
		{ID: "A01", Name: "invalid", Severity: Error,
			Summary: "The apiserver would refuse to create the configuration.",
			Help:    "kube-apiserver validates webhook configurations when they are created or updated. An invalid configuration never reaches the cluster, so the webhook it declares is silently missing from a deployment that otherwise succeeds."},
		{ID: "A02", Name: "apiserver-warning", Severity: Warning,
			Summary: "The apiserver would accept the configuration with a warning.",
			Help:    "kube-apiserver accepts the configuration but warns that part of it has no effect, e.g. a name reserved for static manifests. kubectl prints the warning once and it is easy to miss."},
	}
}

// availabilityRules are group B: fail-closed webhooks in the way of the cluster's own recovery.
func availabilityRules() []Rule {
	return []Rule{
		{ID: "B01", Name: "fail-closed-kube-system", Severity: Error,
			Summary: "A fail-closed webhook intercepts writes the control plane makes in kube-system.",
			Help:    "kube-system hosts the control plane and the add-ons every webhook depends on (runlevel 0). When a fail-closed webhook that intercepts its pods, leases or endpoints is down, those components cannot restart, renew their leader leases or publish endpoints; when it intercepts pod deletes and evictions, pods on dead nodes are never replaced and StatefulSet pods stay Terminating. The cluster cannot heal itself. Exclude kube-system with the namespaceSelector."},
		{ID: "B02", Name: "fail-closed-own-namespace", Severity: Error,
			Summary: "A fail-closed webhook intercepts the writes that would restart its own server.",
			Help:    "A webhook whose server runs in a namespace it intercepts, with failurePolicy Fail, deadlocks when all its pods are gone: new pods are refused because the webhook that would admit them is not running. Exclude the server's namespace with the namespaceSelector, or its pods with the objectSelector."},
		{ID: "B03", Name: "fail-closed-lower-runlevel", Severity: Error,
			Summary: "A fail-closed webhook intercepts a namespace at or below its own runlevel.",
			Help:    "Namespaces are labelled by runlevel: 0 the control plane, 1 the add-ons webhooks need (DNS, CNI, storage), 2 webhook servers, higher levels for webhooks that depend on other webhooks. A configuration must exempt every namespace at or below its own level, or a failure cascades down to what its own restart depends on."},
		{ID: "B04", Name: "dependency-cycle", Severity: Error,
			Summary: "Fail-closed webhooks intercept each other's servers.",
			Help:    "When webhook A intercepts the namespace B runs in and B intercepts A's, each one's restart needs the other up: after an outage that takes both down neither comes back. Give them different runlevels, or exempt each other's namespaces."},
		{ID: "B05", Name: "node-leases", Severity: Error,
			Summary: "A webhook intercepts node heartbeat leases in kube-node-lease (error when fail-closed, warning when fail-open with a timeout over 3 s, info otherwise).",
			Help:    "Every kubelet renews a Lease in kube-node-lease every few seconds. A webhook on them adds latency to every heartbeat and, when slow or down, makes healthy nodes look dead, so their pods are evicted. Exclude kube-node-lease."},
		{ID: "B06", Name: "virtual-resources", Severity: Warning,
			Summary: "A webhook matches TokenReviews, SubjectAccessReviews or other virtual authentication and authorization resources.",
			Help:    "These reviews are not stored objects: they are how extension servers and proxies authenticate and authorize callers. A webhook on them sits in the path of authentication. Kubernetes 1.37 stops sending them to webhooks by default; older clusters still do."},
		{ID: "B07", Name: "single-replica", Severity: Warning,
			Summary: "A fail-closed webhook is served by a Deployment with fewer than 2 replicas.",
			Help:    "With one replica, every rollout, node drain or crash makes the webhook unavailable and every write it intercepts fails. Run at least two replicas, spread across nodes."},
		{ID: "B08", Name: "no-disruption-budget", Severity: Warning,
			Summary: "A fail-closed webhook's Deployment has no PodDisruptionBudget.",
			Help:    "Without a PodDisruptionBudget a node drain may evict every replica at once, and the intercepted writes fail until the pods are back. Add a PodDisruptionBudget with maxUnavailable: 1 (or minAvailable: 1)."},
		{ID: "B09", Name: "missing-service", Severity: Error,
			Summary: "A webhook's clientConfig.service names a Service, port or backend that is not in the input (error when fail-closed, warning otherwise).",
			Help:    "The apiserver calls the Service named in clientConfig.service on the port given there. A Service that does not exist, does not expose that port, selects no pods or is headless (kube-apiserver calls a Service's cluster IP) makes every call fail. Checked only when the input has Services (a full manifest set, or a cluster)."},
		{ID: "B10", Name: "fail-closed-workloads", Severity: Warning,
			Summary: "A fail-closed webhook intercepts Deployments, StatefulSets or DaemonSets in kube-system or in its own namespace.",
			Help:    "Controllers bring pods back without writing these objects, but people and add-on managers write them to install, upgrade and repair: while the webhook is down, no add-on in kube-system can be upgraded and the fix to the webhook's own Deployment cannot be rolled out, so the way out of an outage is deleting the configuration. Exclude kube-system and the webhook's namespace with the namespaceSelector (kubebuilder scaffolds such webhooks without one)."},
		{ID: "B11", Name: "fail-closed-add-on-namespaces", Severity: Warning,
			Summary: "A fail-closed webhook on pods exempts kube-system but not the namespaces of the add-ons the cluster depends on.",
			Help:    "CNI plugins, DNS, ingress controllers, certificate managers and monitoring often run in namespaces of their own. A fail-closed webhook that intercepts pods there keeps them from restarting while it is down, and the webhook's own recovery may depend on them (its pods need the CNI, its certificate the certificate manager). Label those namespaces with a runlevel and exclude it, or make the webhook opt-in. lint reports this only when neither the selector nor the input's Namespaces use runlevel labels."},
		{ID: "B12", Name: "fail-closed-node-writes", Severity: Error,
			Summary: "A fail-closed webhook intercepts the writes kubelets and the node lifecycle controller make to Nodes, or kubelets' certificate requests.",
			Help:    "Nodes and CertificateSigningRequests are cluster-scoped: no namespaceSelector exempts them. While such a webhook is down, the node lifecycle controller cannot taint unreachable nodes, so their pods (the webhook's own server's among them) are never evicted and replaced; new nodes cannot register, report Ready or lose their not-ready taint; kubelets cannot renew their client certificates. Leave these writes out of the rules, skip the control plane's users with matchConditions, or fail open with a short timeout."},
	}
}

// scopeRules are group C: which requests reach a webhook — more than it handles, or, through
// match conditions that cannot be evaluated, none as meant.
func scopeRules() []Rule {
	return []Rule{
		{ID: "C01", Name: "wildcard-rule", Severity: Warning,
			Summary: "A rule matches every API group, every resource or every operation (info when the wildcard stays within the project's own API groups).",
			Help:    "Each wildcard multiplies the requests the webhook receives, including resources added later by CRDs and upgrades it was never written for. Name the groups, resources and operations the webhook handles."},
		{ID: "C02", Name: "broad-without-match-conditions", Severity: Info,
			Summary: "A webhook with wildcard rules has no matchConditions.",
			Help:    "matchConditions are CEL expressions the apiserver evaluates before calling the webhook. They filter cheaply what selectors cannot express (a user, an annotation, a field) and save a network round trip for requests the webhook would allow anyway."},
		{ID: "C03", Name: "match-policy-exact", Severity: Warning,
			Summary: "A webhook uses matchPolicy: Exact where a request through another version or group of a resource would bypass it.",
			Help:    "With Exact, a request through another version of the same resource (apps/v1beta1 then, a new version tomorrow) bypasses the webhook. Equivalent, the default, converts the request to the version the webhook asked for."},
		{ID: "C04", Name: "mirror-pods", Severity: Info,
			Summary: "A mutating webhook on pods does not exclude mirror pods.",
			Help:    "The kubelet creates a mirror pod for each static pod. The apiserver refuses changes to them, so a mutation either fails the mirror pod's creation or is lost. Exclude them with a matchCondition on the kubernetes.io/config.mirror annotation."},
		{ID: "C05", Name: "unserved-resource", Severity: Warning,
			Summary: "A rule names a resource, version or subresource that neither Kubernetes nor the input's CustomResourceDefinitions serve (info for groups the input does not show).",
			Help:    "kube-apiserver accepts a rule for a resource it does not serve, since one could be added later, and then never calls the webhook for it: a singular or misspelt resource name (deployment, eksconfig) silently turns off the defaulting or validation the webhook was written for. Name the resource as its plural, in a group and version that serve it."},
		{ID: "C06", Name: "match-condition-type-check", Severity: Warning,
			Summary: "A webhook's matchCondition does not type-check against a kind its rules match.",
			Help:    "kube-apiserver compiles match conditions with object and oldObject untyped, so a field the kind does not have (object.spec.containerz on pods) is accepted, and every evaluation of it fails at runtime: under failurePolicy Fail each request it is evaluated for is rejected, under Ignore the webhook is skipped for it. lint checks each condition against the schema of every kind the rules name, as the apiserver's type checker checks a policy's expressions. Fix the expression, guard the part meant for one kind by object.kind, or narrow the rules."},
	}
}

// timeoutRules are group D: how long a slow or absent webhook holds what it intercepts.
func timeoutRules() []Rule {
	return []Rule{
		{ID: "D01", Name: "long-timeout", Severity: Warning,
			Summary: "A webhook's timeoutSeconds is 10 (the default when unset) or more on writes the control plane makes continuously (info elsewhere, and when only objects its objectSelector picks by label reach it).",
			Help:    "A webhook that is down or slow holds every request it intercepts for up to timeoutSeconds. On the hot and recovery paths (pods, their bindings and status, nodes, leases, endpoints, events) that stalls controllers, the scheduler and kubelets; on Ingresses, NetworkPolicies, PersistentVolumeClaims, Namespaces, workloads or a project's custom resources only the occasional writes of people and deploy tools. Set the time the webhook needs at worst: 1-5 s for checks that stay in memory."},
		{ID: "D02", Name: "chain-exceeds-deadline", Severity: Warning,
			Summary: "The webhooks matching one request can together take longer than the request deadline.",
			Help:    "Mutating webhooks run one after the other (those with reinvocationPolicy IfNeeded possibly twice), then validating webhooks run in parallel. If their timeouts add up past the request's deadline (60 s by default), slow webhooks make requests time out before any failurePolicy applies."},
	}
}

// tlsRules are group E: CA bundles and serving certificates that cannot work.
func tlsRules() []Rule {
	return []Rule{
		{ID: "E01", Name: "ca-bundle-not-certificates", Severity: Error,
			Summary: "clientConfig.caBundle is not a PEM bundle of certificates only.",
			Help:    "The apiserver trusts the certificates it loads from caBundle and skips anything else: a bundle it loads no certificate from fails every call, and a PRIVATE KEY block publishes a secret to everyone who can read webhook configurations; text around the certificates is only untidy (info)."},
		{ID: "E02", Name: "certificate-expiry", Severity: Error,
			Summary: "A CA or serving certificate has expired (error) or expires soon (warning).",
			Help:    "When the CA in caBundle or the serving certificate expires, TLS handshakes fail and so does every call. Renew before expiry, and publish the new CA in caBundle before the server uses a certificate it signed; an old CA left beside the one that signs the serving certificate is only dead weight (info)."},
		{ID: "E03", Name: "certificate-name-mismatch", Severity: Error,
			Summary: "The serving certificate does not cover the name the apiserver connects to.",
			Help:    "The apiserver verifies the server's certificate against <service>.<namespace>.svc for a service clientConfig, or against the URL's host. A certificate without that name in its subject alternative names fails every handshake; the common name is not consulted."},
		{ID: "E04", Name: "sha1-signature", Severity: Error,
			Summary: "A certificate the apiserver verifies is signed with SHA-1.",
			Help:    "Go, and so kube-apiserver, rejects SHA-1 signatures when verifying certificate chains. Reissue the certificate with SHA-256 or better."},
		{ID: "E05", Name: "empty-ca-bundle", Severity: Error,
			Summary: "A service webhook has no caBundle and nothing in the input fills it in (error when fail-closed, warning when fail-open, info when the input holds only the configuration).",
			Help:    "Without caBundle the apiserver verifies the server against its own system roots, which never signed an in-cluster serving certificate. Set caBundle, annotate the configuration for an injector (cert-manager.io/inject-ca-from, service.beta.openshift.io/inject-cabundle...), or ship what fills it in: a rotator or certgen Job whose ServiceAccount may update the configuration, which lint reads from the input's ClusterRoles and bindings and from Kubernetes' built-in ClusterRoles (cluster-admin may, admin, edit and view may not)."},
	}
}

// policyRules are group F: admission policies and their bindings.
func policyRules() []Rule {
	return []Rule{
		{ID: "F01", Name: "binding-without-policy", Severity: Warning,
			Summary: "An admission policy binding names a policy that is not in the input.",
			Help:    "kube-apiserver ignores a binding whose policy does not exist: nothing is enforced and nothing says so. Apply the policy with its bindings, or fix spec.policyName."},
		{ID: "F02", Name: "params-not-supplied", Severity: Error,
			Summary: "A bound policy's paramKind is neither built in nor defined by a CRD in the input, or a binding selects parameters the input does not have although it has others of their kind (error when that denies the requests the policy or binding matches, warning when it only stops the policy from enforcing anything).",
			Help:    "kube-apiserver cannot configure a policy whose paramKind it does not serve: under failurePolicy Fail, the default, every request the policy matches is denied. While a binding's parameters are missing, parameterNotFoundAction decides: Deny makes the binding fail to configure, which failurePolicy Fail turns into a denial of every request it matches, whatever its validationActions; Allow enforces nothing. Ship the CRD and the parameter objects with the policy, or check the names."},
		{ID: "F03", Name: "fail-closed-policy-kube-system", Severity: Warning,
			Summary: "A fail-closed admission policy can deny writes the control plane needs in kube-system.",
			Help:    "A policy whose expression fails at runtime, or whose parameters go missing, denies every request it matches under failurePolicy Fail, the default. In kube-system that stops the control plane and its add-ons from recreating pods, renewing leases or publishing endpoints. Exclude kube-system with matchConstraints.namespaceSelector or the binding's matchResources."},
		{ID: "F04", Name: "policy-on-own-params", Severity: Warning,
			Summary: "A fail-closed admission policy applies to the kind of its own parameters.",
			Help:    "A change to the policy's parameters goes through the policy itself: a mistake in them, or an expression that fails on them, can deny the very change that would fix it. Exclude the parameters (by namespace or label) from matchConstraints."},
		{ID: "F05", Name: "policy-type-check", Severity: Warning,
			Summary: "A policy's CEL expression does not type-check against a kind it matches.",
			Help:    "kube-apiserver type-checks a ValidatingAdmissionPolicy against the schemas of the kinds it matches and reports the problems only in the policy's status. An expression that does not fit the kind fails at runtime, where failurePolicy decides. Fix the expression, or narrow matchConstraints to the kinds it was written for."},
		{ID: "F06", Name: "warn-only-binding", Severity: Info,
			Summary: "A validating policy binding never denies: its validationActions are Warn or Audit only.",
			Help:    "Warn and Audit report violations without rejecting them: right while a policy is rolled out, easy to forget afterwards. Add Deny once the policy has been observed."},
		{ID: "F07", Name: "unbound-policy", Severity: Warning,
			Summary: "An admission policy is named by no binding in the input, though the input binds other policies of its kind.",
			Help:    "kube-apiserver evaluates a policy only through its bindings: a policy without one never runs, and nothing says so. Bind it, or fix the spec.policyName of the binding meant for it. A set without bindings of the kind (a policy library administrators bind themselves) is not reported."},
		{ID: "F08", Name: "param-ref-mismatch", Severity: Error,
			Summary: "A binding has no paramRef while its policy's expressions read parameters (error when that denies every request the binding matches, warning when it enforces nothing), or has a paramRef its policy takes no parameters for (info).",
			Help:    "Without paramRef, kube-apiserver evaluates a policy that declares paramKind with params null: every expression reading them fails, and failurePolicy Fail denies every request the binding matches. A paramRef for a policy without paramKind is ignored. Give the binding the paramRef of the parameters, or write the policy for params == null."},
		{ID: "F09", Name: "param-ref-scope", Severity: Error,
			Summary: "A binding's paramRef.namespace does not fit the scope of the parameters' kind: unset for namespaced parameters while the binding matches cluster-scoped resources, or set for cluster-scoped ones (error under failurePolicy Fail, warning under Ignore).",
			Help:    "An empty paramRef.namespace means the request's namespace; for a request without one (a cluster-scoped resource) kube-apiserver cannot look the parameters up and the binding fails to configure. A namespace for cluster-scoped parameters fails every request. Either way failurePolicy decides, not parameterNotFoundAction: Fail denies. Set the parameters' namespace, keep cluster-scoped resources out of the binding, or remove the namespace."},
	}
}

// lookupRules maps IDs and names, in any case, to IDs.
func lookupRules(rules []Rule) map[string]string {
	index := make(map[string]string, 2*len(rules))
	for _, r := range rules {
		index[strings.ToLower(r.ID)] = r.ID
		index[strings.ToLower(r.Name)] = r.ID
	}
	return index
}

// resolveRuleList reads a list of rule IDs or names (comma-separated entries are split) into
// IDs; unknown entries are returned separately.
func resolveRuleList(index map[string]string, entries []string) (ids map[string]bool, unknown []string) {
	ids = map[string]bool{}
	for _, entry := range entries {
		for _, item := range strings.Split(entry, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if id, ok := index[strings.ToLower(item)]; ok {
				ids[id] = true
			} else {
				unknown = append(unknown, item)
			}
		}
	}
	return ids, unknown
}

// errUnknownRules says which entries name no rule.
func errUnknownRules(what string, unknown []string) error {
	return fmt.Errorf("%s: unknown rules %s (see admit lint --list-rules)", what, strings.Join(quoteAll(unknown), ", "))
}

func quoteAll(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = strconv.Quote(v)
	}
	return out
}
