package cli

import (
	"context"
	"fmt"
	"sort"

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
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/review"
)

// loadClusterState reads --namespaces and --cluster; every file of each counts.
func (o *reviewOptions) loadClusterState() ([]*unstructured.Unstructured, error) {
	var state []*unstructured.Unstructured
	if len(o.namespaces) > 0 {
		set, err := config.Load(config.Options{Recursive: o.recursive}, o.namespaces...)
		if err != nil {
			return nil, err
		}
		for _, obj := range set.Others {
			if obj.Object.GroupVersionKind() != (schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}) {
				return nil, fmt.Errorf("%s: --namespaces takes Namespace objects, found %s", obj.Source, obj.Object.GetKind())
			}
			state = append(state, obj.Object)
		}
	}
	if len(o.cluster) > 0 {
		set, err := config.Load(config.Options{Recursive: o.recursive}, o.cluster...)
		if err != nil {
			return nil, err
		}
		for _, obj := range set.Others {
			state = append(state, obj.Object)
		}
	}
	return state, nil
}

// loadCRDs reads the CustomResourceDefinitions of --crds.
func (o *reviewOptions) loadCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if len(o.crds) == 0 {
		return nil, nil
	}
	set, err := config.Load(config.Options{}, o.crds...)
	if err != nil {
		return nil, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, obj := range set.Others {
		gvk := obj.Object.GroupVersionKind()
		if gvk.Group != "apiextensions.k8s.io" || gvk.Kind != "CustomResourceDefinition" {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object.Object, &crd); err != nil {
			return nil, fmt.Errorf("%s: reading CustomResourceDefinition: %w", obj.Source, err)
		}
		crds = append(crds, &crd)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("--crds %v: no CustomResourceDefinition found", o.crds)
	}
	return crds, nil
}

// readLive reads the cluster --kubeconfig names, read-only: its CRDs, and what
// chain.ReadCluster reads for the objects' namespaces (never Secrets).
func (o *reviewOptions) readLive(ctx context.Context, objects []review.Input) ([]*unstructured.Unstructured, error) {
	if o.kubeconfig == "" {
		return nil, nil
	}
	restConfig, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	extensions, err := apiextensionsclient.NewForConfig(restConfig)
	if err != nil {
		return nil, badInput(fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err))
	}
	var live []*unstructured.Unstructured
	add := func(obj runtime.Object) error {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return err
		}
		live = append(live, &unstructured.Unstructured{Object: m})
		return nil
	}
	crds, err := extensions.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing the CustomResourceDefinitions of %s: %w", restConfig.Host, err)
	}
	for i := range crds.Items {
		crd := &crds.Items[i]
		crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
		if err := add(crd); err != nil {
			return nil, err
		}
	}
	state, err := chain.ReadCluster(ctx, client, o.namespacesOf(objects))
	if err != nil {
		return nil, fmt.Errorf("reading the cluster state of %s: %w", restConfig.Host, err)
	}
	for _, obj := range state {
		kinds, _, err := clientgoscheme.Scheme.ObjectKinds(obj)
		if err != nil {
			return nil, err
		}
		obj.GetObjectKind().SetGroupVersionKind(kinds[0])
		if err := add(obj); err != nil {
			return nil, err
		}
	}
	return live, nil
}

// namespacesOf lists the namespaces the objects name, or -n's for those that name none: where
// their service accounts and limits are read (a cluster-scoped object's adds a harmless read).
func (o *reviewOptions) namespacesOf(objects []review.Input) []string {
	seen := map[string]bool{}
	for _, in := range objects {
		ns := in.Object.GetNamespace()
		if ns == "" {
			ns = o.namespace
		}
		seen[ns] = true
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}
