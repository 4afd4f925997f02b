package extension

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
)

// ServiceResolver turns a service reference into the URL a request is sent to. The TLS server
// name stays <name>.<namespace>.svc whatever host the URL names, so a resolver may return an
// address (a ClusterIP, an endpoint, 127.0.0.1 in tests) without weakening verification. It is a
// function, as dispatch.ServiceResolver is.
type ServiceResolver func(ctx context.Context, svc ServiceReference) (*url.URL, error)

// ClusterDNS resolves a service to https://<name>.<namespace>.svc:<port><path>, relying on
// cluster DNS; it is the default ServiceResolver, and right for a caller inside the cluster.
func ClusterDNS(_ context.Context, svc ServiceReference) (*url.URL, error) {
	return &url.URL{
		Scheme: "https",
		Host:   net.JoinHostPort(svc.serverName(), strconv.Itoa(int(svc.port()))),
		Path:   svc.Path,
	}, nil
}

// NamespaceLabeler returns the labels of a namespace, for namespaceSelector matching. A caller
// in a cluster backs it with an informer or the API; tests and tools with a map. An error (the
// namespace does not exist, the API is down) fails the call whatever the failure policy: the
// caller cannot tell whether the extension should have been asked.
type NamespaceLabeler interface {
	NamespaceLabels(ctx context.Context, namespace string) (labels.Set, error)
}

// NamespaceLabelsFunc adapts a function to NamespaceLabeler.
type NamespaceLabelsFunc func(ctx context.Context, namespace string) (labels.Set, error)

// NamespaceLabels calls f.
func (f NamespaceLabelsFunc) NamespaceLabels(ctx context.Context, namespace string) (labels.Set, error) {
	return f(ctx, namespace)
}

// namespaceLabelsOnce looks a namespace's labels up at most once, however many extensions
// CallAll has to filter: the answer would not change within one call, and lookups may be remote.
type namespaceLabelsOnce struct {
	labeler   NamespaceLabeler
	namespace string
	done      bool
	labels    labels.Set
	err       error
}

// selects reports whether p's namespaceSelector selects the namespace.
func (n *namespaceLabelsOnce) selects(ctx context.Context, p *registered) (bool, error) {
	if n.namespace == "" || p.selector.Empty() {
		return true, nil
	}
	if n.labeler == nil {
		return false, fmt.Errorf("extension %q has a namespaceSelector but the caller has no NamespaceLabeler (Options.Namespaces)", p.Name)
	}
	if !n.done {
		n.done = true
		n.labels, n.err = n.labeler.NamespaceLabels(ctx, n.namespace)
		if n.err != nil {
			n.err = fmt.Errorf("looking up labels of namespace %q: %w", n.namespace, n.err)
		}
	}
	if n.err != nil {
		return false, n.err
	}
	return p.selector.Matches(n.labels), nil
}
