package lint

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// workloadWrites are the writes that install, upgrade and repair workloads: what an
// administrator or an add-on manager applies, as opposed to the writes controllers make to
// bring pods back (restartWrites).
func workloadWrites(a *analysis) []request {
	var out []request
	for _, resource := range []string{"deployments", "statefulsets", "daemonsets"} {
		res, ok := preferredResource(a.mapper, schema.GroupResource{Group: "apps", Resource: resource})
		if !ok {
			continue
		}
		for _, op := range ops(admissionregistrationv1.Create, admissionregistrationv1.Update) {
			out = append(out, request{gvr: res.GVR, operation: op, namespaced: res.Namespaced})
		}
	}
	return out
}

// administrator is who applies add-ons and upgrades: kubectl with cluster-admin.
func administrator() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"}}
}

// checkWorkloads (B10): fail-closed webhooks on Deployments, StatefulSets and DaemonSets in
// kube-system or in their own namespace. Controllers bring pods back without writing these, so
// B01/B02 do not see them; but while the webhook is down, nobody can upgrade an add-on in
// kube-system or roll out the fix to the webhook's own Deployment. Namespaces where the webhook
// already blocks restarts (B01, B02) are left to those rules.
func checkWorkloads(a *analysis) []finding {
	writes, admin := workloadWrites(a), administrator()
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if !w.failClosed() {
				continue
			}
			type place struct {
				namespace, why string
				podLabels      labels.Set
			}
			places := []place{{namespace: kubeSystem, why: "add-ons in kube-system cannot be installed or upgraded", podLabels: labels.Set{}}}
			if b := w.backend; b != nil && b.namespace != kubeSystem {
				places = append(places, place{namespace: b.namespace, why: fmt.Sprintf("its own server cannot be rolled out or repaired in %q", b.namespace), podLabels: b.podLabels})
			}
			var hitNamespaces, consequences []string
			var hit []request
			for _, p := range places {
				serviceName := ""
				if w.backend != nil {
					serviceName = w.backend.service
				}
				if a.reportedElsewhere(w, p.namespace, p.podLabels, serviceName) {
					continue // B01 or B02 reports this namespace
				}
				nsLabels, _ := a.inv.namespaceLabels(p.namespace)
				var here []request
				for _, r := range writes {
					if a.intercepts(w, write{request: r, namespace: p.namespace, nsLabels: nsLabels, objectLabels: p.podLabels, user: admin}) {
						here = append(here, r)
					}
				}
				if len(here) > 0 {
					hitNamespaces = append(hitNamespaces, p.namespace)
					consequences = append(consequences, p.why)
					if len(here) > len(hit) {
						hit = here
					}
				}
			}
			if len(hitNamespaces) == 0 {
				continue
			}
			intercepted := fmt.Sprintf("%s in %s", describeRequests(hit), strings.Join(hitNamespaces, " and "))
			namespaces := []string{}
			for _, p := range places {
				namespaces = append(namespaces, p.namespace)
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
				message: fmt.Sprintf("fails closed and intercepts %s: while the webhook is down, %s",
					intercepted, strings.Join(consequences, ", and ")),
				hint: fmt.Sprintf("exclude the namespaces: add {key: kubernetes.io/metadata.name, operator: NotIn, values: [%s]} to namespaceSelector.matchExpressions", strings.Join(namespaces, ", ")),
			})
		}
	}
	return out
}

// reportedElsewhere says whether B01 (in kube-system) or B02 (elsewhere) already reports the
// webhook for namespace, with the same fix: exempting the namespace.
func (a *analysis) reportedElsewhere(w *webhook, namespace string, podLabels labels.Set, serviceName string) bool {
	if namespace == kubeSystem {
		return len(a.interceptedWrites(w, namespacedWrites, kubeSystem, labels.Set{}, "")) > 0
	}
	return len(a.interceptedRestartWrites(w, namespace, podLabels, serviceName)) > 0
}

// addonNamespaces are namespaces add-ons commonly run in: CNI, DNS, ingress, certificates,
// storage, monitoring. B11 imagines them unlabelled, as clusters create them.
func addonNamespaces() []string {
	return []string{"calico-system", "kube-flannel", "ingress-nginx", "cert-manager", "monitoring"}
}

// checkAddonNamespaces (B11): fail-closed webhooks that exempt kube-system but intercept pod
// restarts in every other namespace, add-ons' included. The runlevel scheme (B03) is the fix,
// but it needs labels on namespaces that few clusters set, so lint says so when it finds no
// trace of it: no runlevel label in the webhook's selector or on the input's namespaces.
func checkAddonNamespaces(a *analysis) []finding {
	if a.inputUsesRunlevels() {
		return nil
	}
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if !w.failClosed() || w.namespaceSelector == nil || selectorUsesKeys(w.spec, a.runlevelLabels) {
				continue
			}
			if a.reportedElsewhere(w, kubeSystem, labels.Set{}, "") {
				continue // B01
			}
			var hit []string
			var writes []request
			for _, ns := range addonNamespaces() {
				if w.backend != nil && w.backend.namespace == ns {
					continue
				}
				if _, inInput := a.inv.namespaces[ns]; inInput {
					continue // its labels are known: B03 and the selector decide
				}
				if found := a.interceptedRestartWrites(w, ns, labels.Set{}, ""); len(found) > 0 {
					hit = append(hit, ns)
					if writes == nil {
						writes = found
					}
				}
			}
			if len(hit) == 0 {
				continue
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("namespaceSelector").String(),
				message: fmt.Sprintf("fails closed and intercepts %s in every namespace it does not exempt by name, add-on namespaces such as %s included: while the webhook is down, the CNI, DNS, ingress or certificate controllers there cannot restart, and the webhook's own recovery may need them",
					describeRequests(writes), strings.Join(hit, ", ")),
				hint: fmt.Sprintf("label the namespaces of the add-ons the cluster depends on %s=1 and add {key: %s, operator: NotIn, values: [\"0\", \"1\"]} to namespaceSelector.matchExpressions, or make the webhook opt-in (a namespace label it requires)", RunlevelLabel, RunlevelLabel),
			})
		}
	}
	return out
}

// inputUsesRunlevels says whether any Namespace of the input carries a runlevel label.
func (a *analysis) inputUsesRunlevels() bool {
	for _, set := range a.inv.namespaces {
		if _, _, ok := runlevel(set, a.runlevelLabels); ok {
			return true
		}
	}
	return false
}

// selectorUsesKeys says whether a webhook's namespaceSelector mentions any of the keys.
func selectorUsesKeys(spec admissionregistrationv1.ValidatingWebhook, keys []string) bool {
	s := spec.NamespaceSelector
	if s == nil {
		return false
	}
	wanted := sets.New(keys...)
	for k := range s.MatchLabels {
		if wanted.Has(k) {
			return true
		}
	}
	return slices.ContainsFunc(s.MatchExpressions, func(e metav1.LabelSelectorRequirement) bool { return wanted.Has(e.Key) })
}
