package lint

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

// controlPlaneWrite is a write the control plane makes to keep the cluster running: the
// controllers of kube-controller-manager, the scheduler and the kubelets. Each says who makes
// it (the user the apiserver sees, which matchConditions may test) and what stops working while
// a webhook refuses it, so that findings can say what breaks rather than which request.
type controlPlaneWrite struct {
	request
	user authenticationv1.UserInfo
	// carriesPodLabels is true for objects labelled like the pods (pods, their subresources,
	// the ReplicaSets of a Deployment); carriesServiceLabel for EndpointSlices, labelled with
	// their Service's name; carriesNodeLabels for Nodes.
	carriesPodLabels, carriesServiceLabel, carriesNodeLabels bool
	// restart marks the writes that bring pods back in a namespace and route traffic to them:
	// what a webhook's own server needs to come back (B02), and what B10, B11 and F03 weigh.
	restart bool
	// stops says what stops while the write is refused, as a clause: "the scheduler cannot
	// bind pods to nodes".
	stops string
}

// Who writes. Controllers run as their own ServiceAccounts in kube-system, as
// kube-controller-manager does with --use-service-account-credentials (kubeadm's default).
func controllerUser(name string) authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:" + name, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}}
}

func kubeletUser() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: "system:node:node-1", Groups: []string{"system:nodes", "system:authenticated"}}
}

func schedulerUser() authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: "system:kube-scheduler", Groups: []string{"system:authenticated"}}
}

// writeSpec is one line of the model, before it is resolved against the served resources.
type writeSpec struct {
	group, resource, subresource       string
	ops                                []admissionregistrationv1.OperationType
	podLabels, serviceLabel, nodeLabel bool
	restart                            bool
	user                               authenticationv1.UserInfo
	stops                              string
}

// controlPlaneWriteSpecs is the model: who writes what, and what stops when it is refused. The
// restart writes come first, in the order their requests are listed in messages.
func controlPlaneWriteSpecs() []writeSpec {
	kubelet := kubeletUser()
	controlPlane := authenticationv1.UserInfo{Username: "system:kube-controller-manager", Groups: []string{"system:authenticated"}}
	scheduler := schedulerUser()
	create, update, del := admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete
	return []writeSpec{
		// Bringing pods back and routing traffic to them.
		{resource: "pods", ops: ops(create), podLabels: true, restart: true, user: controllerUser("replicaset-controller"),
			stops: "controllers cannot recreate pods"},
		{resource: "pods", subresource: "binding", ops: ops(create), podLabels: true, restart: true, user: scheduler,
			stops: "the scheduler cannot bind pods to nodes"},
		{resource: "pods", subresource: "status", ops: ops(update), podLabels: true, restart: true, user: kubelet,
			stops: "kubelets cannot report pods ready, so Services never route to them"},
		{resource: "serviceaccounts", subresource: "token", ops: ops(create), restart: true, user: kubelet,
			stops: "kubelets cannot get ServiceAccount tokens for new pods, which then cannot start"},
		{group: "apps", resource: "replicasets", ops: ops(create, update), podLabels: true, restart: true, user: controllerUser("deployment-controller"),
			stops: "Deployments cannot roll out or scale"},
		{group: "discovery.k8s.io", resource: "endpointslices", ops: ops(create, update), serviceLabel: true, restart: true, user: controllerUser("endpointslice-controller"),
			stops: "Services cannot publish their endpoints"},
		{resource: "endpoints", ops: ops(create, update), restart: true, user: controllerUser("endpoint-controller"),
			stops: "Services cannot publish their endpoints"},
		{group: "coordination.k8s.io", resource: "leases", ops: ops(create, update), restart: true, user: controlPlane,
			stops: "components cannot renew their leader leases"},
		{resource: "configmaps", ops: ops(create, update), restart: true, user: controlPlane,
			stops: "components cannot write their ConfigMaps"},

		// Taking pods away: without these, pods that are gone are never replaced.
		{resource: "pods", ops: ops(del), podLabels: true, user: controllerUser("taint-eviction-controller"),
			stops: "pods on unreachable nodes are never deleted, so never replaced"},
		{resource: "pods", ops: ops(del), podLabels: true, user: kubelet,
			stops: "pods stay Terminating after their containers stop, so StatefulSets cannot replace them"},
		{resource: "pods", ops: ops(del), podLabels: true, user: controllerUser("replicaset-controller"),
			stops: "ReplicaSets cannot scale down, so rollouts never finish"},
		{resource: "pods", subresource: "eviction", ops: ops(create), podLabels: true, user: administrator(),
			stops: "nodes cannot be drained"},
		{resource: "pods", subresource: "status", ops: ops(update), podLabels: true, user: controllerUser("node-controller"),
			stops: "pods on unreachable nodes are not marked not ready, so Services keep routing to them"},
		{resource: "pods", ops: ops(update, del), podLabels: true, user: controllerUser("generic-garbage-collector"),
			stops: "the garbage collector cannot delete the pods of deleted owners or remove their finalizers"},

		// Nodes, cluster-scoped: no namespaceSelector exempts them.
		{resource: "nodes", ops: ops(update), nodeLabel: true, user: controllerUser("node-controller"),
			stops: "the node lifecycle controller cannot taint unreachable nodes, so their pods (the webhook's own, if it ran there) are never evicted and replaced, nor lift the not-ready taint from new nodes"},
		{resource: "nodes", subresource: "status", ops: ops(update), nodeLabel: true, user: controllerUser("node-controller"),
			stops: "unreachable nodes are never marked NotReady"},
		{resource: "nodes", ops: ops(create), nodeLabel: true, user: kubelet,
			stops: "new nodes cannot register"},
		{resource: "nodes", subresource: "status", ops: ops(update), nodeLabel: true, user: kubelet,
			stops: "kubelets cannot report node status, so new nodes never become Ready"},
		{group: "certificates.k8s.io", resource: "certificatesigningrequests", ops: ops(create), user: kubelet,
			stops: "kubelets cannot renew their client certificates, and drop out of the cluster when they expire"},
	}
}

// controlPlaneWrites lists the model's writes that the mapper's resources serve.
func controlPlaneWrites(mapper *resources.Mapper) []controlPlaneWrite {
	var out []controlPlaneWrite
	for _, s := range controlPlaneWriteSpecs() {
		res, ok := preferredResource(mapper, schema.GroupResource{Group: s.group, Resource: s.resource})
		if !ok {
			continue
		}
		for _, op := range s.ops {
			out = append(out, controlPlaneWrite{
				request:          request{gvr: res.GVR, subresource: s.subresource, operation: op, namespaced: res.Namespaced},
				user:             s.user,
				carriesPodLabels: s.podLabels, carriesServiceLabel: s.serviceLabel, carriesNodeLabels: s.nodeLabel,
				restart: s.restart, stops: s.stops,
			})
		}
	}
	return out
}

func ops(o ...admissionregistrationv1.OperationType) []admissionregistrationv1.OperationType {
	return o
}

// nodeLabels are the labels every kubelet puts on its Node.
func nodeLabels() labels.Set {
	return labels.Set{"kubernetes.io/hostname": "node-1", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
}

// writeSet picks writes of the model.
type writeSet func(controlPlaneWrite) bool

var (
	// restartWrites bring pods back in a namespace and route traffic to them.
	restartWrites writeSet = func(w controlPlaneWrite) bool { return w.restart }
	// namespacedWrites are every write the control plane makes in a namespace.
	namespacedWrites writeSet = func(w controlPlaneWrite) bool { return w.namespaced }
	// clusterWrites are those to cluster-scoped objects, which no namespaceSelector exempts.
	clusterWrites writeSet = func(w controlPlaneWrite) bool { return !w.namespaced }
)

// interceptedWrites returns the writes of set that the webhook intercepts in namespace (empty
// for cluster-scoped ones), for pods labelled podLabels behind the Service serviceName (empty
// when unknown).
func (a *analysis) interceptedWrites(w *webhook, set writeSet, namespace string, podLabels labels.Set, serviceName string) []controlPlaneWrite {
	nsLabels, _ := a.inv.namespaceLabels(namespace)
	var out []controlPlaneWrite
	for _, cw := range a.controlPlaneWrites {
		if !set(cw) {
			continue
		}
		objectLabels := labels.Set{}
		switch {
		case cw.carriesPodLabels:
			objectLabels = podLabels
		case cw.carriesServiceLabel && serviceName != "":
			objectLabels = labels.Set{"kubernetes.io/service-name": serviceName, "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}
		case cw.carriesNodeLabels:
			objectLabels = nodeLabels()
		}
		wr := write{request: cw.request, objectLabels: objectLabels, user: cw.user}
		if cw.namespaced {
			wr.namespace, wr.nsLabels = namespace, nsLabels
		}
		if a.intercepts(w, wr) {
			out = append(out, cw)
		}
	}
	return out
}

// interceptedRestartWrites returns the requests of the restart writes in namespace that the
// webhook intercepts.
func (a *analysis) interceptedRestartWrites(w *webhook, namespace string, podLabels labels.Set, serviceName string) []request {
	return requestsOf(a.interceptedWrites(w, restartWrites, namespace, podLabels, serviceName))
}

// requestsOf lists the writes' requests, each once, in order: several writers make some of them.
func requestsOf(writes []controlPlaneWrite) []request {
	var out []request
	for _, w := range writes {
		if !slices.Contains(out, w.request) {
			out = append(out, w.request)
		}
	}
	return out
}

// maxConsequences is how many consequences a message lists before it counts the rest.
const maxConsequences = 4

// describeConsequences says what stops while the writes are refused: "controllers cannot
// recreate pods; the scheduler cannot bind pods to nodes; and 2 more".
func describeConsequences(writes []controlPlaneWrite) string {
	var stops []string
	for _, w := range writes {
		if !slices.Contains(stops, w.stops) {
			stops = append(stops, w.stops)
		}
	}
	if len(stops) > maxConsequences {
		stops = append(stops[:maxConsequences], fmt.Sprintf("%d more", len(stops)-maxConsequences))
	}
	if len(stops) == 1 {
		return stops[0]
	}
	return strings.Join(stops[:len(stops)-1], "; ") + "; and " + stops[len(stops)-1]
}

// hotKey identifies a request in any version: the same write whichever version a client uses.
type hotKey struct {
	group, resource, subresource string
	operation                    admissionregistrationv1.OperationType
}

func hotKeyOf(r request) hotKey {
	return hotKey{r.gvr.Group, r.gvr.Resource, r.subresource, r.operation}
}

// hotWrites are the writes the control plane makes continuously, the paths where a webhook's
// timeout delays controllers, the scheduler and kubelets rather than people and deploy tools
// (D01): the model's, every write of Events, and the legacy bindings. ConfigMaps are in the
// model for the components that keep locks and CA bundles in them, but people and deploy tools
// make most of their writes, so they are left out. Each write carries its writer (which
// matchConditions may test) and no labels but a Node's, so that an objectSelector requiring
// one keeps it away. Most are made in every namespace, where some namespace passes any
// namespaceSelector: they are left without one. The control plane's Leases are in
// kube-node-lease (node heartbeats) and kube-system (leader election), and are placed there.
func (a *analysis) hotWrites() []write {
	if a.hot != nil {
		return a.hot
	}
	var out []write
	for _, cw := range a.controlPlaneWrites {
		if cw.gvr.Group == "" && cw.gvr.Resource == "configmaps" {
			continue
		}
		wr := write{request: cw.request, objectLabels: labels.Set{}, user: cw.user}
		if cw.carriesNodeLabels {
			wr.objectLabels = nodeLabels()
		}
		if cw.gvr.GroupResource() != (schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}) {
			out = append(out, wr)
			continue
		}
		for _, place := range []struct {
			namespace string
			user      authenticationv1.UserInfo
		}{{kubeSystem, cw.user}, {kubeNodeLease, kubeletUser()}} {
			placed := wr
			placed.namespace, placed.user = place.namespace, place.user
			placed.nsLabels, _ = a.inv.namespaceLabels(place.namespace)
			out = append(out, placed)
		}
	}
	create, update := admissionregistrationv1.Create, admissionregistrationv1.Update
	for _, gr := range []schema.GroupResource{{Resource: "events"}, {Group: "events.k8s.io", Resource: "events"}, {Resource: "bindings"}} {
		res, ok := preferredResource(a.mapper, gr)
		if !ok {
			continue
		}
		writers := []authenticationv1.UserInfo{kubeletUser(), controllerUser("replicaset-controller"), schedulerUser()}
		operations := ops(create, update)
		if gr.Resource == "bindings" {
			writers, operations = []authenticationv1.UserInfo{schedulerUser()}, ops(create)
		}
		for _, op := range operations {
			for _, user := range writers {
				out = append(out, write{request: request{gvr: res.GVR, operation: op, namespaced: res.Namespaced}, objectLabels: labels.Set{}, user: user})
			}
		}
	}
	a.hot = out
	return out
}
