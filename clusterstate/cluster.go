package clusterstate

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// PageSize is how many objects one list request asks for.
const PageSize = 500

// Cluster is a live cluster, read only.
type Cluster struct {
	// Host is the apiserver's address, which names the cluster in messages.
	Host   string
	client dynamic.Interface
	served []Resource
}

// Resource is a resource the cluster serves, in its preferred version.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
	// Listable: the resource can be listed (some are only ever created: reviews, token requests).
	Listable bool
}

// Connect discovers what the cluster serves. Lists of a few hundred objects one after the other
// would take minutes at client-go's default of 5 requests a second: the client is allowed 50.
func Connect(config *rest.Config) (*Cluster, error) {
	config = rest.CopyConfig(config)
	config.QPS, config.Burst = 50, 100
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, err
	}
	served, err := servedResources(config.Host, disc)
	if err != nil {
		return nil, err
	}
	return &Cluster{Host: config.Host, client: client, served: served}, nil
}

// New is a Cluster of a client and what it serves, for tests and for programs that discovered
// it already.
func New(host string, client dynamic.Interface, served []Resource) *Cluster {
	return &Cluster{Host: host, client: client, served: served}
}

// servedResources lists the resources the cluster serves (their preferred versions),
// subresources aside. A group whose discovery failed (an aggregated API down) leaves its
// resources out; the others are still read.
func servedResources(host string, disc discovery.DiscoveryInterface) ([]Resource, error) {
	lists, err := disc.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("discovering the resources of %s: %w", host, err)
	}
	var out []Resource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			out = append(out, Resource{GVR: gv.WithResource(r.Name), Kind: r.Kind, Namespaced: r.Namespaced, Listable: slices.Contains(r.Verbs, "list")})
		}
	}
	// Discovery gives a group's resources in no fixed order (client-go gathers them in a map):
	// sorted, every reading of one cluster lists its objects in one order, which an audit's
	// shards number its writes by.
	slices.SortFunc(out, func(a, b Resource) int {
		return cmp.Or(strings.Compare(a.GVR.Group, b.GVR.Group), strings.Compare(a.GVR.Resource, b.GVR.Resource), strings.Compare(a.GVR.Version, b.GVR.Version))
	})
	return out, nil
}

// Served are the resources the cluster serves, by group and resource.
func (c *Cluster) Served() []Resource { return c.served }

// Find is the served resource of group and resource, if served.
func (c *Cluster) Find(group, resource string) (Resource, bool) {
	for _, r := range c.served {
		if r.GVR.Group == group && r.GVR.Resource == resource {
			return r, true
		}
	}
	return Resource{}, false
}

// Each lists a resource a page at a time — in namespace, or in every namespace for "" — and
// calls fn with each page. Listed objects get their kind, which lists leave out.
func (c *Cluster) Each(ctx context.Context, r Resource, namespace string, fn func([]unstructured.Unstructured) error) error {
	var ri dynamic.ResourceInterface = c.client.Resource(r.GVR)
	if r.Namespaced && namespace != "" {
		ri = c.client.Resource(r.GVR).Namespace(namespace)
	}
	opts := metav1.ListOptions{Limit: PageSize}
	for {
		list, err := ri.List(ctx, opts)
		if err != nil {
			return fmt.Errorf("listing %s of %s: %w", r.GVR.GroupResource(), c.Host, err)
		}
		for i := range list.Items {
			if list.Items[i].GetKind() == "" {
				list.Items[i].SetGroupVersionKind(r.GVR.GroupVersion().WithKind(r.Kind))
			}
		}
		if err := fn(list.Items); err != nil {
			return err
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return nil
		}
	}
}

// List lists every object of a resource in namespace ("" for all); none when the cluster does
// not serve it.
func (c *Cluster) List(ctx context.Context, group, resource, namespace string) ([]*unstructured.Unstructured, error) {
	r, ok := c.Find(group, resource)
	if !ok {
		return nil, nil
	}
	var out []*unstructured.Unstructured
	err := c.Each(ctx, r, namespace, func(page []unstructured.Unstructured) error {
		for i := range page {
			out = append(out, &page[i])
		}
		return nil
	})
	return out, err
}

// Admission lists the cluster's webhook configurations, admission policies and bindings, as
// configurations: without what the apiserver keeps of a stored object (managedFields, uid,
// resourceVersion, creationTimestamp, generation, status).
func (c *Cluster) Admission(ctx context.Context) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, resource := range []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations",
		"mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "validatingadmissionpolicies", "validatingadmissionpolicybindings"} {
		listed, err := c.List(ctx, "admissionregistration.k8s.io", resource, "")
		if err != nil {
			return nil, err
		}
		for _, obj := range listed {
			for _, field := range []string{"managedFields", "resourceVersion", "uid", "creationTimestamp", "generation"} {
				unstructured.RemoveNestedField(obj.Object, "metadata", field)
			}
			unstructured.RemoveNestedField(obj.Object, "status")
		}
		out = append(out, listed...)
	}
	return out, nil
}

// ServiceCIDR is the range the cluster gives Services their IPs from, when it says
// (networking.k8s.io ServiceCIDR "kubernetes", which kube-apiserver creates from its
// --service-cluster-ip-range); "" when it does not.
func (c *Cluster) ServiceCIDR(ctx context.Context) string {
	r, ok := c.Find("networking.k8s.io", "servicecidrs")
	if !ok {
		return ""
	}
	obj, err := c.client.Resource(r.GVR).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return ""
	}
	cidrs, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "cidrs")
	if len(cidrs) == 0 {
		return ""
	}
	return cidrs[0]
}
