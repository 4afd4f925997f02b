package dispatch

import (
	"context"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// NamespaceSource gives the labels of a namespace for namespaceSelector matching. A NotFound API
// error fails the admission with that 404, as in the apiserver.
type NamespaceSource interface {
	NamespaceLabels(ctx context.Context, name string) (map[string]string, error)
}

// StaticNamespaces serves namespace labels from Namespace objects. A namespace that is not listed
// is taken to exist with only its automatic kubernetes.io/metadata.name label, which is what
// every namespace of a real cluster carries.
type StaticNamespaces map[string]map[string]string

// NewStaticNamespaces indexes namespaces by name, adding the automatic name label.
func NewStaticNamespaces(namespaces ...*corev1.Namespace) StaticNamespaces {
	s := StaticNamespaces{}
	for _, ns := range namespaces {
		l := map[string]string{}
		for k, v := range ns.Labels {
			l[k] = v
		}
		l[corev1.LabelMetadataName] = ns.Name
		s[ns.Name] = l
	}
	return s
}

// NamespaceLabels implements NamespaceSource.
func (s StaticNamespaces) NamespaceLabels(_ context.Context, name string) (map[string]string, error) {
	if l, ok := s[name]; ok {
		return l, nil
	}
	return map[string]string{corev1.LabelMetadataName: name}, nil
}

// ClientNamespaces reads namespace labels from a cluster with a live GET per lookup.
type ClientNamespaces struct{ Client kubernetes.Interface }

// NamespaceLabels implements NamespaceSource.
func (c ClientNamespaces) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
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

// NamespaceLabels implements NamespaceSource.
func (l ListerNamespaces) NamespaceLabels(ctx context.Context, name string) (map[string]string, error) {
	ns, err := l.Lister.Get(name)
	if err == nil {
		return ns.Labels, nil
	}
	if !apierrors.IsNotFound(err) || l.Client == nil {
		return nil, err
	}
	return ClientNamespaces{Client: l.Client}.NamespaceLabels(ctx, name)
}
