package lint

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/resources"
)

// Surroundings read what the rules read of the objects around the configurations — the names and
// labels of objects policies take parameters from; what a Namespace, a Service, a workload, a
// PodDisruptionBudget, a certificate, a role says — as they are loaded, so that an input is never
// held whole; give the Surroundings to Run (Options). Of the objects, only
// CustomResourceDefinitions and admission policies stay in the Set.
//
// They read in one of two ways:
//
//   - in one pass, Others given to config.Load (config.Options.Others): a record of every
//     object, as the configurations may be read after the objects they refer to;
//   - in two, Keep and Around given to config.Load (config.Options.Others and Around): the
//     first reading keeps the configurations and reads the ClusterRoles and
//     ClusterRoleBindings, the second keeps records only of the objects the configurations can
//     refer to (the namespaces of the Services webhooks call, the kinds policies take
//     parameters of, the workloads running as a bound ServiceAccount). What is held then grows
//     with what the configurations name, not with the input; the findings are the same.
type Surroundings struct {
	inv *inventory
	err error
}

// NewSurroundings reads no object yet.
func NewSurroundings() *Surroundings { return &Surroundings{inv: emptyInventory()} }

// Others takes one object as config.Options.Others does, reading in one pass: it reads what the
// rules read of it, and keeps only CustomResourceDefinitions (which the policy checker reads) in
// the Set. An object of a known kind that does not decode is Run's error, as with a Set read
// whole.
func (s *Surroundings) Others(obj config.Object) (keep bool) {
	s.record(obj, s.inv.add(obj.Object))
	return keepInSet(obj)
}

// Keep takes one object as config.Options.Others does on the first of two readings (Around is
// the second): it reads the ClusterRoles and ClusterRoleBindings, which say whose workloads
// the second reading keeps, and keeps only CustomResourceDefinitions in the Set.
func (s *Surroundings) Keep(obj config.Object) (keep bool) {
	if isRBAC(obj.Object) {
		s.record(obj, s.inv.read(obj.Object))
	}
	return keepInSet(obj)
}

// Around is config.Options.Around: given the configurations of the first reading, it returns
// what reads the objects on the second, keeping records only of those the configurations can
// refer to.
func (s *Surroundings) Around(first *config.Set) func(config.Object) {
	s.inv.focus = newFocus(first, s.inv)
	return func(obj config.Object) {
		s.inv.addRef(obj.Object)
		if !isRBAC(obj.Object) { // read by Keep
			s.record(obj, s.inv.read(obj.Object))
		}
	}
}

// record keeps the first error reading an object, naming it.
func (s *Surroundings) record(obj config.Object, err error) {
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("%s: %s %q: %w", obj.Source, obj.Object.GetKind(), obj.Object.GetName(), err)
	}
}

// keepInSet says which objects around the configurations stay in the Set: the
// CustomResourceDefinitions, which the policy checker reads.
func keepInSet(obj config.Object) bool {
	return resources.IsCRD(obj.Object.GroupVersionKind().GroupKind())
}

// isRBAC says whether u is a ClusterRole or ClusterRoleBinding.
func isRBAC(u *unstructured.Unstructured) bool {
	gk := u.GroupVersionKind().GroupKind()
	return gk == schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRole"} ||
		gk == schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRoleBinding"}
}
