package dispatch

import (
	"context"

	corev1 "k8s.io/api/core/v1"
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
