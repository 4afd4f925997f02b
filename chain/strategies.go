package chain

import (
	"maps"

	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/flowschema"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/prioritylevelconfiguration"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/ipaddress"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/networking/servicecidr"
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/csinode"
	"k8s.io/kubernetes/pkg/registry/storage/csistoragecapacity"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattachment"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattributesclass"
)

// resourceKey names what a request writes: a group's resource, or one of its subresources.
type resourceKey struct {
	group, resource, subresource string
}

// strategy is how kube-apiserver's registry prepares and validates a resource's objects.
type strategy struct {
	create rest.RESTCreateStrategy
	update rest.RESTUpdateStrategy
}

// both is a strategy that serves creates and updates.
type createUpdateStrategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

func both(s createUpdateStrategy) strategy { return strategy{create: s, update: s} }

func updates(s rest.RESTUpdateStrategy) strategy { return strategy{update: s} }

// registryStrategies are the registry strategies of the built-in resources kube-apiserver 1.36
// serves, by resource and subresource, as its REST storage wires them. A subresource that is not
// listed (scale, binding, eviction, token, ...) has REST handlers of its own and no preparation
// admit reproduces.
func registryStrategies() map[resourceKey]strategy {
	strategies := coreStrategies()
	maps.Copy(strategies, groupStrategies())
	return strategies
}

// coreStrategies are those of the core group's resources (served under /api).
func coreStrategies() map[resourceKey]strategy {
	return map[resourceKey]strategy{
		{"", "configmaps", ""}:                   both(configmap.Strategy),
		{"", "endpoints", ""}:                    both(endpoint.Strategy),
		{"", "events", ""}:                       both(event.Strategy),
		{"", "limitranges", ""}:                  both(limitrange.Strategy),
		{"", "namespaces", ""}:                   both(namespace.Strategy),
		{"", "namespaces", "status"}:             updates(namespace.StatusStrategy),
		{"", "namespaces", "finalize"}:           updates(namespace.FinalizeStrategy),
		{"", "nodes", ""}:                        both(node.Strategy),
		{"", "nodes", "status"}:                  updates(node.StatusStrategy),
		{"", "persistentvolumes", ""}:            both(persistentvolume.Strategy),
		{"", "persistentvolumes", "status"}:      updates(persistentvolume.StatusStrategy),
		{"", "persistentvolumeclaims", ""}:       both(persistentvolumeclaim.Strategy),
		{"", "persistentvolumeclaims", "status"}: updates(persistentvolumeclaim.StatusStrategy),
		{"", "pods", ""}:                         both(pod.Strategy),
		{"", "pods", "status"}:                   updates(pod.StatusStrategy),
		{"", "pods", "ephemeralcontainers"}:      updates(pod.EphemeralContainersStrategy),
		{"", "pods", "resize"}:                   updates(pod.ResizeStrategy),
		{"", "podtemplates", ""}:                 both(podtemplate.Strategy),
		{"", "replicationcontrollers", ""}:       both(replicationcontroller.Strategy),
		{"", "replicationcontrollers", "status"}: updates(replicationcontroller.StatusStrategy),
		{"", "resourcequotas", ""}:               both(resourcequota.Strategy),
		{"", "resourcequotas", "status"}:         updates(resourcequota.StatusStrategy),
		{"", "secrets", ""}:                      both(secret.Strategy),
		{"", "serviceaccounts", ""}:              both(serviceaccount.Strategy),
		{"", "services", ""}:                     both(service.Strategy),
		{"", "services", "status"}:               updates(service.StatusStrategy),
	}
}

// groupStrategies are those of the named groups' resources (served under /apis).
func groupStrategies() map[resourceKey]strategy {
	return map[resourceKey]strategy{
		{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", ""}:     both(mutatingwebhookconfiguration.Strategy),
		{"admissionregistration.k8s.io", "validatingwebhookconfigurations", ""}:   both(validatingwebhookconfiguration.Strategy),
		{"apps", "controllerrevisions", ""}:                                       both(controllerrevision.Strategy),
		{"apps", "daemonsets", ""}:                                                both(daemonset.Strategy),
		{"apps", "daemonsets", "status"}:                                          updates(daemonset.StatusStrategy),
		{"apps", "deployments", ""}:                                               both(deployment.Strategy),
		{"apps", "deployments", "status"}:                                         updates(deployment.StatusStrategy),
		{"apps", "replicasets", ""}:                                               both(replicaset.Strategy),
		{"apps", "replicasets", "status"}:                                         updates(replicaset.StatusStrategy),
		{"apps", "statefulsets", ""}:                                              both(statefulset.Strategy),
		{"apps", "statefulsets", "status"}:                                        updates(statefulset.StatusStrategy),
		{"autoscaling", "horizontalpodautoscalers", ""}:                           both(horizontalpodautoscaler.Strategy),
		{"autoscaling", "horizontalpodautoscalers", "status"}:                     updates(horizontalpodautoscaler.StatusStrategy),
		{"batch", "cronjobs", ""}:                                                 both(cronjob.Strategy),
		{"batch", "cronjobs", "status"}:                                           updates(cronjob.StatusStrategy),
		{"batch", "jobs", ""}:                                                     both(job.Strategy),
		{"batch", "jobs", "status"}:                                               updates(job.StatusStrategy),
		{"certificates.k8s.io", "certificatesigningrequests", ""}:                 both(certificates.Strategy),
		{"certificates.k8s.io", "certificatesigningrequests", "status"}:           updates(certificates.StatusStrategy),
		{"certificates.k8s.io", "certificatesigningrequests", "approval"}:         updates(certificates.ApprovalStrategy),
		{"coordination.k8s.io", "leases", ""}:                                     both(lease.Strategy),
		{"discovery.k8s.io", "endpointslices", ""}:                                both(endpointslice.Strategy),
		{"events.k8s.io", "events", ""}:                                           both(event.Strategy),
		{"flowcontrol.apiserver.k8s.io", "flowschemas", ""}:                       both(flowschema.Strategy),
		{"flowcontrol.apiserver.k8s.io", "flowschemas", "status"}:                 updates(flowschema.StatusStrategy),
		{"flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", ""}:       both(prioritylevelconfiguration.Strategy),
		{"flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", "status"}: updates(prioritylevelconfiguration.StatusStrategy),
		{"networking.k8s.io", "ingressclasses", ""}:                               both(ingressclass.Strategy),
		{"networking.k8s.io", "ingresses", ""}:                                    both(ingress.Strategy),
		{"networking.k8s.io", "ingresses", "status"}:                              updates(ingress.StatusStrategy),
		{"networking.k8s.io", "ipaddresses", ""}:                                  both(ipaddress.Strategy),
		{"networking.k8s.io", "networkpolicies", ""}:                              both(networkpolicy.Strategy),
		{"networking.k8s.io", "servicecidrs", ""}:                                 both(servicecidr.Strategy),
		{"networking.k8s.io", "servicecidrs", "status"}:                           updates(servicecidr.StatusStrategy),
		{"node.k8s.io", "runtimeclasses", ""}:                                     both(runtimeclass.Strategy),
		{"policy", "poddisruptionbudgets", ""}:                                    both(poddisruptionbudget.Strategy),
		{"policy", "poddisruptionbudgets", "status"}:                              updates(poddisruptionbudget.StatusStrategy),
		{"rbac.authorization.k8s.io", "clusterrolebindings", ""}:                  both(clusterrolebinding.Strategy),
		{"rbac.authorization.k8s.io", "clusterroles", ""}:                         both(clusterrole.Strategy),
		{"rbac.authorization.k8s.io", "rolebindings", ""}:                         both(rolebinding.Strategy),
		{"rbac.authorization.k8s.io", "roles", ""}:                                both(role.Strategy),
		{"resource.k8s.io", "deviceclasses", ""}:                                  both(deviceclass.Strategy),
		{"resource.k8s.io", "resourceslices", ""}:                                 both(resourceslice.Strategy),
		{"scheduling.k8s.io", "priorityclasses", ""}:                              both(priorityclass.Strategy),
		{"storage.k8s.io", "csidrivers", ""}:                                      both(csidriver.Strategy),
		{"storage.k8s.io", "csinodes", ""}:                                        both(csinode.Strategy),
		{"storage.k8s.io", "csistoragecapacities", ""}:                            both(csistoragecapacity.Strategy),
		{"storage.k8s.io", "storageclasses", ""}:                                  both(storageclass.Strategy),
		{"storage.k8s.io", "volumeattachments", ""}:                               both(volumeattachment.Strategy),
		{"storage.k8s.io", "volumeattachments", "status"}:                         updates(volumeattachment.StatusStrategy),
		{"storage.k8s.io", "volumeattributesclasses", ""}:                         both(volumeattributesclass.Strategy),
	}
}
