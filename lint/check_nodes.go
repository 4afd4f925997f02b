package lint

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// checkNodeWrites (B12): fail-closed webhooks on the writes that keep nodes in the cluster:
// kubelets registering their Node, reporting its status and renewing their client certificate,
// the node lifecycle controller tainting unreachable nodes and lifting the not-ready taint from
// new ones. These objects are cluster-scoped, so no namespaceSelector exempts them: only the
// rules, an objectSelector or matchConditions on the writers' users can leave them out. The
// synthetic requests carry those users, so a webhook whose matchConditions skip them is quiet.
func checkNodeWrites(a *analysis) []finding {
	var out []finding
	for _, c := range a.configs {
		for _, w := range c.webhooks {
			if !w.failClosed() {
				continue
			}
			writes := a.interceptedWrites(w, clusterWrites, "", labels.Set{}, "")
			if len(writes) == 0 {
				continue
			}
			var kinds []string
			for _, r := range requestsOf(writes) {
				kind := "Nodes"
				if r.gvr.Resource != "nodes" {
					kind = "CertificateSigningRequests"
				}
				if !slices.Contains(kinds, kind) {
					kinds = append(kinds, kind)
				}
			}
			out = append(out, finding{
				config: c, webhook: w, field: w.path().Child("rules").String(),
				message: fmt.Sprintf("fails closed and intercepts %s (%s are cluster-scoped: no namespaceSelector exempts them): while the webhook is down, %s",
					describeRequests(requestsOf(writes)), strings.Join(kinds, " and "), describeConsequences(writes)),
				hint: "leave these writes to the control plane: drop them from the rules, or skip its users with a matchCondition such as " +
					"\"!request.userInfo.username.startsWith('system:node:') && !request.userInfo.username.startsWith('system:serviceaccount:kube-system:')\"; " +
					"or fail open (failurePolicy: Ignore) with a timeout of a few seconds",
			})
		}
	}
	return out
}
