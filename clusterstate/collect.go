package clusterstate

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// ParamKinds are the kinds the admission policies among objects take as parameters
// (spec.paramKind).
func ParamKinds(objects []*unstructured.Unstructured) []schema.GroupKind {
	var out []schema.GroupKind
	for _, obj := range objects {
		if !resources.IsPolicy(obj.GroupVersionKind().GroupKind()) {
			continue
		}
		apiVersion, _, _ := unstructured.NestedString(obj.Object, "spec", "paramKind", "apiVersion")
		kind, _, _ := unstructured.NestedString(obj.Object, "spec", "paramKind", "kind")
		if gv, err := schema.ParseGroupVersion(apiVersion); err == nil && kind != "" {
			if gk := gv.WithKind(kind).GroupKind(); !slices.Contains(out, gk) {
				out = append(out, gk)
			}
		}
	}
	return out
}

// Collector keeps, of a stream of objects — a dump of a cluster, read once before its objects
// are reviewed — those admission reads: the kinds of resources.StateKinds, CRDs and the
// parameter kinds, never Secrets. A cluster has about as many ServiceAccounts as workloads, and
// admission reads only those the objects name (a pod's must exist) and each namespace's
// default: the others are not kept.
type Collector struct {
	params   map[schema.GroupKind]bool
	accounts *AccountUse
	state    []*unstructured.Unstructured
}

// NewCollector keeps the state, and the objects of the parameter kinds.
func NewCollector(paramKinds []schema.GroupKind) *Collector {
	c := &Collector{params: map[schema.GroupKind]bool{}, accounts: NewAccountUse(paramKinds)}
	for _, gk := range paramKinds {
		c.params[gk] = true
	}
	return c
}

// Add looks at one object of the stream.
func (c *Collector) Add(obj *unstructured.Unstructured) {
	c.accounts.See(obj)
	gk := obj.GroupVersionKind().GroupKind()
	if gk == (schema.GroupKind{Kind: "Secret"}) || !(resources.IsState(gk) || resources.IsCRD(gk) || c.params[gk]) {
		return
	}
	// Kept for a whole run: without the record of who wrote what, which admission does not
	// read.
	unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
	c.state = append(c.state, obj)
}

// State is what was kept, in the stream's order: the ServiceAccounts only those an object names
// and the default ones.
func (c *Collector) State() []*unstructured.Unstructured {
	return slices.DeleteFunc(slices.Clone(c.state), func(obj *unstructured.Unstructured) bool { return !c.accounts.Reads(obj) })
}

// serviceAccountNames are the values of every serviceAccountName field in an object (a pod's
// spec, a workload's pod template, a CronJob's job template), appended to names.
func serviceAccountNames(v any, names []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, field := range v {
			if name, ok := field.(string); ok && k == "serviceAccountName" && name != "" {
				names = append(names, name)
				continue
			}
			names = serviceAccountNames(field, names)
		}
	case []any:
		for _, item := range v {
			names = serviceAccountNames(item, names)
		}
	}
	return names
}
