package lint

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
)

const (
	kubeSystem    = metav1.NamespaceSystem
	kubeNodeLease = corev1.NamespaceNodeLease
)

// excludeNamespaceHint is the selector term that exempts a namespace by name.
func excludeNamespaceHint(namespace string) string {
	return fmt.Sprintf("add {key: %s, operator: NotIn, values: [%s]} to namespaceSelector.matchExpressions", corev1.LabelMetadataName, namespace)
}

// checkKubeSystem (B01): fail-closed webhooks in the way of the control plane's writes in
// kube-system: those that bring its pods back, and those that take pods away (the kubelet's
// final delete, evictions, the garbage collector), without which pods that are gone are never
// replaced.
func checkKubeSystem(a *analysis) []finding {
	var out []finding
	nsLabels, _ := a.inv.namespaceLabels(kubeSystem)
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if !w.failClosed() {
				continue
			}
			writes := a.interceptedWrites(w, namespacedWrites, kubeSystem, labels.Set{}, "")
			if len(writes) == 0 {
				continue
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
				message: fmt.Sprintf("fails closed and intercepts %s in kube-system (labels %s), the control plane's namespace: while the webhook is down, %s",
					describeRequests(requestsOf(writes)), describeLabels(nsLabels), describeConsequences(writes)),
				hint: "exclude kube-system: " + excludeNamespaceHint(kubeSystem) + " (if the selector relies on other labels, add kube-system's Namespace to the input)",
			})
		}
	}
	return out
}

// checkOwnNamespace (B02): fail-closed webhooks that would refuse their own server's pods.
func checkOwnNamespace(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			b := w.backend
			if !w.failClosed() || b == nil {
				continue
			}
			writes := a.interceptedRestartWrites(w, b.namespace, b.podLabels, b.service)
			if len(writes) == 0 {
				continue
			}
			f := finding{
				config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
				message: fmt.Sprintf("fails closed and intercepts %s in %q, the namespace of its own Service %q (%s): when every replica is down, none can be recreated",
					describeRequests(writes), b.namespace, b.service, b.describePods()),
				hint: fmt.Sprintf("exclude the server's namespace: %s, or label it %s=%d and exclude runlevels up to %d",
					excludeNamespaceHint(b.namespace), RunlevelLabel, defaultWebhookRunlevel, defaultWebhookRunlevel),
			}
			if assumed := a.assumedServerLabels(w); assumed != "" {
				// The selector exempts by labels the input does not show, taken as absent: the
				// deadlock is lint's assumption, not what the input says.
				f.severity = Info
				f.message += "; but " + assumed + ", taken as absent: if they are there, the selector exempts the server"
				f.hint = "give lint the server's Service and workload and its Namespace, so that it can check the exemption; or " + f.hint
			}
			out = append(out, f)
		}
	}
	return out
}

// assumedServerLabels says which labels B02's verdict on w took as absent though a selector
// reads them: the server's pods', unless the input has the workload behind its Service (a
// Service alone tells the labels its selector names), and its namespace's, unless the input has
// the Namespace (every namespace carries its kubernetes.io/metadata.name). It is "" when the
// selectors read only labels the input shows.
func (a *analysis) assumedServerLabels(w *webhook) string {
	b := w.backend
	var assumed []string
	if len(b.workloads) == 0 {
		var known labels.Set
		if b.svc != nil {
			known = labels.Set(b.svc.Spec.Selector)
		}
		if keys := unknownKeys(w.objectSelector, func(key string) bool { return known.Has(key) }); len(keys) > 0 {
			assumed = append(assumed, fmt.Sprintf("the objectSelector reads %s of the server's pods, which the input does not show", describeKeys(keys)))
		}
	}
	if _, ok := a.inv.namespaces[b.namespace]; !ok {
		if keys := unknownKeys(w.namespaceSelector, func(key string) bool { return key == corev1.LabelMetadataName }); len(keys) > 0 {
			assumed = append(assumed, fmt.Sprintf("the namespaceSelector reads %s of %q, whose Namespace the input lacks", describeKeys(keys), b.namespace))
		}
	}
	return strings.Join(assumed, ", and ")
}

// describeKeys renders label keys for messages: "the label app", "the labels app, tier".
func describeKeys(keys []string) string {
	if len(keys) == 1 {
		return "the label " + keys[0]
	}
	return "the labels " + strings.Join(keys, ", ")
}

// unknownKeys lists the keys the selector's requirements read that known does not cover.
func unknownKeys(selector labels.Selector, known func(key string) bool) []string {
	requirements, _ := selector.Requirements()
	var out []string
	for _, r := range requirements {
		if !known(r.Key()) && !slices.Contains(out, r.Key()) {
			out = append(out, r.Key())
		}
	}
	return out
}

// shortLeaseTimeoutSeconds is the longest timeout under which a fail-open webhook on node
// leases is only advice: kubelets renew every 10 s and retry, within the 40 s lease.
const shortLeaseTimeoutSeconds = 3

// checkNodeLeases (B05): webhooks on the kubelets' heartbeats, graded by what their outage
// does to heartbeats: refused (fail closed), delayed past a renewal (long timeout), or not.
func checkNodeLeases(a *analysis) []finding {
	res, ok := preferredResource(a.mapper, schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"})
	if !ok {
		return nil
	}
	nsLabels, _ := a.inv.namespaceLabels(kubeNodeLease)
	node := kubeletUser()
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			intercepted := false
			for _, op := range ops(admissionregistrationv1.Create, admissionregistrationv1.Update) {
				wr := write{
					request:   request{gvr: res.GVR, operation: op, namespaced: true},
					namespace: kubeNodeLease, nsLabels: nsLabels, objectLabels: labels.Set{}, user: node,
				}
				intercepted = intercepted || a.intercepts(w, wr)
			}
			if !intercepted {
				continue
			}
			f := finding{
				config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
				hint: "exclude kube-node-lease: " + excludeNamespaceHint(kubeNodeLease),
			}
			const heartbeat = "intercepts the node heartbeat Leases in kube-node-lease, which every kubelet renews every few seconds"
			switch {
			case w.failClosed():
				f.severity = Error
				f.message = heartbeat + ", and fails closed: while the webhook is down, renewals are refused, healthy nodes look dead and their pods are evicted"
			case w.timeoutSeconds() > shortLeaseTimeoutSeconds:
				f.severity = Warning
				f.message = fmt.Sprintf("%s: it fails open, but while it is slow or unreachable every renewal waits up to %d s, long enough for healthy nodes to look dead", heartbeat, w.timeoutSeconds())
			default:
				f.severity = Info
				f.message = fmt.Sprintf("%s: it fails open within %d s, so heartbeats survive its outages, at the cost of a call per renewal", heartbeat, w.timeoutSeconds())
			}
			if w.mutating {
				f.message += "; a mutating webhook must never change them"
			}
			out = append(out, f)
		}
	}
	return out
}

// checkVirtualResources (B06): webhooks matching authentication and authorization reviews.
func checkVirtualResources(a *analysis) []finding {
	var virtual []request
	for _, gr := range engine.ExcludedVirtualResources() {
		r := request{gvr: gr.WithVersion("v1"), operation: admissionregistrationv1.Create}
		if res, ok := preferredResource(a.mapper, gr); ok {
			r.gvr, r.namespaced = res.GVR, res.Namespaced
		}
		virtual = append(virtual, r)
	}
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			var matched []string
			for _, r := range virtual {
				// The apiserver applies the webhook's objectSelector and matchConditions to the
				// review as to any object: reviews carry no labels, so a selector that requires
				// one keeps them away.
				review := write{request: r, objectLabels: labels.Set{}, user: extensionServer()}
				if a.intercepts(w, review) {
					matched = append(matched, resourceName(r.gvr.Group, r.gvr.Resource, ""))
				}
			}
			if len(matched) == 0 {
				continue
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("rules").String(),
				message: fmt.Sprintf("matches %s: these reviews are how extension servers and proxies authenticate and authorize callers, and Kubernetes before 1.37 sends them to the webhook", strings.Join(matched, ", ")),
				hint:    "name the resources the webhook handles instead of using wildcards, and drop the review resources",
			})
		}
	}
	return out
}

// extensionServer is who sends the review resources: an aggregated API server authenticating
// and authorizing its callers through kube-apiserver.
func extensionServer() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:metrics-server",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}}
}
