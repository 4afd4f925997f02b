package clusterstate

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// AccountUse says which of the ServiceAccounts in a set of objects admission reads: each
// namespace's default, and those an object of the set names (a pod's, a workload's pod template's,
// a CronJob's) — or every one, when a policy takes ServiceAccounts as its parameters. A cluster,
// or a build of one, has about as many ServiceAccounts as workloads; keeping only these keeps the
// state small and changes no answer.
type AccountUse struct {
	named map[string]bool
	all   bool
}

// NewAccountUse starts with no account named; paramKinds are the kinds the policies take as
// parameters (ParamKinds).
func NewAccountUse(paramKinds []schema.GroupKind) *AccountUse {
	return &AccountUse{named: map[string]bool{}, all: slices.Contains(paramKinds, schema.GroupKind{Kind: "ServiceAccount"})}
}

// See notes the service accounts obj names.
func (u *AccountUse) See(obj *unstructured.Unstructured) {
	ns := obj.GetNamespace()
	for _, name := range serviceAccountNames(obj.Object, nil) {
		u.named[ns+"/"+name] = true
	}
}

// Reads says whether admission reads obj: false only for a v1 ServiceAccount, not a namespace's
// default, that no object seen names.
func (u *AccountUse) Reads(obj *unstructured.Unstructured) bool {
	if u.all || obj.GetKind() != "ServiceAccount" || obj.GetAPIVersion() != "v1" || obj.GetName() == "default" {
		return true
	}
	return u.named[obj.GetNamespace()+"/"+obj.GetName()]
}

// Add notes the accounts other has seen.
func (u *AccountUse) Add(other *AccountUse) {
	for k := range other.named {
		u.named[k] = true
	}
}

// ReadsAll says every ServiceAccount is read: a policy takes them as its parameters.
func (u *AccountUse) ReadsAll() bool { return u.all }
