package chain

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apiserver/pkg/authorization/authorizer"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericinitializer "k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	mutatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/component-base/compatibility"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/resources"
)

// How the admission policy plugins are built: kube-apiserver's own plugin per binding, each on a
// cluster of its own holding the state, its policy and the binding, with the clients, REST mapper
// and exclusions the apiserver gives it.

// policyDeps builds the plugin of one binding.
type policyDeps struct {
	codec      *codec
	authorizer authorizer.Authorizer
	// interfaces convert objects and know resources' served versions, for matchPolicy Equivalent.
	interfaces objectInterfaces
	restMapper meta.RESTMapper
	schemas    *apiSchemas
	// clusters are the clusters built for the plugins, closed with the chain.
	clusters *[]*cluster
	dynamic  func(objects []runtime.Object) (dynamic.Interface, error)
}

type initializedPolicy struct {
	plugin  admission.Interface
	matcher generic.PolicyMatcher
	// schemas is the OpenAPI client the plugin lists the API's schemas with.
	schemas *schemaClient
}

// plugin initializes kube-apiserver's policy plugin on a cluster of its own holding objects.
func (d policyDeps) plugin(ctx context.Context, mutating bool, objects []runtime.Object, namespaces []string) (*initializedPolicy, func() error, error) {
	state, err := newCluster(objects, namespaces)
	if err != nil {
		return nil, nil, err
	}
	*d.clusters = append(*d.clusters, state)
	dyn, err := d.dynamic(objects)
	if err != nil {
		return nil, nil, err
	}
	schemas := d.schemas.client()
	client := schemaClientset{Interface: state.client, discovery: schemaDiscovery{DiscoveryInterface: state.client.Discovery(), openapi: schemas}}
	registry := admission.NewPlugins()
	name := validatingpolicy.PluginName
	if mutating {
		mutatingpolicy.Register(registry)
		name = mutatingpolicy.PluginName
	} else {
		validatingpolicy.Register(registry)
	}
	// The plugin's policy source starts reading as the plugin is initialized, and client-go's
	// wait for its informers polls every 100 ms: informers not yet synced at its first look cost
	// every review that much. The informers it reads are made and synced first, so that its
	// first look finds them ready.
	f := state.informers
	f.Core().V1().Namespaces().Informer()
	if mutating {
		f.Admissionregistration().V1().MutatingAdmissionPolicies().Informer()
		f.Admissionregistration().V1().MutatingAdmissionPolicyBindings().Informer()
	} else {
		f.Admissionregistration().V1().ValidatingAdmissionPolicies().Informer()
		f.Admissionregistration().V1().ValidatingAdmissionPolicyBindings().Informer()
	}
	if err := state.start(ctx); err != nil {
		return nil, nil, err
	}
	initializers := admission.PluginInitializers{
		genericinitializer.New(client, dyn, state.informers, d.authorizer, utilfeature.DefaultFeatureGate,
			compatibility.NewEffectiveVersionFromString(kubeVersion, "", ""), state.stop, d.restMapper),
		policyExclusions{},
	}
	plugin, err := registry.InitPlugin(name, nil, initializers)
	if err != nil {
		return nil, nil, fmt.Errorf("admission plugin %s: %w", name, err)
	}
	if err := state.start(ctx); err != nil {
		return nil, nil, err
	}
	matcher := generic.NewPolicyMatcher(matching.NewMatcher(state.informers.Core().V1().Namespaces().Lister(), state.client))
	wait := func() error {
		ready, ok := plugin.(interface{ WaitForReady() bool })
		if ok && !ready.WaitForReady() {
			return fmt.Errorf("admission plugin %s did not read its policies", name)
		}
		if !mutating {
			return nil
		}
		// The mutating plugin also lists the API's schemas in the background as it starts, and
		// until then refuses every mutation with ServiceUnavailable: a cluster that has been
		// running is past that point.
		select {
		case <-schemas.listed:
			return nil
		case <-time.After(schemaListingTimeout):
			return fmt.Errorf("admission plugin %s did not list the API's OpenAPI schemas within %v", name, schemaListingTimeout)
		}
	}
	return &initializedPolicy{plugin: plugin, matcher: matcher, schemas: schemas}, wait, nil
}

// policyExclusions gives the policy plugins the resources kube-apiserver excludes from admission
// (the virtual reviews).
type policyExclusions struct{}

func (policyExclusions) Initialize(plugin admission.Interface) {
	if wants, ok := plugin.(genericinitializer.WantsExcludedAdmissionResources); ok {
		wants.SetExcludedAdmissionResources(engine.ExcludedVirtualResources())
	}
}

// splitObjects sorts the cluster state: admission policies and bindings, objects of built-in
// kinds (typed), and custom resources (which only the dynamic client serves, as parameters).
func splitObjects(objects []runtime.Object, custom *customResources) (policies, builtin, customObjects []runtime.Object, err error) {
	scheme := resources.Types()
	for _, obj := range objects {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if u, ok := obj.(*unstructured.Unstructured); ok && !scheme.Recognizes(gvk) {
			if !custom.knows(gvk) {
				return nil, nil, nil, fmt.Errorf("the cluster state has %s %q, of a kind that is neither built in nor defined by a given CRD", gvk.Kind, u.GetName())
			}
			customObjects = append(customObjects, u)
			continue
		}
		typed, err := asTyped(obj)
		if err != nil {
			return nil, nil, nil, err
		}
		// As stored: the apiserver defaults what it stores (a policy's empty selectors match
		// everything).
		kube, _ := kubeScheme()
		kube.Default(typed)
		switch typed.(type) {
		case *admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding,
			*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding:
			if err := validatePolicy(typed); err != nil {
				return nil, nil, nil, err
			}
			policies = append(policies, typed)
		default:
			builtin = append(builtin, typed)
		}
	}
	return policies, builtin, customObjects, nil
}

// newRESTMapper maps kinds to resources for the policy plugins (a policy's paramKind): the
// built-in resources of 1.36 and those of the CRDs.
func newRESTMapper(mapper *resources.Mapper) (meta.RESTMapper, error) {
	var versions []schema.GroupVersion
	seen := map[schema.GroupVersion]bool{}
	for _, r := range mapper.Resources() {
		if gv := r.GVR.GroupVersion(); !seen[gv] {
			seen[gv] = true
			versions = append(versions, gv)
		}
	}
	out := meta.NewDefaultRESTMapper(versions)
	for _, r := range mapper.Resources() {
		scope := meta.RESTScopeRoot
		if r.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		out.AddSpecific(r.Kind, r.GVR, r.GVR, scope)
	}
	return out, nil
}

// newDynamicClient serves objects, custom resources among them, to the policy plugins' parameter
// informers.
func newDynamicClient(objects []runtime.Object, mapper meta.RESTMapper) (dynamic.Interface, error) {
	scheme := runtime.NewScheme()
	listKinds := map[schema.GroupVersionResource]string{}
	var unstructuredObjects []runtime.Object
	for _, obj := range objects {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: m}
		gvk := obj.GetObjectKind().GroupVersionKind()
		if gvk.Empty() {
			kinds, _, err := resources.Types().ObjectKinds(obj)
			if err != nil {
				return nil, err
			}
			gvk = kinds[0]
		}
		u.SetGroupVersionKind(gvk)
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", gvk.Kind, u.GetName(), err)
		}
		listKinds[mapping.Resource] = gvk.Kind + "List"
		unstructuredObjects = append(unstructuredObjects, u)
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, listKinds, unstructuredObjects...), nil
}
