package lint

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
)

// focus says which of the objects around the configurations the rules can relate to them,
// once the configurations are known: a reading in two passes (Surroundings.Around) keeps
// records of those only, so that what lint holds grows with what the configurations name,
// not with the input. Every rule that reads a record below reaches it from a configuration
// the same way, so the findings are those of a reading that keeps every record:
//
//   - a webhook's server is looked for in the namespace of the Service it calls: its Service,
//     the workloads and other pods there, their PodDisruptionBudgets, autoscalers and TLS
//     Secrets;
//   - a policy's parameters are objects of its paramKind;
//   - who fills a caBundle is a workload or Job whose ServiceAccount a ClusterRoleBinding
//     binds, in any namespace.
//
// Objects given without a namespace take the one they are applied to, and may be in any of
// them: they are always kept. Namespaces, RBAC, CRDs and cert-manager's Certificates and
// issuers are kept whole, as one reading keeps them: there are few of them, and rules read
// them across namespaces.
type focus struct {
	namespaces map[string]bool
	paramKinds map[schema.GroupKind]bool
	// bound say whether a workload runs as a ServiceAccount a ClusterRoleBinding of the input
	// binds to a ClusterRole.
	bound []func(*workload) bool
}

// newFocus reads the focus from the configurations of set (NeedsOf) and the
// ClusterRoleBindings read so far.
func newFocus(set *config.Set, inv *inventory) *focus {
	needs := NeedsOf(set)
	f := &focus{namespaces: map[string]bool{}, paramKinds: map[schema.GroupKind]bool{}}
	for _, ns := range needs.ServerNamespaces {
		f.namespaces[ns] = true
	}
	for _, gvk := range needs.ParamKinds {
		f.paramKinds[gvk.GroupKind()] = true
	}
	for _, b := range inv.clusterRoleBindings {
		if b.RoleRef.Kind != "ClusterRole" {
			continue
		}
		for _, s := range b.Subjects {
			if runsAs, ok := serviceAccountSubject(s); ok {
				f.bound = append(f.bound, runsAs)
			}
		}
	}
	return f
}

// inNamespaces says whether a record of an object in namespace is kept. A nil focus keeps
// every record (one reading, or a Set read whole).
func (f *focus) inNamespaces(namespace string) bool {
	return f == nil || namespace == "" || f.namespaces[namespace]
}

// keepsWorkload says whether a workload's or Job's record is kept: in a server's namespace, or
// running as a bound ServiceAccount.
func (f *focus) keepsWorkload(w *workload) bool {
	if f.inNamespaces(w.namespace) {
		return true
	}
	for _, runsAs := range f.bound {
		if runsAs(w) {
			return true
		}
	}
	return false
}

// keepsRef says whether the name and labels of an object of kind are kept.
func (f *focus) keepsRef(kind schema.GroupKind) bool { return f == nil || f.paramKinds[kind] }
