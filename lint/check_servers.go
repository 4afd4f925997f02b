package lint

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// checkReplicas (B07) and checkDisruptionBudget (B08) look at the workloads serving fail-closed
// webhooks, once per workload: on the first configuration it serves, naming the others.
func checkReplicas(a *analysis) []finding {
	return forServingWorkloads(a, func(w *webhook, wl *workload, also string) (finding, bool) {
		replicas, by, ok := a.inv.minReplicas(wl)
		if !ok || replicas >= 2 {
			return finding{}, false
		}
		runs := fmt.Sprintf("runs %s", plural(int(replicas), "replica"))
		if by != "" {
			runs = fmt.Sprintf("runs as few as %s (the minReplicas of %s)", plural(int(replicas), "replica"), by)
		}
		return finding{
			config: w.config, webhook: w, field: w.path().Child("clientConfig", "service").String(),
			message: fmt.Sprintf("fails closed, and its server %s %s%s: every rollout, node drain or crash makes the webhook unavailable and the writes it intercepts fail", wl, runs, also),
			hint:    "run at least 2 replicas, spread over nodes with topologySpreadConstraints or pod anti-affinity",
		}, true
	})
}

func checkDisruptionBudget(a *analysis) []finding {
	return forServingWorkloads(a, func(w *webhook, wl *workload, also string) (finding, bool) {
		if wl.kind == "DaemonSet" || a.inv.disruptionBudgetFor(wl, w.backend.namespace) != nil {
			return finding{}, false
		}
		selector := wl.selectorLabels
		if len(selector) == 0 {
			selector = wl.templateLabels
		}
		return finding{
			config: w.config, webhook: w, field: w.path().Child("clientConfig", "service").String(),
			message: fmt.Sprintf("fails closed, and no PodDisruptionBudget in the input covers the pods of its server %s%s: a node drain may evict every replica at once", wl, also),
			hint:    fmt.Sprintf("add a PodDisruptionBudget in %q with the %s's selector (%s) and maxUnavailable: 1", w.backend.namespace, wl.kind, describeLabels(selector)),
		}, true
	})
}

// forServingWorkloads calls check once for each workload serving a fail-closed webhook, with
// the first such webhook and the other configurations the workload serves. Webhooks without
// rules are left out: their rules are filled in at runtime, and until then they intercept
// nothing.
func forServingWorkloads(a *analysis, check func(w *webhook, wl *workload, also string) (finding, bool)) []finding {
	type served struct {
		first  *webhook
		others []string
	}
	var order []*workload
	byWorkload := map[*workload]*served{}
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if !w.failClosed() || w.backend == nil || len(w.spec.Rules) == 0 {
				continue
			}
			for _, wl := range w.backend.workloads {
				s, seen := byWorkload[wl]
				if !seen {
					byWorkload[wl] = &served{first: w}
					order = append(order, wl)
					continue
				}
				if s.first.config != c && !slices.Contains(s.others, c.display()) {
					s.others = append(s.others, c.display())
				}
			}
		}
	}
	var out []finding
	for _, wl := range order {
		s := byWorkload[wl]
		also := ""
		switch {
		case len(s.others) > 2:
			also = fmt.Sprintf(" (it also serves %d other configurations)", len(s.others))
		case len(s.others) > 0:
			also = fmt.Sprintf(" (it also serves %s)", strings.Join(s.others, " and "))
		}
		if f, ok := check(s.first, wl, also); ok {
			out = append(out, f)
		}
	}
	return out
}

// checkService (B09): a service clientConfig that leads nowhere. Only where the input shows
// the Service's namespace (a Service or a workload there): a file of webhook configurations
// alone, or next to another project's objects, says nothing about what is deployed.
func checkService(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		seen := map[string]bool{}
		for _, w := range c.webhooks {
			b := w.backend
			if b == nil || !(a.inv.servicesIn(b.namespace) || a.inv.workloadsIn(b.namespace)) {
				continue
			}
			key := fmt.Sprintf("%s:%d", b.key(), b.port)
			if seen[key] {
				continue
			}
			seen[key] = true
			message, hint, assumed := a.serviceProblem(c, b)
			if message == "" {
				continue
			}
			severity := Warning
			switch {
			case assumed:
				severity = Info
			case w.failClosed():
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

// serviceProblem says why the Service b names leads nowhere, or "". assumed is true when that
// rests on what the input cannot show: pods run by kinds lint does not read, or an apiserver
// that routes to endpoints.
func (a *analysis) serviceProblem(c *configuration, b *backend) (message, hint string, assumed bool) {
	if b.svc == nil {
		return fmt.Sprintf("calls Service %q, which the input does not define: every call fails", b.key().String()),
			"add the Service to the input, or correct clientConfig.service's name and namespace", false
	}
	if b.svc.Spec.Type == corev1.ServiceTypeExternalName {
		return "", "", false
	}
	if b.svc.Spec.ClusterIP == corev1.ClusterIPNone {
		// kube-apiserver's default service resolver sends webhook calls to the Service's
		// cluster IP and refuses a Service without one; only --enable-aggregator-routing, which
		// picks an endpoint instead, reaches the pods of a headless Service.
		message = fmt.Sprintf(`calls Service %q, which is headless (clusterIP: None): kube-apiserver calls a webhook at its Service's cluster IP and refuses this one ("cannot route to service with ClusterIP \"None\""), so every call fails unless it runs with --enable-aggregator-routing`, b.key().String())
		hint = "give the webhook a Service with a cluster IP (a second Service beside the headless one, selecting the same pods)"
		if _, openShift := c.annotations[openShiftInjectionAnnotation]; openShift {
			// OpenShift's kube-apiserver runs with that flag, and only OpenShift answers the
			// annotation.
			return message + "; the configuration's " + openShiftInjectionAnnotation + " annotation makes it OpenShift's, whose kube-apiserver runs with it: there, and only there, the calls reach the pods", hint, true
		}
		return message, hint, false
	}
	var ports []string
	found := false
	for _, p := range b.svc.Spec.Ports {
		ports = append(ports, fmt.Sprint(p.Port))
		found = found || p.Port == b.port
	}
	if !found {
		return fmt.Sprintf("calls port %d of Service %q, which exposes %s: every call fails", b.port, b.key().String(), describePorts(ports)),
			"set clientConfig.service.port to the Service's port (not the container's targetPort)", false
	}
	if len(b.svc.Spec.Selector) == 0 || len(b.workloads) > 0 || !a.inv.workloadsIn(b.namespace) {
		return "", "", false
	}
	message = fmt.Sprintf("calls Service %q, whose selector %s matches the pods of no workload in the input's namespace %q: the Service has no endpoints and every call fails",
		b.key().String(), describeLabels(labels.Set(b.svc.Spec.Selector)), b.namespace)
	hint = "make the Service's selector match the labels of the server's pod template"
	selector := labels.SelectorFromSet(b.svc.Spec.Selector)
	var others []string
	for _, runner := range a.inv.otherPods {
		if !inNamespace(runner.namespace, b.namespace) {
			continue
		}
		if selector.Matches(runner.templateLabels) {
			return "", "", false // the server runs as a kind lint does not read
		}
		others = append(others, runner.String())
	}
	if len(others) > 0 {
		// Their controllers may label the pods beyond the template: lint cannot tell whether
		// one of them runs the server.
		return fmt.Sprintf("calls Service %q, whose selector %s matches the pods of no Deployment, StatefulSet or DaemonSet in %q; the namespace also holds %s, whose controller may label the pods beyond the template: lint cannot tell whether the server is there",
				b.key().String(), describeLabels(labels.Set(b.svc.Spec.Selector)), b.namespace, strings.Join(others, ", ")),
			"check that the server's pods carry the Service's selector, or " + hint, true
	}
	return message, hint, false
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
