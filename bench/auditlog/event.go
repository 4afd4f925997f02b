package auditlog

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// collection is the URI of a resource's objects of every namespace.
func collection(r ref) string {
	if r.group == "" {
		return "/api/v1/" + r.resource
	}
	return "/apis/" + r.group + "/v1/" + r.resource
}

// Audit levels.
const (
	levelMetadata        = "Metadata"
	levelRequest         = "Request"
	levelRequestResponse = "RequestResponse"
)

// ref is an event's objectRef.
type ref struct {
	group, resource, namespace, name, subresource string
}

// write writes one event, as kube-apiserver logs it, and after a write the reads that follow it;
// after the last write's, the generation is done and write writes nothing more.
func (g *gen) write(level, verb, uri string, u *user, r ref, code int, request, response []byte, annotations string) {
	if g.done {
		return
	}
	start := g.now
	g.now = g.now.Add(time.Duration(g.rand.intn(6000)) * time.Microsecond)
	b := append(g.line[:0], `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"`...)
	b = append(b, level...)
	b = append(b, `","auditID":"`...)
	b = g.appendUID(b)
	b = append(b, `","stage":"ResponseComplete","requestURI":"`...)
	b = append(b, uri...)
	b = append(b, `","verb":"`...)
	b = append(b, verb...)
	b = append(b, `","user":`...)
	b = append(b, u.json...)
	b = append(b, `,"sourceIPs":["`...)
	b = append(b, u.ip...)
	b = append(b, `"],"userAgent":`...)
	b = strconv.AppendQuote(b, u.agent)
	b = appendRef(b, r)
	b = appendStatus(b, r, code)
	if len(request) > 0 && level != levelMetadata {
		b = append(b, `,"requestObject":`...)
		b = append(b, request...)
	}
	if len(response) > 0 && level == levelRequestResponse {
		b = append(b, `,"responseObject":`...)
		b = append(b, response...)
	}
	b = append(b, `,"requestReceivedTimestamp":"`...)
	b = start.AppendFormat(b, stampMicro)
	b = append(b, `","stageTimestamp":"`...)
	b = g.now.AppendFormat(b, stampMicro)
	b = append(b, `","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":`...)
	b = append(b, u.reason...)
	b = append(b, annotations...)
	b = append(b, "}}\n"...)
	g.line = b
	if _, err := g.w.Write(b); err != nil {
		g.err, g.done = err, true
		return
	}
	g.stats.Lines++
	g.stats.Bytes += int64(len(b))
	if level == levelRequestResponse {
		g.stats.RequestResponse++
	}
	if verb == "get" || verb == "list" || verb == "watch" {
		g.stats.Reads++
		return
	}
	g.stats.Writes++
	reads := g.rand.intn(2*g.cfg.ReadsPerWrite + 1)
	for range reads {
		g.read(g.apps[g.rand.intn(max(g.created, 1))])
	}
	g.done = g.stats.Writes >= g.cfg.Writes
}

// stampMicro is how the apiserver writes an event's times.
const stampMicro = "2006-01-02T15:04:05.000000Z07:00"

// stamp is the log's time, as objects' timestamps write it.
func (g *gen) stamp() string { return g.now.Format(time.RFC3339) }

func (g *gen) nextRV() int64 { g.rv++; return g.rv }

// uid is a random UUID, as the apiserver gives objects and events.
func (g *gen) uid() string { return string(g.appendUID(nil)) }

func (g *gen) appendUID(b []byte) []byte {
	const hex = "0123456789abcdef"
	x, y := g.rand.next(), g.rand.next()
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b = append(b, '-')
		}
		v := x
		if i >= 16 {
			v = y
		}
		b = append(b, hex[(v>>(4*(i%16)))&15])
	}
	return b
}

// hex32 is 32 random hexadecimal digits, half a container's ID or an image's digest.
func (g *gen) hex32() string { return fmt.Sprintf("%016x%016x", g.rand.next(), g.rand.next()) }

// podTemplateHash is a ReplicaSet's pod-template-hash; suffix a generated name's.
func (g *gen) podTemplateHash() string { return g.alnum(10) }
func (g *gen) suffix() string          { return g.alnum(5) }

func (g *gen) alnum(n int) string {
	const letters = "bcdfghjklmnpqrstvwxz2456789" // the apiserver's: no vowels, no look-alikes
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[g.rand.intn(len(letters))]
	}
	return string(b)
}

func (g *gen) ip(prefix string) string {
	return fmt.Sprintf("%s.%d.%d", prefix, g.rand.intn(256), 1+g.rand.intn(254))
}

func nodeIP(node string) string {
	n, _ := strconv.Atoi(node[len("node-"):])
	return fmt.Sprintf("10.0.%d.%d", n/250, 10+n%250)
}

func trueOr(ready bool) string {
	if ready {
		return "True"
	}
	return "False"
}

// user is who writes or reads, as an event's user, sourceIPs, userAgent and authorization
// annotation say it, rendered once.
type user struct {
	json, ip, agent, reason string
}

func newUser(name, uid string, groups []string, extra map[string][]string, ip, agent, reason string) *user {
	info := struct {
		Username string              `json:"username"`
		UID      string              `json:"uid,omitempty"`
		Groups   []string            `json:"groups"`
		Extra    map[string][]string `json:"extra,omitempty"`
	}{name, uid, groups, extra}
	data, err := json.Marshal(info)
	if err != nil {
		panic(err)
	}
	quoted, err := json.Marshal(reason)
	if err != nil {
		panic(err)
	}
	return &user{json: string(data), ip: ip, agent: agent, reason: string(quoted)}
}

const kubeVersion = "v1.36.0 (linux/amd64) kubernetes/7c3e1b2"

// serviceAccount is a controller's user: a service account of kube-controller-manager's, or a
// pod's with the claims of its token.
func serviceAccount(ns, name, uid string, pod bool, ip, agent, binding string) *user {
	var extra map[string][]string
	if pod {
		extra = map[string][]string{
			"authentication.kubernetes.io/credential-id": {"JTI=" + uid[:8] + "-5c1e-4d2b-9f0a-3b8e6d1c2a47"},
			"authentication.kubernetes.io/node-name":     {"node-007"},
			"authentication.kubernetes.io/node-uid":      {"8b1c7e2f-0d3a-4f5e-9c6b-1a2d3e4f5a6b"},
			"authentication.kubernetes.io/pod-name":      {name + "-0"},
			"authentication.kubernetes.io/pod-uid":       {"3f2e1d0c-9b8a-4766-8554-433221100fed"},
		}
	}
	full := "system:serviceaccount:" + ns + ":" + name
	return newUser(full, uid, []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}, extra, ip, agent,
		fmt.Sprintf(`RBAC: allowed by ClusterRoleBinding "%s" of ClusterRole "%s" to ServiceAccount "%s/%s"`, binding, binding, name, ns))
}

var (
	deploymentController = serviceAccount("kube-system", "deployment-controller", "5a0e7c21-3b44-4f1e-a6d2-0c9b8e7f6a51", false, "10.0.0.2",
		"kube-controller-manager/"+kubeVersion+"/system:serviceaccount:kube-system:deployment-controller", "system:controller:deployment-controller")
	replicaSetController = serviceAccount("kube-system", "replicaset-controller", "9d3f1b6a-7e2c-4a85-b0f4-6c1d2e3a4b5c", false, "10.0.0.2",
		"kube-controller-manager/"+kubeVersion+"/system:serviceaccount:kube-system:replicaset-controller", "system:controller:replicaset-controller")
	serviceAccountController = serviceAccount("kube-system", "service-account-controller", "2b7d9e1f-4c3a-4e6b-8a5d-7f0c1e2d3b4a", false, "10.0.0.2",
		"kube-controller-manager/"+kubeVersion+"/system:serviceaccount:kube-system:service-account-controller", "system:controller:service-account-controller")
	argocd = serviceAccount("argocd", "argocd-application-controller", "c4e2a1f0-6b7d-4c98-9e3f-2a1b0c9d8e7f", true, "10.1.7.23",
		"argocd-application-controller/v2.14.4 (linux/amd64) kubernetes/$Format", "argocd-application-controller")
	prometheus = serviceAccount("monitoring", "prometheus-k8s", "e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7", true, "10.1.9.41",
		"Prometheus/3.2.1", "prometheus-k8s")
	meshController = serviceAccount("mesh-system", "mesh-controller", "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", true, "10.1.4.12",
		"mesh-controller/v1.24.3 (linux/amd64)", "mesh-controller")
	scheduler = newUser("system:kube-scheduler", "", []string{"system:authenticated"}, nil, "10.0.0.2", "kube-scheduler/"+kubeVersion+"/scheduler",
		`RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"`)
	people = []*user{
		newUser("alice@example.com", "", []string{"platform-admins", "system:authenticated"}, nil, "192.168.10.21", "kubectl/"+kubeVersion,
			`RBAC: allowed by ClusterRoleBinding "platform-admins" of ClusterRole "cluster-admin" to Group "platform-admins"`),
		newUser("bob@example.com", "", []string{"developers", "system:authenticated"}, nil, "192.168.10.57", "kubectl/"+kubeVersion,
			`RBAC: allowed by RoleBinding "developers/team-edit" of ClusterRole "edit" to Group "developers"`),
		newUser("carol@example.com", "", []string{"developers", "oncall", "system:authenticated"}, nil, "192.168.11.3", "k9s/v0.40.10 (linux/amd64) kubernetes/$Format",
			`RBAC: allowed by RoleBinding "developers/team-edit" of ClusterRole "edit" to Group "developers"`),
	}
)

// kubelet is a node's kubelet, which the Node authorizer allows (with no reason given).
func (g *gen) kubelet(node string) *user {
	if u, ok := g.kubelets[node]; ok {
		return u
	}
	u := newUser("system:node:"+node, "", []string{"system:nodes", "system:authenticated"}, nil, nodeIP(node), "kubelet/"+kubeVersion, "")
	g.kubelets[node] = u
	return u
}

func (g *gen) person() *user { return people[g.rand.intn(len(people))] }

// podSecurityAnnotations are what Pod Security admission adds to a Pod's create.
const podSecurityAnnotations = `,"pod-security.kubernetes.io/enforce-policy":"baseline:latest"`

// splitmix is SplitMix64, written out so that the log is the same with every Go release.
type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (s *splitmix) intn(n int) int { return int(s.next() % uint64(n)) }

// appendRef appends an event's objectRef.
func appendRef(b []byte, r ref) []byte {
	b = append(b, `,"objectRef":{"resource":"`...)
	b = append(b, r.resource...)
	b = append(b, '"')
	for _, f := range [...]struct{ name, value string }{{"namespace", r.namespace}, {"name", r.name}, {"apiGroup", r.group}} {
		if f.value != "" {
			b = append(b, `,"`...)
			b = append(b, f.name...)
			b = append(b, `":"`...)
			b = append(b, f.value...)
			b = append(b, '"')
		}
	}
	b = append(b, `,"apiVersion":"v1"`...)
	if r.subresource != "" {
		b = append(b, `,"subresource":"`...)
		b = append(b, r.subresource...)
		b = append(b, '"')
	}
	return append(b, '}')
}

// appendStatus appends an event's responseStatus: a conflict's, or code alone.
func appendStatus(b []byte, r ref, code int) []byte {
	b = append(b, `,"responseStatus":{"metadata":{}`...)
	if code == 409 {
		b = fmt.Appendf(b, `,"status":"Failure","message":"Operation cannot be fulfilled on %s.%s \"%s\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":%q,"group":%q,"kind":%q}`,
			r.resource, r.group, r.name, r.name, r.group, r.resource)
	}
	b = append(b, `,"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	return append(b, '}')
}
