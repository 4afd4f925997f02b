package chain

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/authorization/union"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

// Authorizer is the authorizer of a cluster's state (see newAuthorizer), which remembers
// whether admission asked it anything: what it assumed of RBAC matters only then.
type Authorizer struct {
	authorizer authorizer.Authorizer
	// assumed is the note for a state without RBAC, "" when it had some.
	assumed string
	asked   atomic.Bool
}

// NewAuthorizer is the authorizer of a cluster whose state is objects, as New builds it for
// its chain: for a caller that asks it without the chain, such as webhooks' matchConditions
// reviewed alone.
func NewAuthorizer(objects []runtime.Object) (*Authorizer, error) {
	typed := make([]runtime.Object, 0, len(objects))
	for _, obj := range objects {
		t, err := asTyped(obj)
		if err != nil {
			continue // not RBAC's concern: New reports it
		}
		typed = append(typed, t)
	}
	return newAuthorizer(typed)
}

// Authorize answers as kube-apiserver's authorizer would.
func (a *Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	a.asked.Store(true)
	return a.authorizer.Authorize(ctx, attrs)
}

// Assumed says what the answers given so far assumed of the cluster's RBAC: nothing when the
// state had RBAC objects or nothing was asked.
func (a *Authorizer) Assumed() []string {
	if a.assumed == "" || !a.asked.Load() {
		return nil
	}
	return []string{a.assumed}
}

// newAuthorizer is kube-apiserver's authorizer as admission meets it in a cluster set up as
// kubeadm sets one up (--authorization-mode=Node,RBAC): the system:masters group may do
// anything, then RBAC decides, with Kubernetes' own RBAC authorizer. Admission asks it what a
// request's user may do, in admission policies' and matchConditions' authorizer checks and in
// the built-in plugins that check permissions (CSR approval and signing, among others).
//
// RBAC reads the Roles, ClusterRoles and bindings of objects, and the bootstrap ones
// kube-apiserver creates at every start, which the state may lack: a cluster always has them.
// An aggregated ClusterRole (admin, edit, view) holds the rules kube-controller-manager's
// aggregation controller gathers into it. The Node authorizer, which grants kubelets what their
// own pods need, is not modelled: a kubelet's request is RBAC's alone.
//
// Without RBAC objects in the state, its permissions are a fresh cluster's, which Assumed says
// once asked.
func newAuthorizer(objects []runtime.Object) (*Authorizer, error) {
	roles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	roleBindings := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	clusterRoleBindings := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	var clusterRoles []*rbacv1.ClusterRole
	given := 0
	for _, obj := range objects {
		var store cache.Indexer
		switch o := obj.(type) {
		case *rbacv1.Role:
			store = roles
		case *rbacv1.RoleBinding:
			store = roleBindings
		case *rbacv1.ClusterRoleBinding:
			store = clusterRoleBindings
		case *rbacv1.ClusterRole:
			clusterRoles = append(clusterRoles, o)
			given++
			continue
		default:
			continue
		}
		given++
		if err := store.Add(obj); err != nil {
			return nil, fmt.Errorf("the cluster state's RBAC: %w", err)
		}
	}
	if err := addBootstrapPolicy(roles, roleBindings, clusterRoleBindings, &clusterRoles); err != nil {
		return nil, err
	}
	clusterRoleStore := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, role := range aggregateClusterRoles(clusterRoles) {
		if err := clusterRoleStore.Add(role); err != nil {
			return nil, fmt.Errorf("the cluster state's RBAC: %w", err)
		}
	}
	rbacAuthorizer := rbac.New(
		&rbac.RoleGetter{Lister: rbaclisters.NewRoleLister(roles)},
		&rbac.RoleBindingLister{Lister: rbaclisters.NewRoleBindingLister(roleBindings)},
		&rbac.ClusterRoleGetter{Lister: rbaclisters.NewClusterRoleLister(clusterRoleStore)},
		&rbac.ClusterRoleBindingLister{Lister: rbaclisters.NewClusterRoleBindingLister(clusterRoleBindings)},
	)
	a := &Authorizer{authorizer: union.New(authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup), rbacAuthorizer)}
	if given == 0 {
		a.assumed = "RBAC is a fresh cluster's: only the roles and bindings kube-apiserver creates (give the cluster's Roles, ClusterRoles and bindings for its own)"
	}
	return a, nil
}

// addBootstrapPolicy adds the roles and bindings kube-apiserver creates at every start to those
// of the state, where the state lacks one of the name: kube-apiserver recreates a deleted one,
// and keeps an existing one as it is when annotated rbac.authorization.kubernetes.io/autoupdate:
// "false" (reconciling the others only adds to them, which the state, read from a cluster,
// already shows).
func addBootstrapPolicy(roles, roleBindings, clusterRoleBindings cache.Indexer, clusterRoles *[]*rbacv1.ClusterRole) error {
	have := map[string]bool{}
	for _, r := range *clusterRoles {
		have[r.Name] = true
	}
	for _, r := range slices.Concat(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()) {
		if !have[r.Name] {
			*clusterRoles = append(*clusterRoles, r.DeepCopy())
		}
	}
	add := func(store cache.Indexer, obj metav1.Object) error {
		if _, exists, err := store.Get(obj); err != nil || exists {
			return err
		}
		return store.Add(obj)
	}
	for _, b := range slices.Concat(bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ControllerRoleBindings()) {
		if err := add(clusterRoleBindings, b.DeepCopy()); err != nil {
			return fmt.Errorf("the bootstrap RBAC: %w", err)
		}
	}
	for ns, list := range bootstrappolicy.NamespaceRoles() {
		for _, r := range list {
			r.Namespace = ns
			if err := add(roles, r.DeepCopy()); err != nil {
				return fmt.Errorf("the bootstrap RBAC: %w", err)
			}
		}
	}
	for ns, list := range bootstrappolicy.NamespaceRoleBindings() {
		for _, b := range list {
			b.Namespace = ns
			if err := add(roleBindings, b.DeepCopy()); err != nil {
				return fmt.Errorf("the bootstrap RBAC: %w", err)
			}
		}
	}
	return nil
}

// aggregateClusterRoles gives each ClusterRole with an aggregationRule the rules of the
// ClusterRoles its selectors pick, as kube-controller-manager's clusterrole-aggregation
// controller writes them: the picked roles in name order, each rule once, the role itself left
// out. Its own rules are replaced, as the controller replaces them. The controller runs on
// objects in a live cluster; here there is no controller to run, so its result is computed.
func aggregateClusterRoles(roles []*rbacv1.ClusterRole) []*rbacv1.ClusterRole {
	byName := make([]*rbacv1.ClusterRole, len(roles))
	copy(byName, roles)
	sort.Slice(byName, func(i, j int) bool { return strings.Compare(byName[i].Name, byName[j].Name) < 0 })
	out := make([]*rbacv1.ClusterRole, 0, len(roles))
	for _, role := range byName {
		if role.AggregationRule == nil {
			out = append(out, role)
			continue
		}
		aggregated := role.DeepCopy()
		aggregated.Rules = nil
		for _, other := range byName { // in name order, as the controller sorts them
			if other.Name == role.Name || !picks(role.AggregationRule, other) {
				continue
			}
			for _, rule := range other.Rules {
				if !slices.ContainsFunc(aggregated.Rules, func(r rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(r, rule) }) {
					aggregated.Rules = append(aggregated.Rules, rule)
				}
			}
		}
		out = append(out, aggregated)
	}
	return out
}

// picks says a selector of rule selects role; a selector that does not read selects nothing, as
// the controller skips it.
func picks(rule *rbacv1.AggregationRule, role *rbacv1.ClusterRole) bool {
	for _, selector := range rule.ClusterRoleSelectors {
		s, err := metav1.LabelSelectorAsSelector(&selector)
		if err == nil && s.Matches(labels.Set(role.Labels)) {
			return true
		}
	}
	return false
}
