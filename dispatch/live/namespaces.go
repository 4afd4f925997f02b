package live

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// Namespaces reads namespace labels from a cluster with a live GET per lookup.
type Namespaces struct{ Client kubernetes.Interface }

// NamespaceLabels implements dispatch.NamespaceSource.
func (c Namespaces) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	ns, err := c.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err // a NotFound keeps its type, so the admission fails with the apiserver's 404
	}
	return ns.Labels, nil
}

// ListerNamespaces reads namespace labels from an informer's lister, as kube-apiserver does, and
// falls back to a live GET when the lister has not seen the namespace yet (a namespace created a
// moment ago); only the live GET's NotFound fails the admission with 404.
type ListerNamespaces struct {
	Lister corelisters.NamespaceLister
	Client kubernetes.Interface
}

// NamespaceLabels implements dispatch.NamespaceSource.
func (l ListerNamespaces) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	ns, err := l.Lister.Get(name)
	if err == nil {
		return ns.Labels, nil
	}
	if !apierrors.IsNotFound(err) || l.Client == nil {
		return nil, err
	}
	return Namespaces{Client: l.Client}.NamespaceLabels(ctx, name)
}
