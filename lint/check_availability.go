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

	"github.com/admitkit/admit/dispatch/config"
)

const (
	kubeSystem    = metav1.NamespaceSystem
	kubeNodeLease = corev1.NamespaceNodeLease
)

// excludeNamespaceHint is the selector term that exempts a namespace by name.
func excludeNamespaceHint(namespace string) string {
	return fmt.Sprintf("add {key: %s, operator: NotIn, values: [%s]} to namespaceSelector.matchExpressions", corev1.LabelMetadataName, namespace)
}

// checkKubeSystem (B01): fail-closed webhooks in the way of the control plane's restart.
func checkKubeSystem(a *analysis) []finding {
	var out []finding
	nsLabels, _ := a.inv.namespaceLabels(kubeSystem)
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if !w.failClosed() {
				continue
			}
			writes := a.interceptedRestartWrites(w, kubeSystem, labels.Set{}, "")
			if len(writes) == 0 {
				continue
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
				message: fmt.Sprintf("fails closed and intercepts %s in kube-system (labels %s): while the webhook is down, the control plane and the add-ons there cannot recreate pods, renew leases or publish endpoints",
					describeRequests(writes), describeLabels(nsLabels)),
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
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
				message: fmt.Sprintf("fails closed and intercepts %s in %q, the namespace of its own Service %q (%s): when every replica is down, none can be recreated",
					describeRequests(writes), b.namespace, b.service, b.describePods()),
				hint: fmt.Sprintf("exclude the server's namespace: %s, or label it %s=%d and exclude runlevels up to %d",
					excludeNamespaceHint(b.namespace), RunlevelLabel, defaultWebhookRunlevel, defaultWebhookRunlevel),
			})
		}
	}
	return out
}

// configRunlevel is the runlevel a configuration runs at: its annotation, else its server's
// namespace's runlevel label, else the level of webhook servers. from says which.
func (a *analysis) configRunlevel(c *configuration) (level int, from string, err error) {
	if value, ok := c.annotations[RunlevelLabel]; ok {
		level, err := parseRunlevel(value)
		if err != nil {
			return 0, "", err
		}
		return level, "annotation " + RunlevelLabel, nil
	}
	for _, w := range c.webhooks {
		if w.backend == nil {
			continue
		}
		nsLabels, _ := a.inv.namespaceLabels(w.backend.namespace)
		if level, key, ok := runlevel(nsLabels, a.runlevelLabels); ok {
			return level, fmt.Sprintf("label %s of its server's namespace %q", key, w.backend.namespace), nil
		}
	}
	return defaultWebhookRunlevel, "the level of webhook servers, as neither the configuration nor its server's namespace declares one", nil
}

// checkLowerRunlevel (B03): fail-closed webhooks reaching down the runlevels. kube-system and
// the server's own namespace are B01's and B02's.
func checkLowerRunlevel(a *analysis) []finding {
	var out []finding
	names := make([]string, 0, len(a.inv.namespaces))
	for name := range a.inv.namespaces {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, c := range a.configs {
		level, from, err := a.configRunlevel(c)
		if err != nil {
			out = append(out, finding{
				config: c, field: fmt.Sprintf("metadata.annotations[%s]", RunlevelLabel),
				message: fmt.Sprintf("annotation %s: %v", RunlevelLabel, err),
				hint:    "declare the configuration's runlevel as an integer: 2 for ordinary webhooks, higher for webhooks that depend on others",
			})
			continue
		}
		own := map[string]bool{}
		for _, w := range c.webhooks {
			if w.backend != nil {
				own[w.backend.namespace] = true
			}
		}
		for _, ns := range names {
			nsLevel, key, ok := runlevel(a.inv.namespaces[ns], a.runlevelLabels)
			if !ok || nsLevel > level || ns == kubeSystem || own[ns] {
				continue
			}
			for _, w := range c.webhooks {
				if !w.failClosed() {
					continue
				}
				writes := a.interceptedRestartWrites(w, ns, labels.Set{}, "")
				if len(writes) == 0 {
					continue
				}
				out = append(out, finding{
					config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
					message: fmt.Sprintf("fails closed and intercepts %s in %q (%s=%d), at or below the configuration's runlevel %d (%s): what runs there must not depend on this webhook",
						describeRequests(writes), ns, key, nsLevel, level, from),
					hint: fmt.Sprintf("exclude runlevels 0 to %d: add {key: %s, operator: NotIn, values: [%s]} to namespaceSelector.matchExpressions", level, key, runlevelList(level)),
				})
			}
		}
	}
	return out
}

func runlevelList(upTo int) string {
	values := make([]string, 0, upTo+1)
	for i := 0; i <= upTo; i++ {
		values = append(values, fmt.Sprintf("%q", fmt.Sprint(i)))
	}
	return strings.Join(values, ", ")
}

// dependency is an edge of the configuration graph: a webhook of one configuration intercepts
// the writes that restart another configuration's server.
type dependency struct {
	to        int // the configuration whose server is intercepted
	via       *webhook
	writes    []request
	namespace string
}

// checkCycles (B04): configurations whose fail-closed webhooks intercept each other's servers.
// The graph has an edge from X to Y when a fail-closed webhook of X intercepts the restart of
// Y's server; a cycle means that once all of them are down, none can come back. Servers that
// share a namespace are B02's.
func checkCycles(a *analysis) []finding {
	edges := a.dependencyGraph()
	var out []finding
	for _, component := range stronglyConnected(len(a.configs), edges) {
		if len(component) < 2 {
			continue
		}
		cycle := shortestCycle(component[0], component, edges)
		names := make([]string, len(cycle))
		for i, node := range cycle {
			names[i] = a.configs[node].display()
		}
		description := strings.Join(names, " → ")
		for i := 0; i+1 < len(cycle); i++ {
			from, to := cycle[i], cycle[i+1]
			e := edgeTo(edges[from], to)
			out = append(out, finding{
				config: a.configs[from], webhook: e.via, field: e.via.path().Child("namespaceSelector").String(),
				message: fmt.Sprintf("fails closed and intercepts %s in %q, where %s is served; the configurations form a cycle, each intercepting the next one's server: %s. After an outage that takes them all down, none can restart",
					describeRequests(e.writes), e.namespace, a.configs[to].display(), description),
				hint: fmt.Sprintf("break the cycle: %s, or give the servers' namespaces runlevels so that each configuration exempts the levels below it", excludeNamespaceHint(e.namespace)),
			})
		}
	}
	return out
}

func (a *analysis) dependencyGraph() [][]dependency {
	edges := make([][]dependency, len(a.configs))
	for x, cx := range a.configs {
		ownNamespaces := map[string]bool{}
		for _, w := range cx.webhooks {
			if w.backend != nil {
				ownNamespaces[w.backend.namespace] = true
			}
		}
		for y, cy := range a.configs {
			if x == y {
				continue
			}
			if e, ok := a.firstInterception(cx, cy, ownNamespaces); ok {
				e.to = y
				edges[x] = append(edges[x], e)
			}
		}
	}
	return edges
}

// firstInterception finds a fail-closed webhook of interceptor that intercepts the restart of
// one of target's servers outside interceptor's own namespaces.
func (a *analysis) firstInterception(interceptor, target *configuration, ownNamespaces map[string]bool) (dependency, bool) {
	seen := map[namespacedName]bool{}
	for _, tw := range target.webhooks {
		b := tw.backend
		if b == nil || seen[b.key()] || ownNamespaces[b.namespace] {
			continue
		}
		seen[b.key()] = true
		for _, w := range interceptor.webhooks {
			if !w.failClosed() {
				continue
			}
			if writes := a.interceptedRestartWrites(w, b.namespace, b.podLabels, b.service); len(writes) > 0 {
				return dependency{via: w, writes: writes, namespace: b.namespace}, true
			}
		}
	}
	return dependency{}, false
}

func edgeTo(edges []dependency, to int) dependency {
	for _, e := range edges {
		if e.to == to {
			return e
		}
	}
	return dependency{}
}

// stronglyConnected returns the strongly connected components of the graph (Tarjan), each
// sorted, in order of their smallest node.
func stronglyConnected(n int, edges [][]dependency) [][]int {
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var components [][]int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range edges[v] {
			switch {
			case index[e.to] < 0:
				visit(e.to)
				low[v] = min(low[v], low[e.to])
			case onStack[e.to]:
				low[v] = min(low[v], index[e.to])
			}
		}
		if low[v] != index[v] {
			return
		}
		var component []int
		for {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[top] = false
			component = append(component, top)
			if top == v {
				break
			}
		}
		slices.Sort(component)
		components = append(components, component)
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			visit(v)
		}
	}
	slices.SortFunc(components, func(x, y []int) int { return x[0] - y[0] })
	return components
}

// shortestCycle finds, by breadth-first search within component, the shortest path from start
// back to start: [start, ..., start].
func shortestCycle(start int, component []int, edges [][]dependency) []int {
	inComponent := map[int]bool{}
	for _, v := range component {
		inComponent[v] = true
	}
	parent := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range edges[v] {
			if !inComponent[e.to] {
				continue
			}
			if e.to == start {
				path := []int{start}
				for at := v; at != start; at = parent[at] {
					path = append(path, at)
				}
				slices.Reverse(path[1:])
				return append(path, start)
			}
			if _, seen := parent[e.to]; !seen {
				parent[e.to] = v
				queue = append(queue, e.to)
			}
		}
	}
	return []int{start, start} // unreachable for a component of two or more
}

// checkNodeLeases (B05): webhooks on the kubelets' heartbeats.
func checkNodeLeases(a *analysis) []finding {
	res, ok := preferredResource(a.mapper, schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"})
	if !ok {
		return nil
	}
	nsLabels, _ := a.inv.namespaceLabels(kubeNodeLease)
	node := authenticationv1.UserInfo{Username: "system:node:node-1", Groups: []string{"system:nodes", "system:authenticated"}}
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
				config: c, webhook: w, field: w.path().Child("namespaceSelector").String(), severity: Warning,
				message: "intercepts the node heartbeat Leases in kube-node-lease: every kubelet renews one every few seconds, and while the webhook is slow or down healthy nodes look dead and their pods are evicted",
				hint:    "exclude kube-node-lease: " + excludeNamespaceHint(kubeNodeLease),
			}
			if w.mutating {
				f.severity = Error
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
	for _, gr := range config.ExcludedVirtualResources() {
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
				if w.matchesRules(a.mapper, r) {
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

// checkReplicas (B07) and checkDisruptionBudget (B08) look at the workloads serving fail-closed
// webhooks, once per configuration and workload.
func checkReplicas(a *analysis) []finding {
	return forServingWorkloads(a, func(c *configuration, w *webhook, wl *workload) (finding, bool) {
		if wl.replicas == nil || *wl.replicas >= 2 {
			return finding{}, false
		}
		return finding{
			config: c, webhook: w, field: w.path().Child("clientConfig", "service").String(),
			message: fmt.Sprintf("fails closed, and its server %s runs %s: every rollout, node drain or crash makes the webhook unavailable and the writes it intercepts fail", wl, plural(int(*wl.replicas), "replica")),
			hint:    "run at least 2 replicas, spread over nodes with topologySpreadConstraints or pod anti-affinity",
		}, true
	})
}

func checkDisruptionBudget(a *analysis) []finding {
	return forServingWorkloads(a, func(c *configuration, w *webhook, wl *workload) (finding, bool) {
		if wl.kind == "DaemonSet" || a.inv.disruptionBudgetFor(wl, w.backend.namespace) != nil {
			return finding{}, false
		}
		return finding{
			config: c, webhook: w, field: w.path().Child("clientConfig", "service").String(),
			message: fmt.Sprintf("fails closed, and no PodDisruptionBudget in the input covers the pods of its server %s: a node drain may evict every replica at once", wl),
			hint:    fmt.Sprintf("add a PodDisruptionBudget in %q selecting the server's pods (%s) with maxUnavailable: 1", w.backend.namespace, describeLabels(wl.templateLabels)),
		}, true
	})
}

func forServingWorkloads(a *analysis, check func(*configuration, *webhook, *workload) (finding, bool)) []finding {
	var out []finding
	for _, c := range a.configs {
		seen := map[*workload]bool{}
		for _, w := range c.webhooks {
			if !w.failClosed() || w.backend == nil {
				continue
			}
			for _, wl := range w.backend.workloads {
				if seen[wl] {
					continue
				}
				seen[wl] = true
				if f, ok := check(c, w, wl); ok {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// checkService (B09): a service clientConfig that leads nowhere. Only with Services in the
// input: a file of webhook configurations alone says nothing about what is deployed.
func checkService(a *analysis) []finding {
	if len(a.inv.services) == 0 {
		return nil
	}
	var out []finding
	for _, c := range a.configs {
		seen := map[string]bool{}
		for _, w := range c.webhooks {
			b := w.backend
			if b == nil {
				continue
			}
			key := fmt.Sprintf("%s:%d", b.key(), b.port)
			if seen[key] {
				continue
			}
			seen[key] = true
			message, hint := a.serviceProblem(b)
			if message == "" {
				continue
			}
			severity := Warning
			if w.failClosed() {
				severity = Error
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("clientConfig", "service").String(), severity: severity,
				message: message, hint: hint,
			})
		}
	}
	return out
}

func (a *analysis) serviceProblem(b *backend) (message, hint string) {
	if b.svc == nil {
		return fmt.Sprintf("calls Service %q, which the input does not define: every call fails", b.key().String()),
			"add the Service to the input, or correct clientConfig.service's name and namespace"
	}
	if b.svc.Spec.Type == corev1.ServiceTypeExternalName {
		return "", ""
	}
	var ports []string
	found := false
	for _, p := range b.svc.Spec.Ports {
		ports = append(ports, fmt.Sprint(p.Port))
		found = found || p.Port == b.port
	}
	if !found {
		return fmt.Sprintf("calls port %d of Service %q, which exposes %s: every call fails", b.port, b.key().String(), describePorts(ports)),
			"set clientConfig.service.port to the Service's port (not the container's targetPort)"
	}
	if len(b.svc.Spec.Selector) > 0 && len(b.workloads) == 0 && a.inv.workloadsIn(b.namespace) {
		return fmt.Sprintf("calls Service %q, whose selector %s matches the pods of no workload in the input's namespace %q: the Service has no endpoints and every call fails",
				b.key().String(), describeLabels(labels.Set(b.svc.Spec.Selector)), b.namespace),
			"make the Service's selector match the labels of the server's pod template"
	}
	return "", ""
}

// describePorts renders a Service's ports: "no ports", "port 443", "ports 80, 443".
func describePorts(ports []string) string {
	switch len(ports) {
	case 0:
		return "no ports"
	case 1:
		return "port " + ports[0]
	}
	return "ports " + strings.Join(ports, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
