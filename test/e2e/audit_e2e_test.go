//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/admitkit/admit/internal/lockedbuf"
	"github.com/admitkit/admit/internal/testenv"
	"github.com/admitkit/admit/internal/webhooktest"
)

// auditPolicy logs every write of the core and apps groups with its request and response, and
// everything else (the auditor's reads) with its metadata.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: RequestResponse
  verbs: [create, update, patch, delete]
  resources: [{group: ""}, {group: apps}]
- level: Metadata
`

// auditReportJSON is what the test reads of admit audit -o json.
type auditReportJSON struct {
	Baseline string `json:"baseline"`
	Totals   struct {
		Read, Audited, NewlyDenied, NewlyFailing, NewlyMutated, NewlyWarned, Unreviewed int
	} `json:"totals"`
	Steps []struct {
		Type, Configuration, Name, Change        string
		Matched, Denied, Failed, Mutated, Warned int
	} `json:"steps"`
	Objects []struct {
		Effects         []string
		Operation, Kind string
		Namespace, Name string
		Origin          string
		Denial          *struct{ Message string }
		Patch           []struct{ Op, Path string }
		Warnings        []struct{ Text string }
		Failures        []struct{ Rejected bool }
	} `json:"objects"`
}

// TestAudit rolls out a policy change and two webhooks on paper: a kube-apiserver with an audit
// log holds a ValidatingAdmissionPolicy in Warn mode and a few teams' objects, written by
// several users; the proposal turns the policy to Deny and adds admit serve's built-in webhooks
// (a separate process), a warning webhook (webhooktest, in this process) and a webhook whose
// server is not up yet. admit audit reads the cluster as a ServiceAccount that may only list and
// get — the apiserver's own audit log shows it did nothing else — and reports what the proposal
// would do to the objects there, then replays the log's writes.
func TestAudit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policyFile, []byte(auditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "audit.log")
	cluster, err := testenv.Start(ctx, testenv.Options{APIServerFlags: []string{"--audit-log-path=" + logPath, "--audit-policy-file=" + policyFile}})
	if err != nil {
		t.Fatalf("starting a kube-apiserver with an audit log: %v", err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(); err != nil {
			t.Error(err)
		}
	})
	seedAuditedCluster(t, cluster)
	kubeconfig := listAndGetKubeconfig(t, cluster, dir)

	proposal := filepath.Join(dir, "proposal")
	if err := os.Mkdir(proposal, 0o700); err != nil {
		t.Fatal(err)
	}
	writeAuditProposal(t, proposal, startAdmitServe(t, dir), webhooktest.Start(t))

	t.Run("the cluster's objects", func(t *testing.T) {
		html, junitFile := filepath.Join(dir, "audit.html"), filepath.Join(dir, "audit.xml")
		report, stderr, code := runAdmitAudit(t, "--kubeconfig", kubeconfig, "--webhooks", proposal, "--html", html, "--junit", junitFile)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		mustContain(t, stderr, "1 newly denied write (more than 0)", "2 writes with newly failing calls (more than 0)")
		if !strings.HasPrefix(report.Baseline, "the configurations and policies of https://127.0.0.1:") {
			t.Errorf("baseline %q, want the cluster's", report.Baseline)
		}
		type effect struct{ Effects, Object string }
		var got []effect
		for _, o := range report.Objects {
			got = append(got, effect{strings.Join(o.Effects, ","), o.Kind + " " + o.Namespace + "/" + o.Name})
		}
		// shop/settings lacks the team label admit serve requires, but its next update is only
		// warned about: the webhook lets an object that already lacked the label be updated.
		want := []effect{
			{"denied,warned", "Deployment shop/big"},
			{"failing", "Pod ops/debug"}, {"failing,warned,mutated", "Pod shop/web"},
			{"warned", "ConfigMap shop/settings"}, {"warned", "Deployment ops/tools"}, {"warned,mutated", "Deployment shop/small"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("objects, the worst first (-want +got):\n%s", diff)
		}
		for _, o := range report.Objects {
			switch o.Kind + " " + o.Name {
			case "Deployment big":
				mustContain(t, o.Denial.Message, `ValidatingAdmissionPolicy 'replica-cap' with binding 'replica-cap' denied request: at most 5 replicas`)
			case "ConfigMap settings":
				mustContain(t, o.Warnings[0].Text, "metadata.labels[team] is required on every ConfigMap")
			case "Deployment small":
				if len(o.Patch) != 2 || o.Patch[0].Path != "/metadata/generation" || o.Patch[1].Path != "/spec/template/spec/containers/0/image" {
					t.Errorf("shop/small's change: %+v", o.Patch)
				}
			case "Pod debug":
				if o.Failures[0].Rejected {
					t.Error("a webhook with failurePolicy Ignore rejects ops/debug")
				}
			}
		}
		if report.Totals.Unreviewed != 0 {
			t.Errorf("%d objects not reviewed", report.Totals.Unreviewed)
		}
		for _, file := range []string{html, junitFile} {
			if info, err := os.Stat(file); err != nil || info.Size() == 0 {
				t.Errorf("%s not written: %v", file, err)
			}
		}
		checkOnlyListAndGet(t, logPath, "system:serviceaccount:audit-tool:auditor")
	})

	t.Run("the apiserver's audit log", func(t *testing.T) {
		report, stderr, code := runAdmitAudit(t, "--audit-log", logPath, "--kubeconfig", kubeconfig, "--webhooks", proposal, "--limit", "100")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, stderr)
		}
		var denied []string
		for _, o := range report.Objects {
			// The dry runs that waited for the policy to take effect are in the log too.
			if slices.Contains(o.Effects, "denied") && o.Name != "probe" {
				// "log:LINE: verb resource name in namespace by user, answered CODE"
				origin := o.Origin[strings.Index(o.Origin, ": ")+2:]
				denied = append(denied, o.Operation+" "+origin[:strings.Index(origin, ", answered")])
			}
		}
		want := []string{
			"CREATE create deployments.apps big in shop by admin",
			"CREATE create configmaps settings in shop by admin",
			"UPDATE update configmaps legacy in ops by alice",
			"UPDATE update deployments.apps small in shop by bob",
		}
		if diff := cmp.Diff(want, denied); diff != "" {
			t.Errorf("the writes the proposal newly denies (-want +got):\n%s", diff)
		}
		if report.Totals.Unreviewed != 0 {
			t.Errorf("%d writes not reviewed", report.Totals.Unreviewed)
		}
	})
}

// seedAuditedCluster writes what the audit finds: a policy in Warn mode, two teams' namespaces
// and objects, and later writes by two users a role lets write.
func seedAuditedCluster(t *testing.T, cluster *testenv.Env) {
	t.Helper()
	ctx := context.Background()
	c := cluster.Client
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replica-cap"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5", Message: "at most 5 replicas"}},
		},
	}
	must(t, "creating the policy", func() error {
		_, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{})
		return err
	})
	must(t, "creating its binding", func() error {
		_, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "replica-cap"},
			Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replica-cap", ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}},
		}, metav1.CreateOptions{})
		return err
	})
	for ns, labels := range map[string]map[string]string{"shop": {"tier": "team"}, "ops": {}} {
		must(t, "creating namespace "+ns, func() error {
			if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}, metav1.CreateOptions{}); err != nil {
				return err
			}
			// No controller creates it here: pods need it.
			_, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
			return err
		})
		must(t, "letting alice and bob write "+ns, func() error {
			// A role of its own: the built-in edit role is aggregated by a controller that does
			// not run here.
			if _, err := c.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
				ObjectMeta: metav1.ObjectMeta{Name: "writer"},
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"}},
					{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "update"}},
				},
			}, metav1.CreateOptions{}); err != nil {
				return err
			}
			_, err := c.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "writers"},
				RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "writer"},
				Subjects:   []rbacv1.Subject{{Kind: "User", Name: "alice"}, {Kind: "User", Name: "bob"}},
			}, metav1.CreateOptions{})
			return err
		})
	}
	// The policy takes effect asynchronously: the first big Deployment must be warned about.
	eventually(t, "the policy to warn", func() error {
		var warned bool
		cfg := rest.CopyConfig(cluster.RESTConfig)
		cfg.WarningHandler = warningFunc(func(string) { warned = true })
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		_, err = client.AppsV1().Deployments("shop").Create(ctx, deployment("probe", 9, "nginx:1.27"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil && !warned {
			return errors.New("not warned yet")
		}
		return err
	})
	for _, d := range []struct {
		ns       string
		name     string
		replicas int32
		image    string
	}{{"shop", "big", 8, "nginx:1.27"}, {"shop", "small", 2, "nginx:1.27"}, {"ops", "tools", 1, "registry.internal.example/tools:1"}} {
		must(t, "creating deployment "+d.name, func() error {
			_, err := c.AppsV1().Deployments(d.ns).Create(ctx, deployment(d.name, d.replicas, d.image), metav1.CreateOptions{})
			return err
		})
	}
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "shop"}, Data: map[string]string{"LOG_LEVEL": "info"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: "ops", Labels: map[string]string{"team": "ops"}}, Data: map[string]string{"mode": "old"}},
	} {
		must(t, "creating configmap "+cm.Name, func() error {
			_, err := c.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			return err
		})
	}
	for _, p := range []struct{ ns, name, image string }{{"shop", "web", "nginx:1.27"}, {"ops", "debug", "registry.internal.example/debug:1"}} {
		must(t, "creating pod "+p.name, func() error {
			_, err := c.CoreV1().Pods(p.ns).Create(ctx, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: p.ns},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: p.image}}},
			}, metav1.CreateOptions{})
			return err
		})
	}
	// Later writes, by other users: alice takes ops/legacy's team label off, bob scales shop/small
	// up (both allowed today: the policy only warns).
	as := func(user string) kubernetes.Interface {
		cfg := rest.CopyConfig(cluster.RESTConfig)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return client
	}
	must(t, "alice's update", func() error {
		cm, err := as("alice").CoreV1().ConfigMaps("ops").Get(ctx, "legacy", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Labels = nil
		_, err = as("alice").CoreV1().ConfigMaps("ops").Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
	must(t, "bob's update", func() error {
		d, err := as("bob").AppsV1().Deployments("shop").Get(ctx, "small", metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Replicas = ptr.To[int32](7)
		_, err = as("bob").AppsV1().Deployments("shop").Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
	// Put both back as the cluster audit expects them: labelled, two replicas.
	must(t, "restoring ops/legacy and shop/small", func() error {
		cm, err := c.CoreV1().ConfigMaps("ops").Get(ctx, "legacy", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Labels = map[string]string{"team": "ops"}
		if _, err := c.CoreV1().ConfigMaps("ops").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			return err
		}
		d, err := c.AppsV1().Deployments("shop").Get(ctx, "small", metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Replicas = ptr.To[int32](2)
		_, err = c.AppsV1().Deployments("shop").Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
}

func deployment(name string, replicas int32, image string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}},
			},
		},
	}
}

type warningFunc func(string)

func (f warningFunc) HandleWarningHeader(_ int, _ string, text string) { f(text) }

func must(t *testing.T, what string, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// listAndGetKubeconfig creates a ServiceAccount bound to a ClusterRole that grants list and get
// on everything, and nothing else, and writes a kubeconfig with a token of it.
func listAndGetKubeconfig(t *testing.T, cluster *testenv.Env, dir string) string {
	t.Helper()
	ctx := context.Background()
	c := cluster.Client
	must(t, "creating the auditor", func() error {
		if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "audit-tool"}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		if _, err := c.CoreV1().ServiceAccounts("audit-tool").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "auditor"}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		if _, err := c.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "list-and-get"},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"list", "get"}}},
		}, metav1.CreateOptions{}); err != nil {
			return err
		}
		_, err := c.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "auditor"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "list-and-get"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "auditor", Namespace: "audit-tool"}},
		}, metav1.CreateOptions{})
		return err
	})
	token, err := c.CoreV1().ServiceAccounts("audit-tool").CreateToken(ctx, "auditor", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token of the auditor: %v", err)
	}
	path := filepath.Join(dir, "auditor.kubeconfig")
	config := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"e2e": {Server: cluster.RESTConfig.Host, CertificateAuthorityData: cluster.RESTConfig.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"auditor": {Token: token.Status.Token}},
		Contexts:       map[string]*clientcmdapi.Context{"e2e": {Cluster: "e2e", AuthInfo: "auditor"}},
		CurrentContext: "e2e",
	}
	if err := clientcmd.WriteToFile(config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// startAdmitServe runs admit serve's built-in webhooks as a process — image mirrors, a required
// team label on ConfigMaps — until the test ends, and returns their configurations.
func startAdmitServe(t *testing.T, dir string) []byte {
	t.Helper()
	admit := admitBinary(t)
	certDir := filepath.Join(dir, "serve-tls")
	if out, err := exec.Command(admit, "certs", "create", "--ip", "127.0.0.1", "--out", certDir).CombinedOutput(); err != nil {
		t.Fatalf("admit certs create: %v\n%s", err, out)
	}
	port, healthPort := freePort(t), freePort(t)
	serveEnv := append(os.Environ(), "ADMIT_IMAGE_MIRRORS=docker.io=mirror.local/hub", "ADMIT_REQUIRED_LABELS=ConfigMap=team")
	print := exec.Command(admit, "serve", "--print-config", "--url", "https://127.0.0.1:"+strconv.Itoa(port), "--cert-dir", certDir, "--config-name", "admit-serve")
	print.Env = serveEnv
	configs, err := print.Output()
	if err != nil {
		t.Fatalf("admit serve --print-config: %v", err)
	}
	var stderr lockedbuf.Buffer
	serve := exec.Command(admit, "serve", "--cert-dir", certDir, "--addr", "127.0.0.1:"+strconv.Itoa(port),
		"--health-addr", "127.0.0.1:"+strconv.Itoa(healthPort), "--drain-delay", "0s")
	serve.Env, serve.Stderr = serveEnv, &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = serve.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = serve.Process.Kill()
		}
		if t.Failed() {
			t.Logf("admit serve's log:\n%s", stderr.String())
		}
	})
	waitServeReady(t, healthPort)
	return configs
}

// writeAuditProposal writes the proposal: the policy's binding turned to Deny, admit serve's
// configurations, a webhook of server that warns about Deployments, and one on Pods whose server
// is not running (failurePolicy Ignore).
func writeAuditProposal(t *testing.T, dir string, serveConfigs []byte, server *webhooktest.Server) {
	t.Helper()
	down := "https://127.0.0.1:" + strconv.Itoa(freePort(t)) + "/validate"
	files := map[string]string{
		"binding.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-cap}
spec: {policyName: replica-cap, validationActions: [Deny]}
`,
		"admit-serve.yaml": string(serveConfigs),
		"webhooks.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: owners}
webhooks:
- name: owners.e2e.admit.dev
  clientConfig: {url: "` + server.URL + webhooktest.Allow(webhooktest.Warning("deployments will need an owner label")) + `", caBundle: ` + base64.StdEncoding.EncodeToString(server.CABundle) + `}
  rules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [shop, ops]}]}
  sideEffects: None
  admissionReviewVersions: [v1]
- name: pods.e2e.admit.dev
  clientConfig: {url: "` + down + `", caBundle: ` + base64.StdEncoding.EncodeToString(server.CABundle) + `}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [shop, ops]}]}
  failurePolicy: Ignore
  timeoutSeconds: 2
  sideEffects: None
  admissionReviewVersions: [v1]
`,
	}
	// The binding alone: the proposal is the cluster's configuration with it in place of the
	// cluster's binding of that name, the policy as it is.
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// runAdmitAudit runs admit audit -o json and reads its report.
func runAdmitAudit(t *testing.T, args ...string) (auditReportJSON, string, int) {
	t.Helper()
	stdout, stderr, code := runAdmit(t, append(append([]string{"audit"}, args...), "-o", "json")...)
	var report auditReportJSON
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("admit audit -o json (exit %d): %v\n%s\n%s", code, err, stdout, stderr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("admit audit %s:\n%s", strings.Join(args, " "), stdout)
		}
	})
	return report, stderr, code
}

// checkOnlyListAndGet reads the apiserver's audit log: every request of user was a list or a get,
// and none read a Secret.
func checkOnlyListAndGet(t *testing.T, logPath, user string) {
	t.Helper()
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	verbs := map[string]int{}
	for scanner.Scan() {
		var ev struct {
			Verb      string `json:"verb"`
			User      struct{ Username string }
			ObjectRef *struct{ Resource string }
		}
		if err := json.Unmarshal(scanner.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.User.Username != user {
			continue
		}
		verbs[ev.Verb]++
		if ev.ObjectRef != nil && ev.ObjectRef.Resource == "secrets" {
			t.Errorf("%s read Secrets", user)
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	if verbs["list"] == 0 {
		t.Fatalf("the audit log has no list by %s: %v", user, verbs)
	}
	for verb, n := range verbs {
		if verb != "list" && verb != "get" {
			t.Errorf("%s made %d %s requests: only list and get are needed", user, n, verb)
		}
	}
}
