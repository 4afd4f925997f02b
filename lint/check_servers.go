package lint

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

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
