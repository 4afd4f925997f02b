package cli

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/config"
)

// clusterState is what the review knows of the cluster: the objects of --cluster and
// --namespaces.
type clusterState struct {
	objects []*unstructured.Unstructured
}

// stateKinds are the kinds of objects under review that the admission of the others reads, as
// if the whole input were applied to the cluster together: a Namespace, ServiceAccount,
// LimitRange or PriorityClass in the input exists for the other objects' admission.
func stateKinds() map[schema.GroupKind]bool {
	return map[schema.GroupKind]bool{
		{Kind: "Namespace"}: true, {Kind: "ServiceAccount"}: true, {Kind: "LimitRange"}: true, {Kind: "ResourceQuota"}: true,
		{Group: "scheduling.k8s.io", Kind: "PriorityClass"}: true, {Group: "storage.k8s.io", Kind: "StorageClass"}: true,
		{Group: "networking.k8s.io", Kind: "IngressClass"}: true, {Group: "node.k8s.io", Kind: "RuntimeClass"}: true,
	}
}

// loadClusterState reads --cluster and --namespaces.
func (o *reviewOptions) loadClusterState() (*clusterState, error) {
	state := &clusterState{}
	paths := append([]string(nil), o.cluster...)
	if o.namespaces != "" {
		paths = append(paths, o.namespaces)
	}
	if len(paths) == 0 {
		return state, nil
	}
	set, err := config.Load(config.Options{Recursive: o.recursive}, paths...)
	if err != nil {
		return nil, err
	}
	for _, obj := range set.Others {
		if o.namespaces != "" && obj.Source.File == o.namespaces && obj.Object.GroupVersionKind() != (schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}) {
			return nil, fmt.Errorf("%s: --namespaces takes Namespace objects, found %s", obj.Source, obj.Object.GetKind())
		}
		state.objects = append(state.objects, obj.Object)
	}
	return state, nil
}

// staticNamespaces serves the state's namespace labels to the webhooks' namespaceSelectors when
// no chain holds the state.
func (s *clusterState) staticNamespaces() dispatch.StaticNamespaces {
	var namespaces []*corev1.Namespace
	for _, obj := range s.objects {
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

// withReviewed is the state with the objects under review that other objects' admission reads;
// the state's own objects win over reviewed ones of the same name.
func (s *clusterState) withReviewed(reviews []*reviewed) []runtime.Object {
	type key struct{ gk, namespace, name string }
	seen := map[key]bool{}
	var out []runtime.Object
	add := func(obj *unstructured.Unstructured) {
		k := key{obj.GroupVersionKind().GroupKind().String(), obj.GetNamespace(), obj.GetName()}
		if seen[k] || obj.GetName() == "" {
			return
		}
		seen[k] = true
		out = append(out, obj)
	}
	for _, obj := range s.objects {
		add(obj)
	}
	kinds := stateKinds()
	for _, r := range reviews {
		if r.err != nil || r.object == nil || !kinds[r.object.GroupVersionKind().GroupKind()] {
			continue
		}
		if r.request.Operation == "CREATE" || r.request.Operation == "UPDATE" {
			add(r.object.DeepCopy())
		}
	}
	return out
}

// namespacesOf lists the namespaces the reviewed objects live in: they exist, as the cluster
// they are applied to would have them.
func namespacesOf(reviews []*reviewed) []string {
	seen := map[string]bool{}
	for _, r := range reviews {
		if r.request != nil && r.request.Namespace != "" {
			seen[r.request.Namespace] = true
		}
	}
	var out []string
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}
