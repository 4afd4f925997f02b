package chain

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/admitkit/admit/resources"
)

// cluster is the state of the cluster admission reads: what kube-apiserver's built-in plugins
// look up through their informers and client (namespaces, service accounts, priority classes,
// limit ranges, quotas, storage, ingress and runtime classes). It is held by client-go's
// in-memory clientset, with real informers on top, so the plugins run their own lookups.
type cluster struct {
	client    *fake.Clientset
	informers informers.SharedInformerFactory
	stop      chan struct{}
	// assumed lists what a fresh cluster has that the given state did not, in messages.
	assumed []string
}

// systemPriorityClasses are the priority classes kube-apiserver creates in every cluster.
func systemPriorityClasses() []*schedulingv1.PriorityClass {
	return []*schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: 2000001000, Description: "Used for system critical pods that must not be moved from their current node."},
		{ObjectMeta: metav1.ObjectMeta{Name: "system-cluster-critical"}, Value: 2000000000, Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
	}
}

// freshNamespaces are the namespaces of every new cluster.
func freshNamespaces() []string {
	return []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease}
}

// newCluster holds objects and completes them with what a fresh 1.36 cluster has: every
// namespace in namespaces (and the four of every cluster) exists, active, with its name label,
// and has a default ServiceAccount; the system priority classes exist.
func newCluster(objects []runtime.Object, namespaces []string) (*cluster, error) {
	var typed []runtime.Object
	present := map[string]map[string]bool{} // kind -> namespace/name
	has := func(kind, key string) bool { return present[kind][key] }
	for _, obj := range objects {
		t, err := asTyped(obj)
		if err != nil {
			return nil, err
		}
		accessor, err := meta.Accessor(t)
		if err != nil {
			return nil, err
		}
		kind := fmt.Sprintf("%T", t)
		if present[kind] == nil {
			present[kind] = map[string]bool{}
		}
		key := accessor.GetNamespace() + "/" + accessor.GetName()
		if present[kind][key] {
			return nil, fmt.Errorf("the cluster state has %s %s twice", kindName(t), key)
		}
		present[kind][key] = true
		typed = append(typed, t)
	}

	c := &cluster{}
	wanted := map[string]bool{}
	for _, ns := range append(freshNamespaces(), namespaces...) {
		if ns != "" {
			wanted[ns] = true
		}
	}
	// A namespace the state gives has its default ServiceAccount too, as in any cluster (the
	// service account controller makes it), unless the state has it.
	for _, t := range typed {
		if ns, ok := t.(*corev1.Namespace); ok {
			wanted[ns.Name] = true
		}
	}
	var names []string
	for ns := range wanted {
		names = append(names, ns)
	}
	sort.Strings(names)
	var assumedNamespaces, assumedAccounts []string
	for _, ns := range names {
		if !has("*v1.Namespace", "/"+ns) {
			typed = append(typed, &corev1.Namespace{
				ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{corev1.LabelMetadataName: ns}},
				Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
				Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
			})
			assumedNamespaces = append(assumedNamespaces, ns)
		}
		if !has("*v1.ServiceAccount", ns+"/default") {
			typed = append(typed, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}})
			assumedAccounts = append(assumedAccounts, ns)
		}
	}
	var assumedClasses []string
	for _, pc := range systemPriorityClasses() {
		if !has("*v1.PriorityClass", "/"+pc.Name) {
			typed = append(typed, pc)
			assumedClasses = append(assumedClasses, pc.Name)
		}
	}
	c.assumed = assumedOf(assumedNamespaces, assumedAccounts, assumedClasses)

	c.client = fake.NewClientset(typed...)
	c.informers = informers.NewSharedInformerFactory(c.client, 0)
	c.stop = make(chan struct{})
	return c, nil
}

// assumedOf says what a fresh cluster has that the given state did not.
func assumedOf(namespaces, accounts, classes []string) []string {
	var out []string
	if len(namespaces) > 0 {
		out = append(out, fmt.Sprintf("namespaces %s exist (active, with only their kubernetes.io/metadata.name label)", joinNames(namespaces)))
	}
	if len(accounts) > 0 {
		out = append(out, fmt.Sprintf("the default ServiceAccount exists in %s", joinNames(accounts)))
	}
	if len(classes) > 0 {
		out = append(out, fmt.Sprintf("the priority classes %s exist, as in every cluster", joinNames(classes)))
	}
	return out
}

// start runs the informers the plugins asked for and waits until they hold the state. The
// in-memory clientset lists at once; client-go's wait polls every 100 ms, which would be most of
// a review's time, so the informers are asked without waiting, every millisecond.
func (c *cluster) start(ctx context.Context) error {
	c.informers.Start(c.stop)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	now := make(chan struct{})
	close(now)
	for {
		pending := 0
		for _, synced := range c.informers.WaitForCacheSync(now) {
			if !synced {
				pending++
			}
		}
		if pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d informers of the cluster state did not sync: %w", pending, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

func (c *cluster) close() {
	close(c.stop)
	c.informers.Shutdown()
}

func (c *cluster) clientset() kubernetes.Interface { return c.client }

// asTyped turns an object of the cluster state into its client-go Go type.
func asTyped(obj runtime.Object) (runtime.Object, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	gvk := u.GroupVersionKind()
	typed, err := resources.Types().New(gvk)
	if err != nil {
		return nil, fmt.Errorf("the cluster state can hold built-in kinds only, not %s %q", gvk.Kind, u.GetName())
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return nil, fmt.Errorf("reading %s %q: %w", gvk.Kind, u.GetName(), err)
	}
	return typed, nil
}

func kindName(obj runtime.Object) string {
	if kinds, _, err := resources.Types().ObjectKinds(obj); err == nil {
		return kinds[0].Kind
	}
	return fmt.Sprintf("%T", obj)
}

func joinNames(names []string) string {
	const shown = 6
	if len(names) > shown {
		return fmt.Sprintf("%s and %d more", joinNames(names[:shown]), len(names)-shown)
	}
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " and "
		default:
			out += ", "
		}
		out += n
	}
	return out
}
