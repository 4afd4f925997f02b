package auditlog

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Config is the log's shape. The zero value of each field takes its default.
type Config struct {
	// Writes is how many writes the log holds (creates, updates, patches and deletes at stage
	// ResponseComplete), those that create the cluster included.
	Writes int
	// ReadsPerWrite is how many reads follow a write on average (default 2): each write is
	// followed by 0 to twice as many.
	ReadsPerWrite int
	// Namespaces and AppsPerNamespace are the cluster's size (default 20 and 50: 1,000 apps,
	// about 6,500 objects).
	Namespaces, AppsPerNamespace int
	// Seed picks the log among those of its shape (default 1).
	Seed uint64
}

func (c Config) withDefaults() Config {
	if c.ReadsPerWrite == 0 {
		c.ReadsPerWrite = 2
	}
	if c.Namespaces == 0 {
		c.Namespaces = 20
	}
	if c.AppsPerNamespace == 0 {
		c.AppsPerNamespace = 50
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	return c
}

// Stats are what a generated log holds.
type Stats struct {
	// Writes and Reads count the events of writes and of reads; Lines is their sum.
	Writes, Reads, Lines int
	// Bytes is the log's size.
	Bytes int64
	// Objects counts the cluster's objects at the log's end (namespaces and service accounts
	// included); RequestResponse the events logged at that level.
	Objects, RequestResponse int
	// Namespaces and Apps are the cluster's shape.
	Namespaces, Apps int
}

// Generate writes the log cfg describes to w, a line at a time.
func Generate(w io.Writer, cfg Config) (Stats, error) {
	cfg = cfg.withDefaults()
	if cfg.Writes < 1 || cfg.ReadsPerWrite < 0 || cfg.Namespaces < 1 || cfg.AppsPerNamespace < 1 {
		return Stats{}, fmt.Errorf("auditlog: a log of %d writes, %d reads a write, %d namespaces of %d apps: every count must be positive",
			cfg.Writes, cfg.ReadsPerWrite, cfg.Namespaces, cfg.AppsPerNamespace)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	g := newGen(cfg, bw)
	g.run()
	if g.err == nil {
		g.err = bw.Flush()
	}
	g.stats.Namespaces, g.stats.Apps = cfg.Namespaces, len(g.apps)
	g.stats.Objects = 2*cfg.Namespaces + 3*len(g.apps)
	for _, a := range g.apps {
		g.stats.Objects += len(a.pods)
	}
	return g.stats, g.err
}

// gen is one log being generated.
type gen struct {
	cfg   Config
	w     *bufio.Writer
	rand  splitmix
	now   time.Time
	rv    int64
	apps  []*app
	nodes int
	stats Stats
	err   error
	// done is set after the last write's reads: what the step under way would write next is
	// not written, so that a shorter log is the start of a longer one.
	done     bool
	kubelets map[string]*user
	// created counts the apps created so far, those reads read (the first before any is).
	created int
	// line and obj are reused buffers: the event being written, and an object in it.
	line, obj, obj2 []byte
}

// app is a Deployment, its Pods, Service and ConfigMap.
type app struct {
	ns, name string
	index    int
	replicas int
	// version is the image's minor version; generation the Deployment's; revision the
	// ReplicaSet's, whose pod-template-hash is hash.
	version, generation, revision int
	hash                          string
	depUID, rsUID, svcUID, cmUID  string
	// depRV, cmRV and svcRV are the objects' resource versions as stored: an update's request
	// gives the one its writer read, the last write's.
	depRV, cmRV, svcRV   int64
	created, restartedAt string
	logLevel             string
	syncWave             int
	pods                 []*pod
}

// pod is one of an app's Pods.
type pod struct {
	name, uid, node, ip, created string
	rv                           int64
	restarts                     int
	mesh                         int
}

func newGen(cfg Config, w *bufio.Writer) *gen {
	g := &gen{cfg: cfg, w: w, rand: splitmix(cfg.Seed), now: time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC), rv: 1000, nodes: 50, kubelets: map[string]*user{}}
	for n := 0; n < cfg.Namespaces; n++ {
		for i := 0; i < cfg.AppsPerNamespace; i++ {
			index := len(g.apps)
			replicas := 2 + index%2 // most apps run 2 or 3 Pods...
			if index%7 == 3 {
				replicas = 8 // ... and one in seven, 8: more than the proposal's policy allows
			}
			g.apps = append(g.apps, &app{ns: fmt.Sprintf("team-%02d", n), name: fmt.Sprintf("app-%04d", index), index: index, replicas: replicas,
				version: 1 + index%9, generation: 1, revision: 1, logLevel: "info"})
		}
	}
	return g
}

// run writes the cluster's creation, then its work, up to the last write.
func (g *gen) run() {
	g.create()
	for !g.done {
		g.work()
	}
}

// create writes the cluster: its namespaces and their default service accounts, then every
// app's objects.
func (g *gen) create() {
	for n := 0; n < g.cfg.Namespaces; n++ {
		ns := fmt.Sprintf("team-%02d", n)
		uid := g.uid()
		g.obj = fmt.Appendf(g.obj[:0], `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":%q,"labels":{"kubernetes.io/metadata.name":%q,"team":%q}}}`, ns, ns, ns)
		g.obj2 = fmt.Appendf(g.obj2[:0], `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":%q,"uid":%q,"resourceVersion":"%d","creationTimestamp":%q,"labels":{"kubernetes.io/metadata.name":%q,"team":%q},"managedFields":[{"manager":"argocd-controller","operation":"Apply","apiVersion":"v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:team":{}}}}}]},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`,
			ns, uid, g.nextRV(), g.stamp(), ns, ns, g.stamp())
		g.write(levelRequestResponse, "create", "/api/v1/namespaces?fieldManager=argocd-controller", argocd, ref{resource: "namespaces", name: ns}, 201, g.obj, g.obj2, "")
		g.obj = fmt.Appendf(g.obj[:0], `{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"default","namespace":%q}}`, ns)
		g.write(levelRequest, "create", "/api/v1/namespaces/"+ns+"/serviceaccounts", serviceAccountController, ref{resource: "serviceaccounts", namespace: ns, name: "default"}, 201, g.obj, nil, "")
	}
	for _, a := range g.apps {
		g.created++
		a.created, a.restartedAt = g.stamp(), g.stamp()
		a.depUID, a.rsUID, a.svcUID, a.cmUID = g.uid(), g.uid(), g.uid(), g.uid()
		a.hash = g.podTemplateHash()
		a.syncWave = a.index % 3
		g.obj = g.configMap(g.obj[:0], a, false)
		g.write(levelRequest, "create", "/api/v1/namespaces/"+a.ns+"/configmaps?fieldManager=argocd-controller", argocd, ref{resource: "configmaps", namespace: a.ns, name: a.name + "-config"}, 201, g.obj, nil, "")
		a.cmRV = g.nextRV()
		g.obj = g.service(g.obj[:0], a, false)
		g.write(levelRequest, "create", "/api/v1/namespaces/"+a.ns+"/services?fieldManager=argocd-controller", argocd, ref{resource: "services", namespace: a.ns, name: a.name}, 201, g.obj, nil, "")
		a.svcRV = g.nextRV()
		g.obj = g.deployment(g.obj[:0], a, false)
		g.write(levelRequest, "create", "/apis/apps/v1/namespaces/"+a.ns+"/deployments?fieldManager=argocd-controller", argocd, ref{group: "apps", resource: "deployments", namespace: a.ns, name: a.name}, 201, g.obj, nil, "")
		a.depRV = g.nextRV()
		for range a.replicas {
			g.startPod(a)
		}
	}
}

// work writes one thing the cluster does, picked by its weight among them.
func (g *gen) work() {
	a := g.apps[g.rand.intn(len(g.apps))]
	switch pick := g.rand.intn(72); {
	case pick < 30:
		g.podStatus(a, a.pods[g.rand.intn(len(a.pods))], g.rand.intn(10) != 0)
	case pick < 42:
		g.replacePod(a)
	case pick < 52:
		g.deploymentStatus(a)
	case pick < 58:
		g.configMapUpdate(a)
	case pick < 61:
		g.configMapPatch(a)
	case pick < 64:
		g.servicePatch(a)
	case pick < 65:
		g.serviceUpdate(a)
	case pick < 68:
		g.deploymentApply(a)
	case pick < 70:
		g.deploymentRestart(a)
	default:
		g.podLabel(a, a.pods[g.rand.intn(len(a.pods))])
	}
}

// startPod writes a Pod of a's being created by the ReplicaSet controller (with a generated
// name), bound by the scheduler and started by its kubelet.
func (g *gen) startPod(a *app) {
	p := &pod{name: a.name + "-" + a.hash + "-" + g.suffix(), uid: g.uid(), node: fmt.Sprintf("node-%03d", g.rand.intn(g.nodes)), ip: g.ip("10.1"), created: g.stamp(), rv: g.nextRV()}
	a.pods = append(a.pods, p)
	g.obj = g.pod(g.obj[:0], a, p, podRequest)
	g.obj2 = g.pod(g.obj2[:0], a, p, podCreated)
	g.write(levelRequestResponse, "create", "/api/v1/namespaces/"+a.ns+"/pods", replicaSetController, ref{resource: "pods", namespace: a.ns}, 201, g.obj, g.obj2, podSecurityAnnotations)
	g.obj = fmt.Appendf(g.obj[:0], `{"kind":"Binding","apiVersion":"v1","metadata":{"name":%q,"namespace":%q,"uid":%q,"creationTimestamp":null},"target":{"kind":"Node","name":%q}}`, p.name, a.ns, p.uid, p.node)
	g.write(levelRequest, "create", "/api/v1/namespaces/"+a.ns+"/pods/"+p.name+"/binding", scheduler, ref{resource: "pods", namespace: a.ns, name: p.name, subresource: "binding"}, 201, g.obj, nil, "")
	p.rv = g.nextRV()
	g.podStatus(a, p, true)
}

// replacePod writes one of a's Pods deleted by the ReplicaSet controller and its replacement
// started.
func (g *gen) replacePod(a *app) {
	i := g.rand.intn(len(a.pods))
	p := a.pods[i]
	a.pods = append(a.pods[:i], a.pods[i+1:]...)
	g.obj = fmt.Appendf(g.obj[:0], `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":%q}}`, p.uid)
	p.rv = g.nextRV()
	g.obj2 = g.pod(g.obj2[:0], a, p, podDeleted)
	g.write(levelRequestResponse, "delete", "/api/v1/namespaces/"+a.ns+"/pods/"+p.name, replicaSetController, ref{resource: "pods", namespace: a.ns, name: p.name}, 200, g.obj, g.obj2, "")
	g.startPod(a)
}

// podStatus writes a kubelet's patch of a Pod's status: started, ready or not.
func (g *gen) podStatus(a *app, p *pod, ready bool) {
	if !ready {
		p.restarts++
	}
	now := g.stamp()
	g.obj = fmt.Appendf(g.obj[:0], `{"metadata":{"uid":%q},"status":{"$setElementOrder/conditions":[{"type":"PodReadyToStartContainers"},{"type":"Initialized"},{"type":"Ready"},{"type":"ContainersReady"},{"type":"PodScheduled"}],"conditions":[{"lastProbeTime":null,"lastTransitionTime":%q,"status":"True","type":"PodReadyToStartContainers"},{"lastProbeTime":null,"lastTransitionTime":%q,"status":"True","type":"Initialized"},{"lastProbeTime":null,"lastTransitionTime":%q,"status":"%s","type":"Ready"},{"lastProbeTime":null,"lastTransitionTime":%q,"status":"%s","type":"ContainersReady"},{"lastProbeTime":null,"lastTransitionTime":%q,"status":"True","type":"PodScheduled"}],"containerStatuses":[{"containerID":"containerd://%s%s","image":"registry.example.com/%s/%s:1.%d.0","imageID":"registry.example.com/%s/%s@sha256:%s%s","lastState":{},"name":"app","ready":%t,"restartCount":%d,"started":true,"state":{"running":{"startedAt":%q}}}],"hostIP":%q,"hostIPs":[{"ip":%q}],"phase":"Running","podIP":%q,"podIPs":[{"ip":%q}],"startTime":%q}}`,
		p.uid, p.created, p.created, now, trueOr(ready), now, trueOr(ready), p.created, g.hex32(), g.hex32(), a.ns, a.name, a.version, a.ns, a.name, g.hex32(), g.hex32(),
		ready, p.restarts, now, nodeIP(p.node), nodeIP(p.node), p.ip, p.ip, p.created)
	g.write(levelRequest, "patch", "/api/v1/namespaces/"+a.ns+"/pods/"+p.name+"/status", g.kubelet(p.node), ref{resource: "pods", namespace: a.ns, name: p.name, subresource: "status"}, 200, g.obj, nil, "")
	p.rv = g.nextRV()
}

// podLabel writes a service mesh's controller labelling a Pod with its revision: an update of
// the Pod, which the proposal's webhook on Pods sees.
func (g *gen) podLabel(a *app, p *pod) {
	p.mesh++
	g.obj = fmt.Appendf(g.obj[:0], `{"metadata":{"labels":{"mesh.example.com/revision":"r%d"}}}`, p.mesh)
	g.write(levelRequest, "patch", "/api/v1/namespaces/"+a.ns+"/pods/"+p.name, meshController, ref{resource: "pods", namespace: a.ns, name: p.name}, 200, g.obj, nil, "")
	p.rv = g.nextRV()
}

// deploymentStatus writes the Deployment controller's update of a Deployment's status, one in
// fifty refused in conflict with another write, as controllers' updates are.
func (g *gen) deploymentStatus(a *app) {
	code := 200
	if g.rand.intn(50) == 0 {
		code = 409
	}
	g.obj = g.deployment(g.obj[:0], a, true)
	g.write(levelRequest, "update", "/apis/apps/v1/namespaces/"+a.ns+"/deployments/"+a.name+"/status", deploymentController, ref{group: "apps", resource: "deployments", namespace: a.ns, name: a.name, subresource: "status"}, code, g.obj, nil, "")
	if code == 200 {
		a.depRV = g.nextRV()
	}
}

// deploymentApply writes the GitOps controller's `kubectl apply` of a Deployment with a new
// image: a strategic merge patch with the manifest it applies as its last-applied annotation.
func (g *gen) deploymentApply(a *app) {
	a.version++
	a.generation++
	a.revision++
	a.hash = g.podTemplateHash()
	g.obj2 = g.deployment(g.obj2[:0], a, false)
	b := append(g.obj[:0], `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":`...)
	b = strconv.AppendQuote(b, string(g.obj2)+"\n")
	g.obj = fmt.Appendf(b, `}},"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"app"}],"containers":[{"image":"registry.example.com/%s/%s:1.%d.0","name":"app"}]}}}}`, a.ns, a.name, a.version)
	g.write(levelRequest, "patch", "/apis/apps/v1/namespaces/"+a.ns+"/deployments/"+a.name+"?fieldManager=argocd-controller", argocd, ref{group: "apps", resource: "deployments", namespace: a.ns, name: a.name}, 200, g.obj, nil, "")
	a.depRV = g.nextRV()
}

// deploymentRestart writes `kubectl rollout restart`: a strategic merge patch of the Pods'
// template.
func (g *gen) deploymentRestart(a *app) {
	a.restartedAt = g.stamp()
	a.generation++
	a.revision++
	a.hash = g.podTemplateHash()
	g.obj = fmt.Appendf(g.obj[:0], `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":%q}}}}}`, a.restartedAt)
	g.write(levelRequest, "patch", "/apis/apps/v1/namespaces/"+a.ns+"/deployments/"+a.name+"?fieldManager=kubectl-rollout", g.person(), ref{group: "apps", resource: "deployments", namespace: a.ns, name: a.name}, 200, g.obj, nil, "")
	a.depRV = g.nextRV()
}

// configMapUpdate writes the GitOps controller's update of a ConfigMap.
func (g *gen) configMapUpdate(a *app) {
	a.syncWave++
	g.obj = g.configMap(g.obj[:0], a, true)
	g.write(levelRequest, "update", "/api/v1/namespaces/"+a.ns+"/configmaps/"+a.name+"-config?fieldManager=argocd-controller", argocd, ref{resource: "configmaps", namespace: a.ns, name: a.name + "-config"}, 200, g.obj, nil, "")
	a.cmRV = g.nextRV()
}

// configMapPatch writes a person's `kubectl patch` of a ConfigMap's log level.
func (g *gen) configMapPatch(a *app) {
	a.logLevel = [...]string{"debug", "info", "warn"}[g.rand.intn(3)]
	g.obj = fmt.Appendf(g.obj[:0], `{"data":{"LOG_LEVEL":%q}}`, a.logLevel)
	g.write(levelRequest, "patch", "/api/v1/namespaces/"+a.ns+"/configmaps/"+a.name+"-config?fieldManager=kubectl-patch", g.person(), ref{resource: "configmaps", namespace: a.ns, name: a.name + "-config"}, 200, g.obj, nil, "")
	a.cmRV = g.nextRV()
}

// servicePatch writes the GitOps controller's patch of a Service's annotations.
func (g *gen) servicePatch(a *app) {
	a.syncWave++
	g.obj = fmt.Appendf(g.obj[:0], `{"metadata":{"annotations":{"argocd.argoproj.io/sync-wave":"%d"}}}`, a.syncWave)
	g.write(levelRequest, "patch", "/api/v1/namespaces/"+a.ns+"/services/"+a.name+"?fieldManager=argocd-controller", argocd, ref{resource: "services", namespace: a.ns, name: a.name}, 200, g.obj, nil, "")
	a.svcRV = g.nextRV()
}

// serviceUpdate writes a person's update of a Service (kubectl edit).
func (g *gen) serviceUpdate(a *app) {
	g.obj = g.service(g.obj[:0], a, true)
	g.write(levelRequest, "update", "/api/v1/namespaces/"+a.ns+"/services/"+a.name+"?fieldManager=kubectl-edit", g.person(), ref{resource: "services", namespace: a.ns, name: a.name}, 200, g.obj, nil, "")
	a.svcRV = g.nextRV()
}

// read writes a read of a's objects or of the cluster's, at Metadata level.
func (g *gen) read(a *app) {
	var u *user
	var r ref
	var uri string
	pick := g.rand.intn(20)
	if len(a.pods) == 0 && pick < 6 {
		pick = 10 // while the cluster is created: a watch rather than reads of Pods not yet there
	}
	switch {
	case pick < 6:
		p := a.pods[g.rand.intn(len(a.pods))] // a kubelet reads its Pods' ConfigMaps and the Pods themselves
		u = g.kubelet(p.node)
		if pick < 3 {
			r, uri = ref{resource: "configmaps", namespace: a.ns, name: a.name + "-config"}, "/api/v1/namespaces/"+a.ns+"/configmaps/"+a.name+"-config"
		} else {
			r, uri = ref{resource: "pods", namespace: a.ns, name: p.name}, "/api/v1/namespaces/"+a.ns+"/pods/"+p.name
		}
		g.write(levelMetadata, "get", uri, u, r, 200, nil, nil, "")
	case pick < 10: // monitoring lists an app's Pods and EndpointSlices
		if pick < 8 {
			r, uri = ref{resource: "pods", namespace: a.ns}, "/api/v1/namespaces/"+a.ns+"/pods?labelSelector=app.kubernetes.io%2Fname%3D"+a.name+"&limit=500"
		} else {
			r, uri = ref{group: "discovery.k8s.io", resource: "endpointslices", namespace: a.ns}, "/apis/discovery.k8s.io/v1/namespaces/"+a.ns+"/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D"+a.name+"&limit=500"
		}
		g.write(levelMetadata, "list", uri, prometheus, r, 200, nil, nil, "")
	case pick < 14: // controllers' and the GitOps controller's watches, ended by their timeout
		resources := [...]ref{{resource: "pods"}, {group: "apps", resource: "deployments"}, {resource: "configmaps"}, {resource: "services"}}
		r = resources[g.rand.intn(len(resources))]
		users := [...]*user{deploymentController, replicaSetController, argocd, prometheus}
		timeout := 300 + g.rand.intn(300)
		uri = fmt.Sprintf("%s?allowWatchBookmarks=true&resourceVersion=%d&timeout=%dm%ds&timeoutSeconds=%d&watch=true", collection(r), g.rv-int64(g.rand.intn(500)), timeout/60, timeout%60, timeout)
		g.write(levelMetadata, "watch", uri, users[g.rand.intn(len(users))], r, 200, nil, nil, "")
	case pick < 17: // the GitOps controller lists what it manages
		r = ref{group: "apps", resource: "deployments", namespace: a.ns}
		g.write(levelMetadata, "list", "/apis/apps/v1/namespaces/"+a.ns+"/deployments?limit=500", argocd, r, 200, nil, nil, "")
	default: // people look
		if pick < 19 {
			r, uri = ref{group: "apps", resource: "deployments", namespace: a.ns, name: a.name}, "/apis/apps/v1/namespaces/"+a.ns+"/deployments/"+a.name
			g.write(levelMetadata, "get", uri, g.person(), r, 200, nil, nil, "")
		} else {
			r, uri = ref{resource: "pods", namespace: a.ns}, "/api/v1/namespaces/"+a.ns+"/pods?limit=500"
			g.write(levelMetadata, "list", uri, g.person(), r, 200, nil, nil, "")
		}
	}
}
