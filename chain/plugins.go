package chain

import (
	"errors"
	"fmt"
	"sort"

	"k8s.io/apiserver/pkg/admission"
	genericinitializer "k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle"
	"k8s.io/apiserver/pkg/admission/plugin/resourcequota"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/compatibility"
	controlplaneadmission "k8s.io/kubernetes/pkg/controlplane/apiserver/admission"
	"k8s.io/kubernetes/pkg/kubeapiserver/admission/exclusion"
	quotainstall "k8s.io/kubernetes/pkg/quota/v1/install"
	"k8s.io/kubernetes/plugin/pkg/admission/admit"
	"k8s.io/kubernetes/plugin/pkg/admission/alwayspullimages"
	"k8s.io/kubernetes/plugin/pkg/admission/antiaffinity"
	certapproval "k8s.io/kubernetes/plugin/pkg/admission/certificates/approval"
	"k8s.io/kubernetes/plugin/pkg/admission/certificates/ctbattest"
	certsigning "k8s.io/kubernetes/plugin/pkg/admission/certificates/signing"
	certsubjectrestriction "k8s.io/kubernetes/plugin/pkg/admission/certificates/subjectrestriction"
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds"
	"k8s.io/kubernetes/plugin/pkg/admission/eventratelimit"
	"k8s.io/kubernetes/plugin/pkg/admission/extendedresourcetoleration"
	"k8s.io/kubernetes/plugin/pkg/admission/gc"
	"k8s.io/kubernetes/plugin/pkg/admission/imagepolicy"
	jobadmission "k8s.io/kubernetes/plugin/pkg/admission/job"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"
	"k8s.io/kubernetes/plugin/pkg/admission/namespace/autoprovision"
	"k8s.io/kubernetes/plugin/pkg/admission/namespace/exists"
	"k8s.io/kubernetes/plugin/pkg/admission/network/defaultingressclass"
	"k8s.io/kubernetes/plugin/pkg/admission/network/denyserviceexternalips"
	"k8s.io/kubernetes/plugin/pkg/admission/nodedeclaredfeatures"
	"k8s.io/kubernetes/plugin/pkg/admission/noderestriction"
	"k8s.io/kubernetes/plugin/pkg/admission/nodetaint"
	"k8s.io/kubernetes/plugin/pkg/admission/podgroup"
	"k8s.io/kubernetes/plugin/pkg/admission/podnodeselector"
	"k8s.io/kubernetes/plugin/pkg/admission/podresize"
	"k8s.io/kubernetes/plugin/pkg/admission/podtolerationrestriction"
	"k8s.io/kubernetes/plugin/pkg/admission/podtopologylabels"
	podpriority "k8s.io/kubernetes/plugin/pkg/admission/priority"
	"k8s.io/kubernetes/plugin/pkg/admission/runtimeclass"
	"k8s.io/kubernetes/plugin/pkg/admission/scheduling/podgroupprotection"
	"k8s.io/kubernetes/plugin/pkg/admission/security/podsecurity"
	"k8s.io/kubernetes/plugin/pkg/admission/serviceaccount"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/persistentvolume/resize"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/storageclass/setdefault"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/storageobjectinuseprotection"

	"github.com/admitkit/admit/engine"
)

// orderedPlugins are kube-apiserver 1.36's admission plugins in its order, without the webhook
// and admission policy plugins: the dispatcher calls the webhooks itself, and the chain runs the
// policies last among the plugins before the webhooks, where kube-apiserver orders them.
// ResourceQuota runs after the validating webhooks. Those that check a feature gate do nothing
// while it is off, as in the apiserver. AlwaysDeny, which kube-apiserver runs after the webhooks
// in the mutating phase too, has no place here (it denies everything).
func orderedPlugins() []string {
	return []string{
		admit.PluginName,                        // AlwaysAdmit
		autoprovision.PluginName,                // NamespaceAutoProvision
		lifecycle.PluginName,                    // NamespaceLifecycle
		exists.PluginName,                       // NamespaceExists
		antiaffinity.PluginName,                 // LimitPodHardAntiAffinityTopology
		limitranger.PluginName,                  // LimitRanger
		serviceaccount.PluginName,               // ServiceAccount
		noderestriction.PluginName,              // NodeRestriction
		nodetaint.PluginName,                    // TaintNodesByCondition
		alwayspullimages.PluginName,             // AlwaysPullImages
		imagepolicy.PluginName,                  // ImagePolicyWebhook
		podsecurity.PluginName,                  // PodSecurity
		podnodeselector.PluginName,              // PodNodeSelector
		podpriority.PluginName,                  // Priority
		defaulttolerationseconds.PluginName,     // DefaultTolerationSeconds
		podtolerationrestriction.PluginName,     // PodTolerationRestriction
		eventratelimit.PluginName,               // EventRateLimit
		extendedresourcetoleration.PluginName,   // ExtendedResourceToleration
		setdefault.PluginName,                   // DefaultStorageClass
		storageobjectinuseprotection.PluginName, // StorageObjectInUseProtection
		podgroupprotection.PluginName,           // PodGroupProtection
		gc.PluginName,                           // OwnerReferencesPermissionEnforcement
		resize.PluginName,                       // PersistentVolumeClaimResize
		runtimeclass.PluginName,                 // RuntimeClass
		certapproval.PluginName,                 // CertificateApproval
		certsigning.PluginName,                  // CertificateSigning
		ctbattest.PluginName,                    // ClusterTrustBundleAttest
		certsubjectrestriction.PluginName,       // CertificateSubjectRestriction
		defaultingressclass.PluginName,          // DefaultIngressClass
		denyserviceexternalips.PluginName,       // DenyServiceExternalIPs
		podtopologylabels.PluginName,            // PodTopologyLabels
		podgroup.PluginName,                     // PodGroupWorkloadExists
		nodedeclaredfeatures.PluginName,         // NodeDeclaredFeatureValidator
		jobadmission.PluginName,                 // JobValidation
		podresize.PluginName,                    // PodResizeValidator
		resourcequota.PluginName,                // ResourceQuota
	}
}

// defaultOffPlugins are the plugins kube-apiserver 1.36 runs only when --enable-admission-plugins
// names them.
func defaultOffPlugins() map[string]bool {
	return map[string]bool{
		admit.PluginName: true, autoprovision.PluginName: true, exists.PluginName: true, antiaffinity.PluginName: true,
		noderestriction.PluginName: true, alwayspullimages.PluginName: true, imagepolicy.PluginName: true,
		podnodeselector.PluginName: true, podtolerationrestriction.PluginName: true, eventratelimit.PluginName: true,
		extendedresourcetoleration.PluginName: true, gc.PluginName: true, denyserviceexternalips.PluginName: true,
		denyPluginName: true,
	}
}

// The plugins the chain places itself (policies) or leaves to the dispatcher (webhooks), and
// AlwaysDeny, by their kube-apiserver names.
const (
	mutatingPolicyPluginName   = "MutatingAdmissionPolicy"
	validatingPolicyPluginName = "ValidatingAdmissionPolicy"
	mutatingWebhookPluginName  = "MutatingAdmissionWebhook"
	validatingWebhookPlugin    = "ValidatingAdmissionWebhook"
	denyPluginName             = "AlwaysDeny"
)

// registerPlugins registers the factories of orderedPlugins.
func registerPlugins(plugins *admission.Plugins) {
	admit.Register(plugins)
	autoprovision.Register(plugins)
	lifecycle.Register(plugins)
	exists.Register(plugins)
	antiaffinity.Register(plugins)
	limitranger.Register(plugins)
	serviceaccount.Register(plugins)
	noderestriction.Register(plugins)
	nodetaint.Register(plugins)
	alwayspullimages.Register(plugins)
	imagepolicy.Register(plugins)
	podsecurity.Register(plugins)
	podnodeselector.Register(plugins)
	podpriority.Register(plugins)
	defaulttolerationseconds.Register(plugins)
	podtolerationrestriction.Register(plugins)
	eventratelimit.Register(plugins)
	extendedresourcetoleration.Register(plugins)
	setdefault.Register(plugins)
	storageobjectinuseprotection.Register(plugins)
	podgroupprotection.Register(plugins)
	gc.Register(plugins)
	resize.Register(plugins)
	runtimeclass.Register(plugins)
	certapproval.Register(plugins)
	certsigning.Register(plugins)
	ctbattest.Register(plugins)
	certsubjectrestriction.Register(plugins)
	defaultingressclass.Register(plugins)
	denyserviceexternalips.Register(plugins)
	podtopologylabels.Register(plugins)
	podgroup.Register(plugins)
	nodedeclaredfeatures.Register(plugins)
	jobadmission.Register(plugins)
	podresize.Register(plugins)
	resourcequota.Register(plugins)
}

// pluginSelection is kube-apiserver's --enable-admission-plugins and --disable-admission-plugins
// applied to its defaults.
type pluginSelection struct {
	// enabled are the plugins to run, in order (the policies' and webhooks' excluded).
	enabled []string
	// policies says whether the admission policy plugins run.
	validatingPolicies, mutatingPolicies bool
}

// selectPlugins checks enable and disable as kube-apiserver checks its flags, with its messages,
// and returns what runs.
func selectPlugins(enable, disable []string) (pluginSelection, error) {
	known := map[string]bool{mutatingPolicyPluginName: true, validatingPolicyPluginName: true,
		mutatingWebhookPluginName: true, validatingWebhookPlugin: true, denyPluginName: true}
	for _, name := range orderedPlugins() {
		known[name] = true
	}
	var errs []error
	for _, name := range enable {
		if !known[name] {
			errs = append(errs, fmt.Errorf("enable-admission-plugins plugin %q is unknown", name))
		}
	}
	for _, name := range disable {
		if !known[name] {
			errs = append(errs, fmt.Errorf("disable-admission-plugins plugin %q is unknown", name))
		}
	}
	enabled, disabled := toSet(enable), toSet(disable)
	var overlap []string
	for name := range enabled {
		if disabled[name] {
			overlap = append(overlap, name)
		}
	}
	if len(overlap) > 0 {
		sort.Strings(overlap)
		errs = append(errs, fmt.Errorf("%v in enable-admission-plugins and disable-admission-plugins overlapped", overlap))
	}
	for _, name := range []string{mutatingWebhookPluginName, validatingWebhookPlugin} {
		if disabled[name] {
			errs = append(errs, fmt.Errorf("disable-admission-plugins %s: admit reviews the webhooks it is given; give none instead", name))
		}
	}
	if enabled[denyPluginName] {
		errs = append(errs, fmt.Errorf("enable-admission-plugins %s: it denies every request; admit does not run it", denyPluginName))
	}
	if err := errors.Join(errs...); err != nil {
		return pluginSelection{}, err
	}
	off := defaultOffPlugins()
	runs := func(name string) bool { return !disabled[name] && (enabled[name] || !off[name]) }
	selection := pluginSelection{validatingPolicies: runs(validatingPolicyPluginName), mutatingPolicies: runs(mutatingPolicyPluginName)}
	for _, name := range orderedPlugins() {
		if runs(name) {
			selection.enabled = append(selection.enabled, name)
		}
	}
	return selection, nil
}

func toSet(names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// initPlugins builds the built-in plugins with the apiserver's initializers, fed by the cluster
// state, and returns them in order: those before the webhooks, and ResourceQuota after them.
func initPlugins(c *cluster, codec *codec, selection pluginSelection, configs admission.ConfigProvider, authz authorizer.Authorizer) (before []engine.Step, after []engine.ValidatingStep, err error) {
	registry := admission.NewPlugins()
	registerPlugins(registry)
	quota, err := quotainstall.NewQuotaConfigurationForAdmission(c.informers, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("quota configuration: %w", err)
	}
	initializers := admission.PluginInitializers{
		genericinitializer.New(c.clientset(), nil, c.informers, authz, utilfeature.DefaultFeatureGate,
			compatibility.NewEffectiveVersionFromString(kubeVersion, "", ""), c.stop, nil),
		controlplaneadmission.NewPluginInitializer(quota, exclusion.Excluded()),
	}
	for _, name := range selection.enabled {
		config, err := configs.ConfigFor(name)
		if err != nil {
			return nil, nil, fmt.Errorf("admission plugin %s: %w", name, err)
		}
		plugin, err := registry.InitPlugin(name, config, initializers)
		if err != nil {
			return nil, nil, fmt.Errorf("admission plugin %s: %w", name, err)
		}
		if plugin == nil {
			continue
		}
		b := &builtin{name: name, plugin: plugin, codec: codec, interfaces: admission.NewObjectInterfacesFromScheme(codec.scheme)}
		_, mutates := plugin.(admission.MutationInterface)
		_, validates := plugin.(admission.ValidationInterface)
		switch {
		case name == resourcequota.PluginName:
			after = append(after, validatingBuiltin{b})
		case mutates && validates:
			before = append(before, mutatingAndValidatingBuiltin{b})
		case mutates:
			before = append(before, mutatingBuiltin{b})
		case validates:
			before = append(before, validatingBuiltin{b})
		}
	}
	return before, after, nil
}
