package cli

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/admitkit/admit/chain"
	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/config"
)

// clusterState is what the review knows of the cluster: the objects of --cluster and
// --namespaces.
type clusterState struct {
	objects []*unstructured.Unstructured
	// live is what --kubeconfig's cluster has; objects given in files win over it.
	live []*unstructured.Unstructured
	// policies are the admission policies and bindings of --webhooks.
	policies []config.Object
}

// policyCount counts the admission policies and bindings of --webhooks and --cluster, and says
// where the first is.
func (s *clusterState) policyCount() (first string, n int) {
	for _, p := range s.policies {
		if n == 0 {
			first = p.Source.String()
		}
		n++
	}
	for _, obj := range s.objects {
		if isPolicy(obj) {
			if n == 0 {
				first = "--cluster"
			}
			n++
		}
	}
	return first, n
}

// isPolicy reports an admission policy or binding.
func isPolicy(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	if gvk.Group != "admissionregistration.k8s.io" {
		return false
	}
	switch gvk.Kind {
	case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
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

// loadClusterState reads --cluster and --namespaces; every file of each counts.
func (o *reviewOptions) loadClusterState() (*clusterState, error) {
	state := &clusterState{}
	if len(o.namespaces) > 0 {
		set, err := config.Load(config.Options{Recursive: o.recursive}, o.namespaces...)
		if err != nil {
			return nil, err
		}
		for _, obj := range set.Others {
			if obj.Object.GroupVersionKind() != (schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}) {
				return nil, fmt.Errorf("%s: --namespaces takes Namespace objects, found %s", obj.Source, obj.Object.GetKind())
			}
			state.objects = append(state.objects, obj.Object)
		}
	}
	if len(o.cluster) > 0 {
		set, err := config.Load(config.Options{Recursive: o.recursive}, o.cluster...)
		if err != nil {
			return nil, err
		}
		for _, obj := range set.Others {
			state.objects = append(state.objects, obj.Object)
		}
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
		if seen[k] || obj.GetName() == "" || isCRD(obj) {
			return // CRDs reach the chain as its Config.CRDs
		}
		seen[k] = true
		out = append(out, obj)
	}
	for _, obj := range s.objects {
		add(obj)
	}
	for _, p := range s.policies {
		add(p.Object)
	}
	for _, obj := range s.live {
		add(obj)
	}
	kinds := stateKinds()
	for _, r := range reviews {
		if r.err != nil || r.object == nil || !kinds[r.object.GroupVersionKind().GroupKind()] {
			continue
		}
		switch r.request.Operation {
		case "CREATE", "UPDATE", "DELETE":
			// Written, or being deleted: either way it exists, as given, for the others (and
			// a Namespace being deleted has its own labels, not only its name label).
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

// liveCluster is the cluster --kubeconfig names, read-only.
type liveCluster struct {
	host       string
	client     kubernetes.Interface
	extensions apiextensionsclient.Interface
}

func (o *reviewOptions) connect() (*liveCluster, error) {
	if o.kubeconfig == "" {
		return nil, nil
	}
	restConfig, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err)
	}
	extensions, err := apiextensionsclient.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err)
	}
	return &liveCluster{host: restConfig.Host, client: client, extensions: extensions}, nil
}

// readCRDs adds the cluster's CustomResourceDefinitions to the state.
func (c *liveCluster) readCRDs(ctx context.Context, state *clusterState) error {
	if c == nil {
		return nil
	}
	list, err := c.extensions.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing the CustomResourceDefinitions of %s: %w", c.host, err)
	}
	for i := range list.Items {
		crd := &list.Items[i]
		crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
		if err := state.addLive(crd); err != nil {
			return err
		}
	}
	return nil
}

// readState adds to the state what chain.ReadCluster reads of the cluster for the reviewed
// objects' namespaces.
func (c *liveCluster) readState(ctx context.Context, state *clusterState, reviews []*reviewed) error {
	if c == nil {
		return nil
	}
	live, err := chain.ReadCluster(ctx, c.client, namespacesOf(reviews))
	if err != nil {
		return fmt.Errorf("reading the cluster state of %s: %w", c.host, err)
	}
	for _, obj := range live {
		kinds, _, err := clientgoscheme.Scheme.ObjectKinds(obj)
		if err != nil {
			return err
		}
		obj.GetObjectKind().SetGroupVersionKind(kinds[0])
		if err := state.addLive(obj); err != nil {
			return err
		}
	}
	return nil
}

// addLive adds an object read from the live cluster.
func (s *clusterState) addLive(obj runtime.Object) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	s.live = append(s.live, &unstructured.Unstructured{Object: m})
	return nil
}
