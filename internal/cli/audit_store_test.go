package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// What the flags of a run in a cluster refuse, before anything is read or reached, each with
// what to give instead. The e2e suite runs them against a kube-apiserver (deploy/audit).
func TestAuditStoreFlagErrors(t *testing.T) {
	// Outside a pod, whatever machine runs the tests.
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	dump := []string{"audit", "-f", "../../examples/audit/dump.yaml", "--baseline", "../../examples/audit/current", "--webhooks", "../../examples/audit/deny.yaml"}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"two credentials", append(dump, "--in-cluster", "--kubeconfig", "kc"), "--in-cluster and --kubeconfig name two ways to the cluster: give one"},
		{"in a cluster outside a pod", append(dump, "--in-cluster", "-o", "json"), "--in-cluster: unable to load in-cluster configuration"},
		{"a ConfigMap path", append(dump, "--shard", "0/2", "--to-configmap", "a/b/c"), `--to-configmap "a/b/c": give NAME, or NAMESPACE/NAME`},
		{"no ConfigMap name", append(dump, "--shard", "0/2", "--to-configmap", "ns/"), `--to-configmap "ns/": give NAME, or NAMESPACE/NAME`},
		{"YAML to a ConfigMap", append(dump, "--shard", "0/2", "--to-configmap", "a", "-o", "yaml"), "--to-configmap stores the shard's report as JSON, and prints nothing of -o yaml: leave -o out, or give -o json"},
		{"a page of a shard", append(dump, "--shard", "0/2", "--to-configmap", "a", "--html", "a.html"), "--junit and --html are the merge's"},
		{"not a shard", append(dump, "--to-configmap", "a"), "--to-configmap stores a shard's report for admit audit merge --from-configmaps: give --shard INDEX/COUNT, or run in an Indexed Job (JOB_COMPLETION_INDEX and ADMIT_AUDIT_SHARDS)"},
		{"no kubeconfig for the ConfigMap", append(dump, "--shard", "0/2", "--to-configmap", "a"), "no kubeconfig: give --kubeconfig, set KUBECONFIG"},
		{"merge: nothing", []string{"audit", "merge"}, "no report to merge: give the shards' reports (files or directories), or --from-configmaps NAME"},
		{"merge: a cluster for nothing", []string{"audit", "merge", "--in-cluster", "shard.json"}, "--in-cluster: nothing reaches the cluster without --from-configmaps, --to-configmap or --apply-policy-reports"},
		{"merge: two credentials", []string{"audit", "merge", "--in-cluster", "--kubeconfig", "kc", "--from-configmaps", "a"}, "--in-cluster and --kubeconfig name two ways to the cluster: give one"},
		{"merge: a format", []string{"audit", "merge", "--from-configmaps", "a", "--apply-policy-reports", "kyverno"}, `--apply-policy-reports "kyverno": give auto, policyreport or openreports`},
		{"merge: a ConfigMap path", []string{"audit", "merge", "--from-configmaps", "/a"}, `--from-configmaps "/a": give NAME, or NAMESPACE/NAME`},
		{"merge: outside a pod", []string{"audit", "merge", "--in-cluster", "--from-configmaps", "a"}, "--in-cluster: unable to load in-cluster configuration"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runAudit(t, context.Background(), tt.args[1:]...)
			if code != ExitBadInput || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q\nstdout: %s", code, stderr, tt.want, stdout)
			}
		})
	}
}

// A shard asks whether it may store its report before it audits, in the kubeconfig context's
// namespace, so that an unreachable cluster or a missing permission fails at once rather than
// after the audit.
func TestAuditShardStoreReachedFirst(t *testing.T) {
	kubeconfig := writeKubeconfig(t, "team-a")
	t.Setenv("KUBECONFIG", kubeconfig)
	_, stderr, code := runAudit(t, context.Background(), "-f", "../../examples/audit/dump.yaml", "--webhooks", "../../examples/audit/deny.yaml",
		"--shard", "1/2", "--to-configmap", "nightly", "--request-timeout", "5s")
	want := "--to-configmap nightly: asking whether ConfigMaps of namespace team-a can be written"
	if code != ExitBadInput || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr, want)
	}
}

// writeKubeconfig writes a kubeconfig of a cluster nothing listens at, its context in namespace
// ("" for none).
func writeKubeconfig(t *testing.T, namespace string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	config := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"c": {Server: "https://127.0.0.1:1"}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"u": {Token: "t"}},
		Contexts:       map[string]*clientcmdapi.Context{"c": {Cluster: "c", AuthInfo: "u", Namespace: namespace}},
		CurrentContext: "c",
	}
	if err := clientcmd.WriteToFile(config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// A ConfigMap named without its namespace is in the kubeconfig context's, "default" when it
// names none, and in a pod, the pod's own.
func TestConfigMapNamespace(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	for _, tt := range []struct {
		name, namespace, want string
	}{
		{"the context's", "team-a", "team-a"},
		{"none", "", "default"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns, err := clusterAccess{kubeconfig: writeKubeconfig(t, tt.namespace)}.namespace(nil)
			if err != nil {
				t.Fatal(err)
			}
			if ns != tt.want {
				t.Errorf("namespace %q, want %q", ns, tt.want)
			}
		})
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "namespace"), []byte("admit-audit\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "namespace"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, tt := range []struct {
		name    string
		getenv  func(string) string
		dir     string
		want    string
		wantErr string
	}{
		{"the ServiceAccount's", env(nil), dir, "admit-audit", ""},
		{"no environment", nil, dir, "admit-audit", ""},
		{"the downward API's", env(map[string]string{"POD_NAMESPACE": "elsewhere"}), dir, "elsewhere", ""},
		{"not in a pod", env(nil), t.TempDir(), "", "the pod's namespace: open "},
		{"an empty file", env(nil), empty, "", "the pod's namespace: " + filepath.Join(empty, "namespace") + " is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := podNamespace(tt.getenv, tt.dir)
			if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("podNamespace = %q, %v; want %q, %q", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseConfigMapRef(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  configMapRef
		ok    bool
	}{
		{"reports", configMapRef{name: "reports"}, true},
		{"admit-audit/reports", configMapRef{namespace: "admit-audit", name: "reports"}, true},
		{"", configMapRef{}, false},
		{"/reports", configMapRef{}, false},
		{"a/b/c", configMapRef{}, false},
	} {
		got, err := parseConfigMapRef("--to-configmap", tt.value)
		if (err == nil) != tt.ok {
			t.Errorf("%q: error %v, want ok %v", tt.value, err, tt.ok)
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(configMapRef{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.value, diff)
		}
	}
}
