package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/review"
)

// A live cluster read for an audit, read-only: list and get, nothing else — discovery, and
// paginated lists of the admission configuration (the baseline), the state admission reads and
// the objects of every served resource a changed step can match. Secrets are never read.

// clusterPageSize is how many objects one list request returns: the audit's batches.
const clusterPageSize = 500

// auditCluster reads one cluster.
type auditCluster struct {
	host      string
	client    dynamic.Interface
	discovery discovery.DiscoveryInterface
	// namespace restricts the objects audited (and the namespaced state read) to one namespace;
	// "" is every namespace.
	namespace string
}

func newAuditCluster(kubeconfig, namespace string) (*auditCluster, error) {
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	// Lists of a few hundred objects, one after the other: client-go's default 5 requests a
	// second would make reading a large cluster take minutes.
	restConfig.QPS, restConfig.Burst = 50, 100
	client, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	return &auditCluster{host: restConfig.Host, client: client, discovery: disc, namespace: namespace}, nil
}

// servedResource is a resource the cluster serves, in its preferred version.
type servedResource struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
	listable   bool
}

// served lists the resources the cluster serves (their preferred versions), subresources aside.
func (c *auditCluster) served() ([]servedResource, error) {
	lists, err := c.discovery.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("discovering the resources of %s: %w", c.host, err)
	}
	// A group whose discovery failed (an aggregated API down) leaves its resources out; the others
	// are still read.
	var out []servedResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			out = append(out, servedResource{
				gvr: gv.WithResource(r.Name), kind: r.Kind, namespaced: r.Namespaced,
				listable: slices.Contains(r.Verbs, "list"),
			})
		}
	}
	return out, nil
}

// find is the served resource of group and resource, if served.
func find(served []servedResource, group, resource string) (servedResource, bool) {
	for _, r := range served {
		if r.gvr.Group == group && r.gvr.Resource == resource {
			return r, true
		}
	}
	return servedResource{}, false
}

// each lists a resource a page at a time — in c's namespace, or all — and calls fn with each page.
func (c *auditCluster) each(ctx context.Context, r servedResource, namespace string, fn func([]unstructured.Unstructured) error) error {
	var ri dynamic.ResourceInterface = c.client.Resource(r.gvr)
	if r.namespaced && namespace != "" {
		ri = c.client.Resource(r.gvr).Namespace(namespace)
	}
	opts := metav1.ListOptions{Limit: clusterPageSize}
	for {
		list, err := ri.List(ctx, opts)
		if err != nil {
			return fmt.Errorf("listing %s of %s: %w", r.gvr.GroupResource(), c.host, err)
		}
		for i := range list.Items {
			if list.Items[i].GetKind() == "" {
				list.Items[i].SetGroupVersionKind(r.gvr.GroupVersion().WithKind(r.kind))
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

// all lists every object of a resource.
func (c *auditCluster) all(ctx context.Context, served []servedResource, group, resource, namespace string) ([]*unstructured.Unstructured, error) {
	r, ok := find(served, group, resource)
	if !ok {
		return nil, nil // not served by this cluster: it has none
	}
	var out []*unstructured.Unstructured
	err := c.each(ctx, r, namespace, func(page []unstructured.Unstructured) error {
		for i := range page {
			out = append(out, &page[i])
		}
		return nil
	})
	return out, err
}

// admission reads the cluster's webhook configurations, admission policies and bindings: the
// baseline.
func (c *auditCluster) admission(ctx context.Context, served []servedResource) (admissionSet, error) {
	var objects []*unstructured.Unstructured
	for _, resource := range []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations",
		"mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "validatingadmissionpolicies", "validatingadmissionpolicybindings"} {
		listed, err := c.all(ctx, served, "admissionregistration.k8s.io", resource, "")
		if err != nil {
			return admissionSet{}, err
		}
		objects = append(objects, listed...)
	}
	set := &config.Set{}
	for _, obj := range objects {
		// Stored objects carry what the apiserver keeps of them; the configuration is the spec.
		for _, field := range []string{"managedFields", "resourceVersion", "uid", "creationTimestamp", "generation"} {
			unstructured.RemoveNestedField(obj.Object, "metadata", field)
		}
		unstructured.RemoveNestedField(obj.Object, "status")
		loaded, err := config.FromObjects(obj)
		if err != nil {
			return admissionSet{}, fmt.Errorf("the %s %s of %s: %w", obj.GetKind(), obj.GetName(), c.host, err)
		}
		set.Append(loaded)
	}
	out := admissionSetOf(set)
	for i := range out.policies {
		out.policies[i].Source = fmt.Sprintf("the cluster's %s %s", out.policies[i].Object.GetKind(), out.policies[i].Object.GetName())
	}
	return out, nil
}

// clusterStateResources are what admission reads of the cluster besides CRDs and policies'
// parameters: cluster-wide, then per namespace.
func clusterStateResources() []stateResource {
	return []stateResource{
		{"", "namespaces", false}, {"scheduling.k8s.io", "priorityclasses", false}, {"storage.k8s.io", "storageclasses", false},
		{"networking.k8s.io", "ingressclasses", false}, {"node.k8s.io", "runtimeclasses", false},
		{"apiextensions.k8s.io", "customresourcedefinitions", false},
		{"", "serviceaccounts", true}, {"", "limitranges", true}, {"", "resourcequotas", true},
	}
}

type stateResource struct {
	group, resource string
	namespaced      bool
}

// state reads the state admission reads: namespaces and the cluster-wide classes, CRDs, the
// service accounts, limits and quotas of the namespace audited (or all), and the parameters the
// policies of sets name (never a Secret).
func (c *auditCluster) state(ctx context.Context, served []servedResource, sets ...admissionSet) ([]*unstructured.Unstructured, []string, error) {
	var out []*unstructured.Unstructured
	var notes []string
	for _, r := range clusterStateResources() {
		namespace := ""
		if r.namespaced {
			namespace = c.namespace
		}
		listed, err := c.all(ctx, served, r.group, r.resource, namespace)
		if err != nil {
			return nil, nil, err
		}
		for _, obj := range listed {
			// Kept for the whole run: without the record of who wrote what, which admission
			// does not read.
			unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
		}
		out = append(out, listed...)
	}
	params := paramKinds(sets...)
	for _, gk := range sortedGroupKinds(params) {
		if gk == (schema.GroupKind{Kind: "Secret"}) {
			notes = append(notes, "policies take Secrets as parameters: admit audit never reads Secrets, give them with --cluster")
			continue
		}
		for _, r := range served {
			if r.gvr.Group == gk.Group && r.kind == gk.Kind && r.listable {
				listed, err := c.all(ctx, served, r.gvr.Group, r.gvr.Resource, "")
				if err != nil {
					return nil, nil, err
				}
				out = append(out, listed...)
				break
			}
		}
	}
	return out, notes, nil
}

func sortedGroupKinds(m map[schema.GroupKind]bool) []schema.GroupKind {
	out := make([]schema.GroupKind, 0, len(m))
	for gk := range m {
		out = append(out, gk)
	}
	slices.SortFunc(out, func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// serviceCIDR is the range the cluster gives Services their IPs from, when it says
// (networking.k8s.io ServiceCIDR "kubernetes", which kube-apiserver creates from its
// --service-cluster-ip-range).
func (c *auditCluster) serviceCIDR(ctx context.Context, served []servedResource) string {
	r, ok := find(served, "networking.k8s.io", "servicecidrs")
	if !ok {
		return ""
	}
	obj, err := c.client.Resource(r.gvr).Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return ""
	}
	cidrs, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "cidrs")
	if len(cidrs) == 0 {
		return ""
	}
	return cidrs[0]
}

// auditedResources are the served resources whose objects a changed step can match (for op), in
// discovery's order; skipped says why others it matches are not read.
func auditedResources(served []servedResource, matches func(schema.GroupVersionResource) bool, namespaced bool) (out []servedResource, skipped []string) {
	for _, r := range served {
		if !matches(r.gvr) {
			continue
		}
		switch {
		case r.gvr.Group == "" && r.gvr.Resource == "secrets":
			skipped = append(skipped, "secrets: admit audit never reads Secrets")
		case r.gvr.Group == "admissionregistration.k8s.io":
			// Configurations and policies are never sent to webhooks or policies.
		case !r.listable:
			// Only ever created (reviews, bindings, token requests): nothing stored to audit.
		case namespaced && !r.namespaced:
			// -n audits one namespace's objects.
		default:
			out = append(out, r)
		}
	}
	return out, skipped
}

// liveInputs turns a page of listed objects into inputs named after where they were read.
func liveInputs(host string, page []unstructured.Unstructured) []review.Input {
	out := make([]review.Input, len(page))
	for i := range page {
		obj := &page[i]
		where := obj.GetName()
		if ns := obj.GetNamespace(); ns != "" {
			where = ns + "/" + where
		}
		out[i] = review.Input{Source: fmt.Sprintf("%s: %s %s", host, obj.GetKind(), where), Object: obj}
	}
	return out
}
