package clusterstate

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// StateOptions say what of the cluster's state to read.
type StateOptions struct {
	// Namespaces are those whose ServiceAccounts, LimitRanges and ResourceQuotas are read; with
	// AllNamespaces, every namespace's.
	Namespaces    []string
	AllNamespaces bool
	// ParamKinds are the kinds admission policies take as parameters: their objects are read
	// too, cluster-wide.
	ParamKinds []schema.GroupKind
}

// State reads the state admission reads: the cluster-wide kinds of resources.StateKinds and
// the CustomResourceDefinitions whole, its namespaced kinds in the namespaces asked for, and the
// objects of the parameter kinds. notes say what was not read: Secrets never are, and a policy
// that takes them as parameters must be given them otherwise.
func (c *Cluster) State(ctx context.Context, opts StateOptions) (objects []*unstructured.Unstructured, notes []string, err error) {
	add := func(listed []*unstructured.Unstructured) {
		for _, obj := range listed {
			// Kept for a whole run: without the record of who wrote what, which admission does
			// not read.
			unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
		}
		objects = append(objects, listed...)
	}
	for _, k := range resources.StateKinds() {
		namespaces := []string{""}
		if k.Namespaced && !opts.AllNamespaces {
			namespaces = opts.Namespaces
		}
		for _, ns := range namespaces {
			listed, err := c.List(ctx, k.Group, k.Resource, ns)
			if err != nil {
				return nil, nil, err
			}
			add(listed)
		}
	}
	crds, err := c.List(ctx, "apiextensions.k8s.io", "customresourcedefinitions", "")
	if err != nil {
		return nil, nil, err
	}
	add(crds)
	params := slices.Clone(opts.ParamKinds)
	slices.SortFunc(params, func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	for _, gk := range slices.Compact(params) {
		if gk == (schema.GroupKind{Kind: "Secret"}) {
			notes = append(notes, "policies take Secrets as parameters: Secrets are never read from a cluster, give them with --cluster")
			continue
		}
		for _, r := range c.served {
			if r.GVR.Group == gk.Group && r.Kind == gk.Kind && r.Listable {
				listed, err := c.List(ctx, r.GVR.Group, r.GVR.Resource, "")
				if err != nil {
					return nil, nil, err
				}
				add(listed)
				break
			}
		}
	}
	return objects, notes, nil
}
