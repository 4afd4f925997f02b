package review

import (
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/clusterstate"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/resources"
)

// IsPolicy reports an admission policy or binding (resources.IsPolicy of its kind).
func IsPolicy(obj *unstructured.Unstructured) bool {
	return resources.IsPolicy(obj.GroupVersionKind().GroupKind())
}

func isCRD(obj *unstructured.Unstructured) bool {
	return resources.IsCRD(obj.GroupVersionKind().GroupKind())
}

// policyCount counts the admission policies and bindings of cfg, and says where the first is.
func policyCount(cfg Config) (first string, n int) {
	for _, p := range cfg.Policies {
		if n == 0 {
			first = p.Source
		}
		n++
	}
	for _, obj := range cfg.Cluster {
		if IsPolicy(obj) {
			if n == 0 {
				first = "the cluster state"
			}
			n++
		}
	}
	return first, n
}

// collectCRDs gathers the CustomResourceDefinitions given, in the state, read from the cluster
// and among the objects under review (a build that creates a CRD and its custom resources is
// reviewed as if applied together), the first of each name.
func collectCRDs(cfg Config, objects []Input) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var crds resources.CRDs
	crds.Add(cfg.CRDs...)
	for _, obj := range cfg.Cluster {
		if err := crds.AddObject(obj, "the cluster state"); err != nil {
			return nil, err
		}
	}
	for _, obj := range cfg.Live {
		if err := crds.AddObject(obj, "the live cluster"); err != nil {
			return nil, err
		}
	}
	for _, in := range objects {
		if err := crds.AddObject(in.Object, in.Source); err != nil {
			return nil, err
		}
	}
	return crds.List(), nil
}

// state is what the chain is given of the cluster: the given state (which wins), the policies,
// what was read from the cluster, and reviewed, the reviewed objects other objects' admission
// reads (Plan.reviewed).
func (s *Session) state(reviewed []*unstructured.Unstructured) []runtime.Object {
	type key struct{ gk, namespace, name string }
	seen := map[key]bool{}
	var out []runtime.Object
	add := func(obj *unstructured.Unstructured) {
		k := key{obj.GroupVersionKind().GroupKind().String(), obj.GetNamespace(), obj.GetName()}
		if seen[k] || obj.GetName() == "" || isCRD(obj) {
			return // CRDs reach the chain as its Config.CRDs
		}
		seen[k] = true
		out = append(out, obj)
	}
	for _, obj := range s.cfg.Cluster {
		add(obj)
	}
	for _, p := range s.cfg.Policies {
		add(p.Object)
	}
	for _, obj := range s.cfg.Live {
		add(obj)
	}
	for _, obj := range reviewed {
		add(obj)
	}
	return out
}

// accountUse is what says which reviewed ServiceAccounts admission reads, before the objects
// naming them are seen: all of them if a policy of the Config takes ServiceAccounts as its
// parameters.
func (s *Session) accountUse() *clusterstate.AccountUse {
	var policies []*unstructured.Unstructured
	for _, p := range s.cfg.Policies {
		policies = append(policies, p.Object)
	}
	policies = append(append(policies, s.cfg.Cluster...), s.cfg.Live...)
	return clusterstate.NewAccountUse(clusterstate.ParamKinds(policies))
}

// stateOf is the object of an outcome that the admission of the others reads, or nil.
func stateOf(o *Outcome) *unstructured.Unstructured {
	if o.Err != nil || o.Request == nil || o.Object == nil || !resources.IsState(o.Object.GroupVersionKind().GroupKind()) {
		return nil
	}
	switch o.Request.Operation {
	case "CREATE", "UPDATE", "DELETE":
		// Written, or being deleted: either way it exists, as given, for the others (and a
		// Namespace being deleted has its own labels, not only its name label).
		return o.Object.DeepCopy()
	}
	return nil
}

// staticNamespaces serves the given state's namespace labels to the webhooks' namespaceSelectors
// when no chain holds the state (WebhooksOnly).
func (s *Session) staticNamespaces() dispatch.StaticNamespaces {
	var namespaces []*corev1.Namespace
	for _, obj := range s.cfg.Cluster {
		if obj.GroupVersionKind() != (schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}) {
			continue
		}
		var ns corev1.Namespace
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &ns); err == nil {
			namespaces = append(namespaces, &ns)
		}
	}
	return dispatch.NewStaticNamespaces(namespaces...)
}
