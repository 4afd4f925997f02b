package resources

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// What admission makes of a kind, decided here once for every part of admit: the admission
// configuration kinds, CustomResourceDefinitions, the state admission reads, and the Go types of
// the built-in kinds. Whether a kind is served (built in, or a CRD's) is the Mapper's to say.

const admissionGroup = "admissionregistration.k8s.io"

// IsWebhookConfiguration reports a Mutating- or ValidatingWebhookConfiguration.
func IsWebhookConfiguration(gk schema.GroupKind) bool {
	return gk.Group == admissionGroup && (gk.Kind == "MutatingWebhookConfiguration" || gk.Kind == "ValidatingWebhookConfiguration")
}

// IsPolicy reports an admission policy or a binding of one: Validating- and
// MutatingAdmissionPolicy and their Bindings.
func IsPolicy(gk schema.GroupKind) bool {
	if gk.Group != admissionGroup {
		return false
	}
	switch gk.Kind {
	case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}

// IsPolicyBinding reports a binding of an admission policy.
func IsPolicyBinding(gk schema.GroupKind) bool {
	return IsPolicy(gk) && (gk.Kind == "ValidatingAdmissionPolicyBinding" || gk.Kind == "MutatingAdmissionPolicyBinding")
}

// IsAdmissionConfiguration reports what configures admission — webhook configurations,
// admission policies and their bindings — which kube-apiserver never sends to webhooks or
// policies, so that a broken webhook can always be removed.
func IsAdmissionConfiguration(gk schema.GroupKind) bool {
	return IsWebhookConfiguration(gk) || IsPolicy(gk)
}

// IsCRD reports a CustomResourceDefinition.
func IsCRD(gk schema.GroupKind) bool {
	return gk == schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
}

// StateKind is a kind of object that kube-apiserver's admission reads from the cluster, with
// its resource.
type StateKind struct {
	schema.GroupKind
	Resource   string
	Namespaced bool
}

// StateKinds are what admission reads of the cluster besides CustomResourceDefinitions and
// admission policies' parameters — the Namespaces (namespaceSelector, the NamespaceLifecycle
// plugin), a namespace's ServiceAccounts (a pod's must exist), LimitRanges and ResourceQuotas,
// the cluster-wide classes the plugins look up, and the RBAC objects the authorizer reads (policies'
// and matchConditions' authorizer checks, plugins checking permissions) — cluster-wide kinds first.
func StateKinds() []StateKind {
	return []StateKind{
		{schema.GroupKind{Kind: "Namespace"}, "namespaces", false},
		{schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"}, "priorityclasses", false},
		{schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}, "storageclasses", false},
		{schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"}, "ingressclasses", false},
		{schema.GroupKind{Group: "node.k8s.io", Kind: "RuntimeClass"}, "runtimeclasses", false},
		{schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}, "clusterroles", false},
		{schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}, "clusterrolebindings", false},
		{schema.GroupKind{Kind: "ServiceAccount"}, "serviceaccounts", true},
		{schema.GroupKind{Kind: "LimitRange"}, "limitranges", true},
		{schema.GroupKind{Kind: "ResourceQuota"}, "resourcequotas", true},
		{schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "Role"}, "roles", true},
		{schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}, "rolebindings", true},
	}
}

// IsState reports a kind StateKinds lists.
func IsState(gk schema.GroupKind) bool {
	for _, k := range StateKinds() {
		if k.GroupKind == gk {
			return true
		}
	}
	return false
}

// CRDs gathers CustomResourceDefinitions from objects of any kind, the first of each name: the
// one reading of a CRD from a manifest, a dump or a cluster.
type CRDs struct {
	list []*apiextensionsv1.CustomResourceDefinition
	seen map[string]bool
}

// Add keeps the CRDs given, the first of each name.
func (c *CRDs) Add(crds ...*apiextensionsv1.CustomResourceDefinition) {
	for _, crd := range crds {
		if c.seen == nil {
			c.seen = map[string]bool{}
		}
		if !c.seen[crd.Name] {
			c.seen[crd.Name] = true
			c.list = append(c.list, crd)
		}
	}
}

// AddObject keeps obj when it is a CRD not seen yet; source names it in the error of one that
// does not read.
func (c *CRDs) AddObject(obj *unstructured.Unstructured, source string) error {
	if !IsCRD(obj.GroupVersionKind().GroupKind()) || c.seen[obj.GetName()] {
		return nil
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &crd); err != nil {
		return fmt.Errorf("%s: reading CustomResourceDefinition: %w", source, err)
	}
	c.Add(&crd)
	return nil
}

// List are the CRDs kept, in the order they came.
func (c *CRDs) List() []*apiextensionsv1.CustomResourceDefinition { return c.list }

// Types are the Go types of Kubernetes' built-in kinds (client-go's scheme, which nothing
// changes once the program runs): to decode a built-in object into its type, and to find a
// typed object's kind. Every part of admit asks this one scheme.
func Types() *runtime.Scheme { return clientgoscheme.Scheme }
