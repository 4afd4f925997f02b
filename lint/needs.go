package lint

import (
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
)

// Needs say where the objects around a Set's configurations that the rules relate to them are:
// what a reader that cannot read everything (a cluster, listed through its API; the second
// reading of a large input, Surroundings.Around) reads. Namespaces, ClusterRoles,
// ClusterRoleBindings, CRDs and cert-manager's Certificates and issuers are read wherever they
// are.
type Needs struct {
	// ServerNamespaces are the namespaces of the Services the webhooks call, sorted: their
	// servers' Services, workloads, pods, disruption budgets, autoscalers and TLS Secrets.
	ServerNamespaces []string
	// CertificateNamespaces are the namespaces of the cert-manager Certificates the
	// configurations' cert-manager.io/inject-ca-from annotations name, sorted.
	CertificateNamespaces []string
	// ParamKinds are the kinds the admission policies take parameters of, in the policies' order.
	ParamKinds []schema.GroupVersionKind
}

// NeedsOf reads the Needs of set's configurations and admission policies.
func NeedsOf(set *config.Set) Needs {
	var n Needs
	add := func(annotations map[string]string, clients []admissionregistrationv1.WebhookClientConfig) {
		for _, c := range clients {
			if c.Service != nil && !slices.Contains(n.ServerNamespaces, c.Service.Namespace) {
				n.ServerNamespaces = append(n.ServerNamespaces, c.Service.Namespace)
			}
		}
		if ns, _, ok := strings.Cut(annotations["cert-manager.io/inject-ca-from"], "/"); ok && ns != "" && !slices.Contains(n.CertificateNamespaces, ns) {
			n.CertificateNamespaces = append(n.CertificateNamespaces, ns)
		}
	}
	for _, c := range set.MutatingConfigs() {
		var clients []admissionregistrationv1.WebhookClientConfig
		for _, w := range c.Webhooks {
			clients = append(clients, w.ClientConfig)
		}
		add(c.Annotations, clients)
	}
	for _, c := range set.ValidatingConfigs() {
		var clients []admissionregistrationv1.WebhookClientConfig
		for _, w := range c.Webhooks {
			clients = append(clients, w.ClientConfig)
		}
		add(c.Annotations, clients)
	}
	slices.Sort(n.ServerNamespaces)
	slices.Sort(n.CertificateNamespaces)
	for _, obj := range set.Others {
		if gvk, ok := paramKindOf(obj.Object); ok && !slices.Contains(n.ParamKinds, gvk) {
			n.ParamKinds = append(n.ParamKinds, gvk)
		}
	}
	return n
}

// paramKindOf is the kind an admission policy takes its parameters from, read as check_params
// reads it (paramGVK).
func paramKindOf(u *unstructured.Unstructured) (schema.GroupVersionKind, bool) {
	if kind := u.GetKind(); !isPolicyKind(u) || (kind != validatingPolicyKind && kind != mutatingPolicyKind) {
		return schema.GroupVersionKind{}, false
	}
	apiVersion, _, _ := unstructured.NestedString(u.Object, "spec", "paramKind", "apiVersion")
	kind, _, _ := unstructured.NestedString(u.Object, "spec", "paramKind", "kind")
	return paramGVK(&admissionregistrationv1.ParamKind{APIVersion: apiVersion, Kind: kind})
}
