//go:build e2e

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/internal/testenv"
)

// deploy/audit's namespace and ServiceAccounts, and the name its shards store their reports
// under (--to-configmap).
const (
	auditNamespace = "admit-audit"
	auditSA        = "admit-audit"
	mergeSA        = "admit-audit-merge"
	auditReports   = "admit-audit"
)

// renderedAudit is what the test reads of deploy/audit and deploy/audit/merge, as kubectl
// kustomize builds them.
type renderedAudit struct {
	base, merge []byte
	// shards and mergeJob are the two Jobs; proposal the ConfigMap the shards mount.
	shards, mergeJob *batchv1.Job
	proposal         *corev1.ConfigMap
}

// TestDeployAudit runs deploy/audit against a kube-apiserver of its own: every object of the
// shards' kustomization and of the merge's passes the apiserver's validation (a server-side dry
// run, then created), the Indexed Job's count is one number, its pods pass the restricted Pod
// Security Standard, and its ServiceAccount may read every built-in resource but Secrets and
// write nothing but ConfigMaps of its namespace. There is no kubelet to run the pods: the admit
// binary runs as each of them would — the shards as processes with the pods' arguments and
// environment, authenticated by a token of the deploy's ServiceAccount, storing their reports in
// ConfigMaps — then as the merge's pod, as the merge's ServiceAccount. The merged report, fetched
// as docs/audit.md says, is an unsharded run's but for its time and duration, and its Policy
// Reports are in the cluster.
func TestDeployAudit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cluster, err := testenv.Start(ctx, testenv.Options{})
	if err != nil {
		t.Fatalf("starting a kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(); err != nil {
			t.Error(err)
		}
	})
	r := renderAudit(t, cluster, filepath.Join(deployDir, "audit"))
	shardCount := checkShardCount(t, r.shards, "deploy/audit")

	t.Run("one shard count", func(t *testing.T) { checkCountSetOnce(t, cluster, shardCount) })

	applyAudit(t, cluster, r)
	checkRestrictedPods(t, cluster, r.shards)
	checkReadOnlyRBAC(t, cluster)
	seedWorkloads(t, cluster)
	// The working group's Policy Reports alone: --apply-policy-reports=auto applies them, and
	// not openreports.io's.
	installCRDs(t, cluster, filepath.Join("..", "..", "audit", "policyreport", "testdata", "wgpolicyk8s.io.yaml"))

	shardKubeconfig := serviceAccountKubeconfig(t, cluster, auditSA, dir)
	mergeKubeconfig := serviceAccountKubeconfig(t, cluster, mergeSA, dir)
	proposal := configMapVolume(t, r.proposal, dir)

	// The whole audit in one process, as the shards' ServiceAccount, for comparison.
	wholeArgs := slices.DeleteFunc(podArgs(t, r.shards, shardKubeconfig, proposal), func(a string) bool { return strings.HasPrefix(a, "--to-configmap") })
	whole, wholeErr, wholeCode := runAdmitEnv(t, nil, append(wholeArgs, "-o", "json")...)
	if wholeCode != 1 {
		t.Fatalf("the unsharded audit: exit %d, want 1 (new denials)\n%s", wholeCode, wholeErr)
	}

	runShards(t, r.shards, podArgs(t, r.shards, shardKubeconfig, proposal), shardCount)

	mergeArgs := podArgs(t, r.mergeJob, mergeKubeconfig, "")
	text, mergeErr, mergeCode := runAdmitEnv(t, nil, mergeArgs...)
	if mergeCode != wholeCode {
		t.Fatalf("the merge: exit %d, the unsharded audit's %d\n%s\n%s", mergeCode, wholeCode, text, mergeErr)
	}
	mustContain(t, text, "newly denied", "Deployment team-a/no-team-0")
	mustContain(t, mergeErr, "report stored in ConfigMap admit-audit/admit-audit-report (report.json.gz, report.html.gz)",
		"applied 5 wgpolicyk8s.io/v1alpha2 Policy Reports: ClusterPolicyReport admit-audit, PolicyReport kube-system/admit-audit, PolicyReport team-a/admit-audit, PolicyReport team-b/admit-audit, PolicyReport team-c/admit-audit")

	t.Run("the merged report, fetched", func(t *testing.T) {
		// As docs/audit.md fetches it.
		merged := fetchReportFile(t, cluster, "report.json.gz")
		if diff := cmp.Diff(withoutRunTimes(t, []byte(whole)), withoutRunTimes(t, merged)); diff != "" {
			t.Errorf("the merged report (-unsharded +merged):\n%s", diff)
		}
		page := fetchReportFile(t, cluster, "report.html.gz")
		if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) || !bytes.Contains(page, []byte("no-team-0")) {
			t.Errorf("report.html.gz is not the report's page:\n%.400s", page)
		}
	})

	t.Run("the Policy Reports", func(t *testing.T) {
		out, _, err := cluster.Kubectl(ctx, nil, "get", "policyreports.wgpolicyk8s.io", "admit-audit", "-n", "team-a", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var report struct {
			Summary struct{ Fail int }
			Results []struct{ Policy, Result string }
		}
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatal(err)
		}
		// team-a's two Deployments and its StatefulSet without a team label.
		if report.Summary.Fail != 3 || len(report.Results) != 3 || report.Results[0].Policy != "workloads-have-a-team" {
			t.Errorf("team-a's PolicyReport: %s", out)
		}
	})

	t.Run("waiting for the Jobs", func(t *testing.T) {
		// No controller runs the Jobs here: their status is written as the Job controller writes
		// it, and the commands docs/audit.md waits with are run on it.
		finishJob(t, cluster, r.shards.Name, true, shardCount)
		if out, _, err := cluster.Kubectl(ctx, nil, "-n", auditNamespace, "wait", "--for=condition=Complete", "job/"+r.shards.Name, "--timeout=20s"); err != nil {
			t.Errorf("waiting for the shards: %v\n%s", err, out)
		}
		waitMerge := []string{"-n", auditNamespace, "wait", "--for=jsonpath={.status.conditions[-1:].status}=True", "job/" + r.mergeJob.Name}
		if _, _, err := cluster.Kubectl(ctx, nil, append(waitMerge, "--timeout=1s")...); err == nil || !strings.Contains(err.Error(), "timed out") {
			t.Errorf("waiting for the merge before it ends: %v, want a timeout", err)
		}
		finishJob(t, cluster, r.mergeJob.Name, false, 1)
		if out, _, err := cluster.Kubectl(ctx, nil, append(waitMerge, "--timeout=20s")...); err != nil {
			t.Errorf("waiting for the merge: %v\n%s", err, out)
		}
		out, _, err := cluster.Kubectl(ctx, nil, "-n", auditNamespace, "get", "job", r.mergeJob.Name, "-o", "jsonpath={.status.conditions[-1:].type}")
		if err != nil || string(out) != "Failed" {
			t.Errorf("the merge's last condition %q, %v: want Failed", out, err)
		}
	})

	t.Run("a shard missing", func(t *testing.T) {
		name := fmt.Sprintf("%s-1-of-%d", auditReports, shardCount)
		if err := cluster.Client.CoreV1().ConfigMaps(auditNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runAdmitEnv(t, nil, mergeArgs...)
		want := fmt.Sprintf("shard 1/%d is missing: the merge of %d reports would not be the whole audit", shardCount, shardCount-1)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr, want)
		}
	})

	t.Run("a custom resource not granted", func(t *testing.T) {
		// deploy/audit/rbac.yaml says what a change matching custom resources stops with.
		wildcard := filepath.Join(dir, "wildcard.yaml")
		if err := os.WriteFile(wildcard, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: everything}
spec:
  matchConstraints: {resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [UPDATE], resources: ["*"]}]}
  validations: [{expression: "true"}]
`), 0o600); err != nil {
			t.Fatal(err)
		}
		args := podArgs(t, r.shards, shardKubeconfig, proposal)
		args = slices.DeleteFunc(args, func(a string) bool { return strings.HasPrefix(a, "--to-configmap") })
		for i, a := range args {
			if strings.HasPrefix(a, "--webhooks=") {
				args[i] = "--webhooks=" + wildcard
			}
		}
		_, stderr, code := runAdmitEnv(t, nil, append(args, "-o", "json")...)
		// The Policy Reports' CRDs are the cluster's only custom resources; which of their two
		// resources is listed first is discovery's order.
		mustContain(t, stderr, "policyreports.wgpolicyk8s.io of https://127.0.0.1:", "is forbidden: User \"system:serviceaccount:admit-audit:admit-audit\" cannot list resource")
		if code != 2 {
			t.Errorf("exit %d, want 2", code)
		}
	})
}

// checkCountSetOnce sets the shard count in a copy of deploy/audit's job.yaml alone, and checks
// that it reaches the Job's parallelism and its pods' environment.
func checkCountSetOnce(t *testing.T, cluster *testenv.Env, count int) {
	work := filepath.Join(t.TempDir(), "audit")
	if out, err := exec.Command("cp", "-r", filepath.Join(deployDir, "audit"), work).CombinedOutput(); err != nil {
		t.Fatalf("copying deploy/audit: %v: %s", err, out)
	}
	jobFile := filepath.Join(work, "job.yaml")
	data, err := os.ReadFile(jobFile)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), fmt.Sprintf("completions: %d\n", count), "completions: 7\n", 1)
	if edited == string(data) {
		t.Fatalf("job.yaml has no line completions: %d", count)
	}
	if err := os.WriteFile(jobFile, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := checkShardCount(t, renderAudit(t, cluster, work).shards, "the copy"); got != 7 {
		t.Errorf("completions %d after job.yaml set 7", got)
	}
}

// runShards runs every shard at once, each as its pod would run: the Job's arguments (args,
// mapped to this machine) and environment, and the index Kubernetes gives each pod of an Indexed
// Job. Each must succeed, saying where it stored its report.
func runShards(t *testing.T, job *batchv1.Job, args []string, count int) {
	t.Helper()
	env := podEnv(t, job)
	var wg sync.WaitGroup
	results := make([]struct {
		stderr string
		code   int
	}, count)
	for i := range count {
		wg.Go(func() {
			index := "JOB_COMPLETION_INDEX=" + fmt.Sprint(i)
			_, results[i].stderr, results[i].code = runAdmitEnv(t, append(slices.Clip(env), index), args...)
		})
	}
	wg.Wait()
	for i, res := range results {
		want := fmt.Sprintf("shard %d/%d: report stored in ConfigMap %s/%s-%d-of-%d", i, count, auditNamespace, auditReports, i, count)
		if res.code != 0 || !strings.Contains(res.stderr, want) {
			t.Fatalf("shard %d: exit %d, want 0 and %q\n%s", i, res.code, want, res.stderr)
		}
	}
}

// renderAudit builds deploy/audit (in dir) and its merge with kubectl kustomize.
func renderAudit(t *testing.T, cluster *testenv.Env, dir string) renderedAudit {
	t.Helper()
	var r renderedAudit
	for _, k := range []struct {
		dir string
		out *[]byte
	}{{dir, &r.base}, {filepath.Join(dir, "merge"), &r.merge}} {
		out, stderr, err := cluster.Kubectl(context.Background(), nil, "kustomize", k.dir)
		if err != nil {
			t.Fatalf("kubectl kustomize %s: %v\n%s", k.dir, err, stderr)
		}
		*k.out = out
	}
	for _, doc := range splitDocs(r.base) {
		switch kindOf(t, doc) {
		case "Job":
			r.shards = &batchv1.Job{}
			mustUnmarshal(t, doc, r.shards)
		case "ConfigMap":
			r.proposal = &corev1.ConfigMap{}
			mustUnmarshal(t, doc, r.proposal)
		}
	}
	for _, doc := range splitDocs(r.merge) {
		if kindOf(t, doc) == "Job" {
			r.mergeJob = &batchv1.Job{}
			mustUnmarshal(t, doc, r.mergeJob)
		}
	}
	if r.shards == nil || r.mergeJob == nil || r.proposal == nil {
		t.Fatalf("deploy/audit renders no Job, merge Job or proposal ConfigMap:\n%s\n---\n%s", r.base, r.merge)
	}
	return r
}

func splitDocs(stream []byte) [][]byte {
	var out [][]byte
	for _, doc := range bytes.Split(stream, []byte("\n---\n")) {
		if len(bytes.TrimSpace(doc)) > 0 {
			out = append(out, doc)
		}
	}
	return out
}

// kindOf is a document's kind.
func kindOf(t *testing.T, doc []byte) string {
	t.Helper()
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &head); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return head.Kind
}

// mustUnmarshal reads a document strictly: a field its type lacks is an error.
func mustUnmarshal(t *testing.T, doc []byte, v any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(doc, v); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
}

// checkShardCount checks the Job is Indexed, with completions, parallelism and
// ADMIT_AUDIT_SHARDS one number, and returns it.
func checkShardCount(t *testing.T, job *batchv1.Job, what string) int {
	t.Helper()
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil || spec.Parallelism == nil {
		t.Fatalf("%s: the Job is not Indexed with completions and parallelism: %+v", what, spec)
	}
	env := ""
	for _, e := range spec.Template.Spec.Containers[0].Env {
		if e.Name == "ADMIT_AUDIT_SHARDS" {
			env = e.Value
		}
	}
	if *spec.Completions < 2 || *spec.Parallelism != *spec.Completions || env != fmt.Sprint(*spec.Completions) {
		t.Fatalf("%s: completions %d, parallelism %d, ADMIT_AUDIT_SHARDS %q: want one count of 2 or more", what, *spec.Completions, *spec.Parallelism, env)
	}
	return int(*spec.Completions)
}

// applyAudit creates the namespace, has the apiserver check every object of both
// kustomizations with a server-side dry run, creates them, and reads the Indexed Job back.
func applyAudit(t *testing.T, cluster *testenv.Env, r renderedAudit) {
	t.Helper()
	ctx := context.Background()
	// Namespaced objects are dry-run into a namespace that exists.
	var ns []byte
	for _, doc := range splitDocs(r.base) {
		if bytes.Contains(doc, []byte("\nkind: Namespace\n")) {
			ns = doc
		}
	}
	if _, stderr, err := cluster.Kubectl(ctx, ns, "apply", "-f", "-"); err != nil {
		t.Fatalf("creating the namespace: %v\n%s", err, stderr)
	}
	for _, step := range []struct {
		name     string
		rendered []byte
		want     []string
	}{
		{"deploy/audit", r.base, []string{"namespace/admit-audit", "serviceaccount/admit-audit", "role.rbac.authorization.k8s.io/admit-audit-reports",
			"clusterrole.rbac.authorization.k8s.io/admit-audit-read", "rolebinding.rbac.authorization.k8s.io/admit-audit-reports",
			"clusterrolebinding.rbac.authorization.k8s.io/admit-audit-read", "configmap/" + r.proposal.Name, "job.batch/admit-audit"}},
		{"deploy/audit/merge", r.merge, []string{"serviceaccount/admit-audit-merge", "clusterrole.rbac.authorization.k8s.io/admit-audit-policyreports",
			"rolebinding.rbac.authorization.k8s.io/admit-audit-merge-reports", "clusterrolebinding.rbac.authorization.k8s.io/admit-audit-policyreports", "job.batch/admit-audit-merge"}},
	} {
		for _, dryRun := range []string{"--dry-run=server", "--dry-run=none"} {
			out, stderr, err := cluster.Kubectl(ctx, step.rendered, "apply", dryRun, "-f", "-")
			if err != nil {
				t.Fatalf("%s: kubectl apply %s: %v\n%s", step.name, dryRun, err, stderr)
			}
			// A pod template the namespace's restricted level would refuse is warned about.
			if len(bytes.TrimSpace(stderr)) > 0 {
				t.Errorf("%s: kubectl apply %s warns:\n%s", step.name, dryRun, stderr)
			}
			for _, want := range step.want {
				if !strings.Contains(string(out), want) {
					t.Errorf("%s: kubectl apply %s does not name %s:\n%s", step.name, dryRun, want, out)
				}
			}
		}
	}
	job, err := cluster.Client.BatchV1().Jobs(auditNamespace).Get(ctx, r.shards.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the Job back: %v", err)
	}
	if checkShardCount(t, job, "the Job read back") != int(*r.shards.Spec.Completions) {
		t.Errorf("the Job read back has %d completions, the manifest %d", *job.Spec.Completions, *r.shards.Spec.Completions)
	}
	if job.Spec.BackoffLimitPerIndex == nil || job.Spec.MaxFailedIndexes == nil || *job.Spec.MaxFailedIndexes != 0 {
		t.Errorf("the Job read back retries shards otherwise: backoffLimitPerIndex %v, maxFailedIndexes %v", job.Spec.BackoffLimitPerIndex, job.Spec.MaxFailedIndexes)
	}
}

// checkRestrictedPods creates (dry run) the pod of the shards' template in the namespace, which
// enforces the restricted Pod Security Standard; the same pod run as root is refused, so the
// level is enforced indeed.
func checkRestrictedPods(t *testing.T, cluster *testenv.Env, job *batchv1.Job) {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "shard-0", Namespace: auditNamespace, Labels: job.Spec.Template.Labels}, Spec: *job.Spec.Template.Spec.DeepCopy()}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	if _, err := cluster.Client.CoreV1().Pods(auditNamespace).Create(ctx, pod, dryRun); err != nil {
		t.Errorf("a shard's pod: %v", err)
	}
	root := pod.DeepCopy()
	root.Spec.SecurityContext.RunAsNonRoot, root.Spec.SecurityContext.RunAsUser = ptr.To(false), ptr.To[int64](0)
	if _, err := cluster.Client.CoreV1().Pods(auditNamespace).Create(ctx, root, dryRun); err == nil || !strings.Contains(err.Error(), `violates PodSecurity "restricted:latest"`) {
		t.Errorf("a shard's pod run as root: %v, want the restricted level's refusal", err)
	}
}

// checkReadOnlyRBAC asks the apiserver, as the shards' ServiceAccount, what it may do: list
// every resource the apiserver serves but Secrets, get and list nothing but, and write nothing
// but ConfigMaps of its namespace.
func checkReadOnlyRBAC(t *testing.T, cluster *testenv.Env) {
	t.Helper()
	ctx := context.Background()
	client := serviceAccountClient(t, cluster, auditSA)
	can := func(verb, group, resource, namespace string) bool {
		t.Helper()
		review, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: verb, Group: group, Resource: resource, Namespace: namespace,
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return review.Status.Allowed
	}
	_, lists, err := cluster.Client.Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, list := range lists {
		gv := groupOf(list.GroupVersion)
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			want := !(gv == "" && r.Name == "secrets")
			for _, verb := range []string{"list", "get"} {
				if got := can(verb, gv, r.Name, ""); got != want {
					t.Errorf("the ServiceAccount may %s %s.%s: %v, want %v", verb, r.Name, gv, got, want)
				}
			}
			listed++
		}
	}
	if listed < 40 {
		t.Errorf("only %d resources served: discovery is not the apiserver's", listed)
	}
	for _, w := range []struct {
		verb, group, resource, namespace string
		want                             bool
	}{
		{"create", "", "configmaps", auditNamespace, true},
		{"update", "", "configmaps", auditNamespace, true},
		{"create", "", "configmaps", "default", false},
		{"update", "", "configmaps", "", false},
		{"delete", "", "configmaps", auditNamespace, false},
		{"watch", "", "pods", "", false},
		{"update", "apps", "deployments", "default", false},
		{"patch", "", "namespaces", "", false},
		{"get", "", "secrets", auditNamespace, false},
		{"create", "wgpolicyk8s.io", "policyreports", "default", false},
	} {
		if got := can(w.verb, w.group, w.resource, w.namespace); got != w.want {
			t.Errorf("the ServiceAccount may %s %s.%s in %q: %v, want %v", w.verb, w.resource, w.group, w.namespace, got, w.want)
		}
	}
	// What it may do at all, as the apiserver lists it: every rule reads, but for its own
	// ConfigMaps and the self-reviews every user may create.
	rules, err := client.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: auditNamespace},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range rules.Status.ResourceRules {
		reads := !slices.ContainsFunc(rule.Verbs, func(v string) bool { return v != "get" && v != "list" })
		switch {
		case slices.Contains(rule.Resources, "*") || slices.Contains(rule.APIGroups, "*") || slices.Contains(rule.Resources, "secrets"):
			t.Errorf("a rule grants too much: %+v", rule)
		case reads:
		case slices.Equal(rule.Resources, []string{"configmaps"}) && slices.Equal(rule.APIGroups, []string{""}):
		case slices.Equal(rule.Verbs, []string{"create"}) && (slices.Contains(rule.APIGroups, "authorization.k8s.io") || slices.Contains(rule.APIGroups, "authentication.k8s.io")):
		default:
			t.Errorf("a rule writes: %+v", rule)
		}
	}
}

// groupOf is the group of a discovery list's group version: "" for the core group's "v1".
func groupOf(groupVersion string) string {
	group, _, ok := strings.Cut(groupVersion, "/")
	if !ok {
		return ""
	}
	return group
}

// seedWorkloads writes what the example proposal (deploy/audit/proposal.yaml: workloads need a
// team label) finds: in three teams' namespaces, Deployments with and without the label and a
// StatefulSet without; kube-system's Deployment without one is exempt; a Secret is never read.
func seedWorkloads(t *testing.T, cluster *testenv.Env) {
	t.Helper()
	ctx := context.Background()
	c := cluster.Client
	for _, ns := range []string{"team-a", "team-b", "team-c"} {
		must(t, "creating namespace "+ns, func() error {
			if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				return err
			}
			_, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
			return err
		})
		for i := range 4 {
			d := deployment(fmt.Sprintf("team-%d", i), 1, "nginx:1.27")
			d.Labels = map[string]string{"team": ns}
			if i >= 2 {
				d = deployment(fmt.Sprintf("no-team-%d", i-2), 1, "nginx:1.27")
			}
			must(t, "creating a deployment", func() error {
				_, err := c.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
				return err
			})
		}
		must(t, "creating a statefulset", func() error {
			labels := map[string]string{"app": "db"}
			_, err := c.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{
				ObjectMeta: metav1.ObjectMeta{Name: "db"},
				Spec: appsv1.StatefulSetSpec{
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "postgres:17"}}}},
				},
			}, metav1.CreateOptions{})
			return err
		})
		must(t, "creating a secret", func() error {
			_, err := c.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "password"}, StringData: map[string]string{"p": "x"}}, metav1.CreateOptions{})
			return err
		})
	}
	must(t, "creating kube-system's deployment", func() error {
		_, err := c.AppsV1().Deployments("kube-system").Create(ctx, deployment("coredns", 2, "registry.k8s.io/coredns/coredns:v1.12.0"), metav1.CreateOptions{})
		return err
	})
}

// installCRDs applies the CustomResourceDefinitions of a file and waits until they are served.
func installCRDs(t *testing.T, cluster *testenv.Env, path string) {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := cluster.Kubectl(ctx, data, "apply", "-f", "-", "-o", "name")
	if err != nil {
		t.Fatalf("applying %s: %v\n%s", path, err, stderr)
	}
	for _, name := range strings.Fields(string(out)) {
		if _, stderr, err := cluster.Kubectl(ctx, nil, "wait", "--for=condition=Established", name, "--timeout=30s"); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr)
		}
	}
}

// serviceAccountClient is a client of the cluster with a token of a ServiceAccount of deploy/audit.
func serviceAccountClient(t *testing.T, cluster *testenv.Env, sa string) kubernetes.Interface {
	t.Helper()
	cfg := rest.AnonymousClientConfig(cluster.RESTConfig)
	cfg.BearerToken = serviceAccountToken(t, cluster, sa)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func serviceAccountToken(t *testing.T, cluster *testenv.Env, sa string) string {
	t.Helper()
	token, err := cluster.Client.CoreV1().ServiceAccounts(auditNamespace).CreateToken(context.Background(), sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token of %s: %v", sa, err)
	}
	return token.Status.Token
}

// serviceAccountKubeconfig writes what a pod of sa has instead of a kubeconfig: its token, the
// cluster's CA, its namespace as the context's.
func serviceAccountKubeconfig(t *testing.T, cluster *testenv.Env, sa, dir string) string {
	t.Helper()
	path := filepath.Join(dir, sa+".kubeconfig")
	config := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"e2e": {Server: cluster.RESTConfig.Host, CertificateAuthorityData: cluster.RESTConfig.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{sa: {Token: serviceAccountToken(t, cluster, sa)}},
		Contexts:       map[string]*clientcmdapi.Context{"e2e": {Cluster: "e2e", AuthInfo: sa, Namespace: auditNamespace}},
		CurrentContext: "e2e",
	}
	if err := clientcmd.WriteToFile(config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// configMapVolume lays the ConfigMap's files out as Kubernetes mounts a ConfigMap volume: each
// key a symbolic link through ..data to a timestamped directory, which the shards' --webhooks
// reads as a directory.
func configMapVolume(t *testing.T, cm *corev1.ConfigMap, dir string) string {
	t.Helper()
	mount := filepath.Join(dir, "proposal")
	stamp := "..2026_01_02_03_04_05.000000001"
	if err := os.MkdirAll(filepath.Join(mount, stamp), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(stamp, filepath.Join(mount, "..data")); err != nil {
		t.Fatal(err)
	}
	for key, value := range cm.Data {
		if err := os.WriteFile(filepath.Join(mount, stamp, key), []byte(value), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..data", key), filepath.Join(mount, key)); err != nil {
			t.Fatal(err)
		}
	}
	return mount
}

// podArgs are the arguments of the Job's container, as a process here runs them: the cluster
// reached by kubeconfig rather than --in-cluster, the proposal's volume at mount.
func podArgs(t *testing.T, job *batchv1.Job, kubeconfig, mount string) []string {
	t.Helper()
	container := job.Spec.Template.Spec.Containers[0]
	var args []string
	for _, a := range container.Args {
		switch {
		case a == "--in-cluster":
			a = "--kubeconfig=" + kubeconfig
		case strings.HasPrefix(a, "--webhooks="):
			if len(container.VolumeMounts) != 1 || a != "--webhooks="+container.VolumeMounts[0].MountPath {
				t.Fatalf("%s's --webhooks is not its volume's mount: %s", job.Name, a)
			}
			a = "--webhooks=" + mount
		}
		args = append(args, a)
	}
	if !slices.Contains(container.Args, "--in-cluster") {
		t.Fatalf("%s's pod does not read the cluster with --in-cluster: %v", job.Name, container.Args)
	}
	return args
}

// podEnv is the environment the Job's container sets by value.
func podEnv(t *testing.T, job *batchv1.Job) []string {
	t.Helper()
	var env []string
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom == nil {
			env = append(env, e.Name+"="+e.Value)
		}
	}
	return env
}

// runAdmitEnv runs the admit binary with extra environment, returning its stdout, stderr and
// exit code.
func runAdmitEnv(t *testing.T, extraEnv []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(admitBinary(t), args...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			t.Errorf("admit %s: %v", strings.Join(args, " "), err)
			return out.String(), errOut.String(), -1
		}
		code = exit.ExitCode()
	}
	return out.String(), errOut.String(), code
}

// fetchReportFile reads a file of the merged report's ConfigMap as docs/audit.md does: kubectl
// get -o jsonpath, base64 -d, gunzip.
func fetchReportFile(t *testing.T, cluster *testenv.Env, key string) []byte {
	t.Helper()
	jsonpath := "jsonpath={.binaryData." + strings.ReplaceAll(key, ".", `\.`) + "}"
	out, stderr, err := cluster.Kubectl(context.Background(), nil, "-n", auditNamespace, "get", "configmap", "admit-audit-report", "-o", jsonpath)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	z, err := base64.StdEncoding.DecodeString(string(out))
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return data
}

// withoutRunTimes is a report's JSON without what differs from run to run: its time and
// duration.
func withoutRunTimes(t *testing.T, report []byte) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(report, &out); err != nil {
		t.Fatalf("%v\n%s", err, report)
	}
	delete(out, "time")
	delete(out, "durationSeconds")
	return out
}

// finishJob writes a Job's status as the Job controller does when its pods end: complete, or
// failed by its pod failure policy.
func finishJob(t *testing.T, cluster *testenv.Env, name string, complete bool, count int) {
	t.Helper()
	ctx := context.Background()
	jobs := cluster.Client.BatchV1().Jobs(auditNamespace)
	job, err := jobs.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	started := metav1.NewTime(now.Add(-time.Minute))
	condition := func(typ batchv1.JobConditionType, reason string) batchv1.JobCondition {
		return batchv1.JobCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason, LastProbeTime: now, LastTransitionTime: now}
	}
	job.Status = batchv1.JobStatus{StartTime: &started, Ready: ptr.To[int32](0), Terminating: ptr.To[int32](0)}
	if complete {
		job.Status.Succeeded = int32(count)
		job.Status.CompletionTime = &now
		if job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion {
			job.Status.CompletedIndexes = fmt.Sprintf("0-%d", count-1)
			job.Status.FailedIndexes = ptr.To("")
		}
		job.Status.Conditions = []batchv1.JobCondition{condition(batchv1.JobSuccessCriteriaMet, "CompletionsReached"), condition(batchv1.JobComplete, "CompletionsReached")}
	} else {
		job.Status.Failed = 1
		job.Status.Conditions = []batchv1.JobCondition{condition(batchv1.JobFailureTarget, "PodFailurePolicy"), condition(batchv1.JobFailed, "PodFailurePolicy")}
	}
	if _, err := jobs.UpdateStatus(ctx, job, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing %s's status: %v", name, err)
	}
}
