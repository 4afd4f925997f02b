package lint

import (
	"cmp"
	"crypto/x509"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
)

// inventory indexes the objects around the webhook configurations: the namespaces, Services,
// workloads, PodDisruptionBudgets, TLS Secrets, cert-manager Certificates and CRDs of the input.
// Objects of other kinds are ignored.
type inventory struct {
	// namespaces maps the names of the input's Namespaces to their labels, with the
	// kubernetes.io/metadata.name label every namespace carries.
	namespaces map[string]labels.Set
	services   map[namespacedName]*corev1.Service
	workloads  []*workload
	// jobs are the Jobs and CronJobs: not servers, but what they run as can fill a caBundle.
	jobs []*workload
	// otherPods are the objects that run pods but are not read as servers: Pods, and objects of
	// other kinds with a pod template (an Argo Rollout, an OpenKruise CloneSet, a ReplicaSet).
	// Their controllers may label the pods beyond the template, so they only tell that a
	// namespace holds pods lint cannot fully see.
	otherPods []*workload
	pdbs      []*policyv1.PodDisruptionBudget
	// secrets holds the certificates of Secrets with a tls.crt.
	secrets      map[namespacedName][]*x509.Certificate
	certificates map[namespacedName]*certificateSpec
	caIssuers    []caIssuer
	crds         []*apiextensionsv1.CustomResourceDefinition
	// clusterRoles and clusterRoleBindings say who may change webhook configurations (who
	// fills their caBundle); hpas raise the replicas a workload runs.
	clusterRoles        map[string]*rbacv1.ClusterRole
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
	hpas                []autoscaler
	// objects are every object of the input by kind (policies' parameters are any kind).
	objects map[schema.GroupKind][]objectRef
	// focus, when set, says which records are kept (a reading in two passes); nil keeps all.
	focus *focus
}

// namespacedName names an object. The namespace is empty for an object the input gives none:
// it takes the namespace it is applied to (kubectl apply -n, a kustomization's namespace), so
// lookups in any namespace find it.
type namespacedName struct{ namespace, name string }

func (n namespacedName) String() string {
	if n.namespace == "" {
		return n.name
	}
	return n.namespace + "/" + n.name
}

// inNamespace says whether an object whose namespace is objectNamespace can be in namespace.
func inNamespace(objectNamespace, namespace string) bool {
	return objectNamespace == namespace || objectNamespace == ""
}

// lookup finds name in namespace, or an object of that name given without a namespace.
func lookup[V any](m map[namespacedName]V, namespace, name string) (V, bool) {
	if v, ok := m[namespacedName{namespace, name}]; ok {
		return v, true
	}
	v, ok := m[namespacedName{"", name}]
	return v, ok
}

// objectRef is any object of the input, by kind: what a policy's parameters are looked up in.
type objectRef struct {
	namespace, name string
	labels          labels.Set
}

// workload is what lint needs of a Deployment, StatefulSet or DaemonSet: its pods' labels and
// the Secrets they mount, and how many replicas it runs.
type workload struct {
	kind, namespace, name string
	// serviceAccount is the name of the ServiceAccount its pods run as ("default" when unset).
	serviceAccount string
	// replicas is nil for a DaemonSet (one per node) and 1 when a Deployment leaves it unset.
	replicas       *int32
	templateLabels labels.Set
	// selectorLabels are the matchLabels of its selector: the labels that identify its pods
	// from one version to the next, unlike version labels of the template.
	selectorLabels labels.Set
	secretVolumes  []string
}

func (w *workload) String() string {
	return w.kind + " " + namespacedName{w.namespace, w.name}.String()
}

// emptyInventory is an inventory of no object.
func emptyInventory() *inventory {
	return &inventory{
		namespaces:   map[string]labels.Set{},
		services:     map[namespacedName]*corev1.Service{},
		secrets:      map[namespacedName][]*x509.Certificate{},
		certificates: map[namespacedName]*certificateSpec{},
		clusterRoles: map[string]*rbacv1.ClusterRole{},
	}
}

// newInventory reads the objects lint understands from set.Others. An object of a known kind
// that does not decode is an error naming its source: lint would otherwise reason about a
// Deployment it misread.
func newInventory(set *config.Set) (*inventory, error) {
	inv := emptyInventory()
	for _, obj := range set.Others {
		if err := inv.add(obj.Object); err != nil {
			return nil, fmt.Errorf("%s: %s %q: %w", obj.Source, obj.Object.GetKind(), obj.Object.GetName(), err)
		}
	}
	return inv, nil
}

// add indexes u by its kind, and keeps what lint reads of the kinds it knows.
func (inv *inventory) add(u *unstructured.Unstructured) error {
	inv.addRef(u)
	return inv.read(u)
}

// addRef indexes u by its kind, for policies' parameters.
func (inv *inventory) addRef(u *unstructured.Unstructured) {
	kind := u.GroupVersionKind().GroupKind()
	if !inv.focus.keepsRef(kind) {
		return
	}
	if inv.objects == nil {
		inv.objects = map[schema.GroupKind][]objectRef{}
	}
	inv.objects[kind] = append(inv.objects[kind], objectRef{namespace: u.GetNamespace(), name: u.GetName(), labels: u.GetLabels()})
}

// read keeps what lint reads of u when its kind is one lint knows. An object of such a kind is
// decoded whether or not its record is kept (focus): one that does not decode is an error
// either way.
func (inv *inventory) read(u *unstructured.Unstructured) error {
	gvk := u.GroupVersionKind()
	if gvk.Group == certificateGroup && gvk.Kind == certificateKind {
		return inv.addCertificate(u)
	}
	if gvk.Group == certificateGroup && (gvk.Kind == issuerKind || gvk.Kind == clusterIssuerKind) {
		return inv.addIssuer(gvk.Kind, u)
	}
	if runner := otherPodRunner(gvk, u); runner != nil && inv.focus.inNamespaces(runner.namespace) {
		inv.otherPods = append(inv.otherPods, runner)
	}
	if gvk.Group == autoscalingGroup && gvk.Kind == "HorizontalPodAutoscaler" {
		return inv.addAutoscaler(u)
	}
	switch gvk {
	case corev1.SchemeGroupVersion.WithKind("Namespace"):
		var ns corev1.Namespace
		if err := fromUnstructured(u, &ns); err != nil {
			return err
		}
		set := labels.Set{corev1.LabelMetadataName: ns.Name}
		for k, v := range ns.Labels {
			set[k] = v
		}
		inv.namespaces[ns.Name] = set
	case corev1.SchemeGroupVersion.WithKind("Service"):
		svc := &corev1.Service{}
		if err := fromUnstructured(u, svc); err != nil {
			return err
		}
		if inv.focus.inNamespaces(svc.Namespace) {
			inv.services[namespacedName{svc.Namespace, svc.Name}] = svc
		}
	case corev1.SchemeGroupVersion.WithKind("Secret"):
		return inv.addSecret(u)
	case appsv1.SchemeGroupVersion.WithKind("Deployment"), appsv1.SchemeGroupVersion.WithKind("StatefulSet"),
		appsv1.SchemeGroupVersion.WithKind("DaemonSet"), batchv1.SchemeGroupVersion.WithKind("Job"),
		batchv1.SchemeGroupVersion.WithKind("CronJob"):
		return inv.addWorkload(gvk, u)
	case rbacv1.SchemeGroupVersion.WithKind("ClusterRole"):
		role := &rbacv1.ClusterRole{}
		if err := fromUnstructured(u, role); err != nil {
			return err
		}
		inv.clusterRoles[role.Name] = role
	case rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"):
		binding := &rbacv1.ClusterRoleBinding{}
		if err := fromUnstructured(u, binding); err != nil {
			return err
		}
		inv.clusterRoleBindings = append(inv.clusterRoleBindings, binding)
	case policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"):
		pdb := &policyv1.PodDisruptionBudget{}
		if err := fromUnstructured(u, pdb); err != nil {
			return err
		}
		if inv.focus.inNamespaces(pdb.Namespace) {
			inv.pdbs = append(inv.pdbs, pdb)
		}
	case apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"):
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := fromUnstructured(u, crd); err != nil {
			return err
		}
		inv.crds = append(inv.crds, crd)
	}
	return nil
}

// addWorkload keeps what lint needs of a Deployment, StatefulSet or DaemonSet, which run servers,
// and of a Job or CronJob, which run no server but may fill a caBundle.
func (inv *inventory) addWorkload(gvk schema.GroupVersionKind, u *unstructured.Unstructured) error {
	w, err := readWorkload(gvk, u)
	if err != nil || w == nil || !inv.focus.keepsWorkload(w) {
		return err
	}
	if gvk.Group == batchv1.GroupName {
		inv.jobs = append(inv.jobs, w)
	} else {
		inv.workloads = append(inv.workloads, w)
	}
	return nil
}

// readWorkload decodes the workload or Job u is.
func readWorkload(gvk schema.GroupVersionKind, u *unstructured.Unstructured) (*workload, error) {
	switch gvk {
	case appsv1.SchemeGroupVersion.WithKind("Deployment"):
		var d appsv1.Deployment
		if err := fromUnstructured(u, &d); err != nil {
			return nil, err
		}
		replicas := int32(1) // the apiserver's default
		if d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		return newWorkload("Deployment", d.ObjectMeta, &replicas, d.Spec.Template).withSelector(d.Spec.Selector), nil
	case appsv1.SchemeGroupVersion.WithKind("StatefulSet"):
		var s appsv1.StatefulSet
		if err := fromUnstructured(u, &s); err != nil {
			return nil, err
		}
		replicas := int32(1)
		if s.Spec.Replicas != nil {
			replicas = *s.Spec.Replicas
		}
		return newWorkload("StatefulSet", s.ObjectMeta, &replicas, s.Spec.Template).withSelector(s.Spec.Selector), nil
	case appsv1.SchemeGroupVersion.WithKind("DaemonSet"):
		var d appsv1.DaemonSet
		if err := fromUnstructured(u, &d); err != nil {
			return nil, err
		}
		return newWorkload("DaemonSet", d.ObjectMeta, nil, d.Spec.Template).withSelector(d.Spec.Selector), nil
	case batchv1.SchemeGroupVersion.WithKind("Job"):
		var j batchv1.Job
		if err := fromUnstructured(u, &j); err != nil {
			return nil, err
		}
		return newWorkload("Job", j.ObjectMeta, nil, j.Spec.Template), nil
	case batchv1.SchemeGroupVersion.WithKind("CronJob"):
		var j batchv1.CronJob
		if err := fromUnstructured(u, &j); err != nil {
			return nil, err
		}
		return newWorkload("CronJob", j.ObjectMeta, nil, j.Spec.JobTemplate.Spec.Template), nil
	}
	return nil, nil
}

// otherPodRunner returns u as a runner of pods lint does not read as a server, or nil: a Pod
// (its own labels), or an object of any other kind than the servers' with a pod template at
// spec.template (the template's labels).
func otherPodRunner(gvk schema.GroupVersionKind, u *unstructured.Unstructured) *workload {
	runner := &workload{kind: gvk.Kind, namespace: u.GetNamespace(), name: u.GetName()}
	switch {
	case gvk == corev1.SchemeGroupVersion.WithKind("Pod"):
		runner.templateLabels = labels.Set(u.GetLabels())
		return runner
	case gvk.GroupVersion() == appsv1.SchemeGroupVersion && (gvk.Kind == "Deployment" || gvk.Kind == "StatefulSet" || gvk.Kind == "DaemonSet"):
		return nil
	}
	if containers, found, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers"); !found || len(containers) == 0 {
		return nil
	}
	templateLabels, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "labels")
	runner.templateLabels = labels.Set(templateLabels)
	return runner
}

func newWorkload(kind string, meta metav1.ObjectMeta, replicas *int32, template corev1.PodTemplateSpec) *workload {
	w := &workload{kind: kind, namespace: meta.Namespace, name: meta.Name, replicas: replicas, templateLabels: labels.Set(template.Labels),
		serviceAccount: cmp.Or(template.Spec.ServiceAccountName, template.Spec.DeprecatedServiceAccount, "default")}
	for _, v := range template.Spec.Volumes {
		if v.Secret != nil {
			w.secretVolumes = append(w.secretVolumes, v.Secret.SecretName)
		}
		if v.Projected != nil {
			for _, source := range v.Projected.Sources {
				if source.Secret != nil {
					w.secretVolumes = append(w.secretVolumes, source.Secret.Name)
				}
			}
		}
	}
	return w
}

// withSelector records the workload's selector labels.
func (w *workload) withSelector(selector *metav1.LabelSelector) *workload {
	if selector != nil && len(selector.MatchLabels) > 0 {
		w.selectorLabels = labels.Set(selector.MatchLabels)
	}
	return w
}

func fromUnstructured(u *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return fmt.Errorf("decoding: %w", err)
	}
	return nil
}

// namespaceLabels returns the labels of a namespace: those of the input's Namespace object, or
// only the automatic kubernetes.io/metadata.name label for a namespace the input does not have.
// The second result says whether the Namespace was in the input.
func (inv *inventory) namespaceLabels(name string) (labels.Set, bool) {
	if set, ok := inv.namespaces[name]; ok {
		return set, true
	}
	return labels.Set{corev1.LabelMetadataName: name}, false
}

// selectedWorkloads returns the workloads in namespace whose pods svc selects.
func (inv *inventory) selectedWorkloads(svc *corev1.Service, namespace string) []*workload {
	if len(svc.Spec.Selector) == 0 {
		return nil
	}
	selector := labels.SelectorFromSet(svc.Spec.Selector)
	var out []*workload
	for _, w := range inv.workloads {
		if inNamespace(w.namespace, namespace) && selector.Matches(w.templateLabels) {
			out = append(out, w)
		}
	}
	return out
}

// servicesIn says whether the input has any Service in the namespace.
func (inv *inventory) servicesIn(namespace string) bool {
	for key := range inv.services {
		if inNamespace(key.namespace, namespace) {
			return true
		}
	}
	return false
}

// workloadsIn says whether the input has any workload in the namespace.
func (inv *inventory) workloadsIn(namespace string) bool {
	for _, w := range inv.workloads {
		if inNamespace(w.namespace, namespace) {
			return true
		}
	}
	return false
}

// disruptionBudgetFor returns a PodDisruptionBudget in namespace covering the workload's pods,
// or nil.
func (inv *inventory) disruptionBudgetFor(w *workload, namespace string) *policyv1.PodDisruptionBudget {
	for _, pdb := range inv.pdbs {
		if !inNamespace(pdb.Namespace, namespace) || pdb.Spec.Selector == nil {
			continue
		}
		// In policy/v1 an empty selector selects every pod of the namespace.
		selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue
		}
		if selector.Matches(w.templateLabels) {
			return pdb
		}
	}
	return nil
}

// autoscalingGroup is the group of HorizontalPodAutoscalers, read in any version: the fields
// lint needs are the same in all.
const autoscalingGroup = "autoscaling"

// autoscaler is what lint needs of a HorizontalPodAutoscaler: the workload it scales and its
// floor.
type autoscaler struct {
	namespace, name, targetKind, targetName string
	minReplicas                             int64
}

func (inv *inventory) addAutoscaler(u *unstructured.Unstructured) error {
	hpa := autoscaler{namespace: u.GetNamespace(), name: u.GetName(), minReplicas: 1}
	var err error
	if hpa.targetKind, _, err = unstructured.NestedString(u.Object, "spec", "scaleTargetRef", "kind"); err != nil {
		return fmt.Errorf("spec.scaleTargetRef.kind: %w", err)
	}
	if hpa.targetName, _, err = unstructured.NestedString(u.Object, "spec", "scaleTargetRef", "name"); err != nil {
		return fmt.Errorf("spec.scaleTargetRef.name: %w", err)
	}
	if min, found, err := unstructured.NestedFieldNoCopy(u.Object, "spec", "minReplicas"); err == nil && found {
		switch v := min.(type) {
		case int64:
			hpa.minReplicas = v
		case float64:
			hpa.minReplicas = int64(v)
		}
	}
	if inv.focus.inNamespaces(hpa.namespace) {
		inv.hpas = append(inv.hpas, hpa)
	}
	return nil
}

// minReplicas is the least number of replicas the workload runs: its own, or the floor of an
// autoscaler that scales it. ok is false for a DaemonSet.
func (inv *inventory) minReplicas(w *workload) (replicas int64, by string, ok bool) {
	if w.replicas == nil {
		return 0, "", false
	}
	replicas = int64(*w.replicas)
	for _, hpa := range inv.hpas {
		if hpa.targetKind == w.kind && hpa.targetName == w.name && inNamespace(hpa.namespace, w.namespace) {
			return hpa.minReplicas, "HorizontalPodAutoscaler " + namespacedName{hpa.namespace, hpa.name}.String(), true
		}
	}
	return replicas, "", true
}
