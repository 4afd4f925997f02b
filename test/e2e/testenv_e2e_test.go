//go:build e2e

package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/internal/testenv"
)

// TestEnvServesClientGoAndKubectl writes with client-go and reads back with kubectl, so
// both the RESTConfig and the kubeconfig file are proven to reach the same apiserver.
func TestEnvServesClientGoAndKubectl(t *testing.T) {
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "testenv-smoke"}}
	if _, err := env.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "greeting", Namespace: ns.Name, Labels: map[string]string{"app": "admit"}},
		Data:       map[string]string{"hello": "world"},
	}
	if _, err := env.Client.CoreV1().ConfigMaps(ns.Name).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ConfigMap: %v", err)
	}

	stdout, _, err := env.Kubectl(ctx, nil, "get", "configmap", "greeting", "--namespace", ns.Name, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got corev1.ConfigMap
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("decoding kubectl output: %v\n%s", err, stdout)
	}
	type view struct {
		Name, Namespace string
		Labels, Data    map[string]string
	}
	want := view{"greeting", ns.Name, cm.Labels, cm.Data}
	if diff := cmp.Diff(want, view{got.Name, got.Namespace, got.Labels, got.Data}); diff != "" {
		t.Errorf("ConfigMap read by kubectl (-want +got):\n%s", diff)
	}
}

// TestEnvKubectlReadsStdin applies a manifest through stdin and reads it with client-go.
func TestEnvKubectlReadsStdin(t *testing.T) {
	ctx := t.Context()
	manifest := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"from-stdin","namespace":"default"},"data":{"k":"v"}}`)
	if _, _, err := env.Kubectl(ctx, manifest, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	got, err := env.Client.CoreV1().ConfigMaps("default").Get(ctx, "from-stdin", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the applied ConfigMap: %v", err)
	}
	if got.Data["k"] != "v" {
		t.Errorf("applied ConfigMap data = %v, want k=v", got.Data)
	}
}

// TestEnvServesAdmissionRegistration is what every webhook test relies on.
func TestEnvServesAdmissionRegistration(t *testing.T) {
	groups, err := env.Client.Discovery().ServerGroups()
	if err != nil {
		t.Fatalf("discovery: %v", err)
	}
	var versions []string
	for _, g := range groups.Groups {
		if g.Name == "admissionregistration.k8s.io" {
			for _, v := range g.Versions {
				versions = append(versions, v.GroupVersion)
			}
		}
	}
	if !slices.Contains(versions, "admissionregistration.k8s.io/v1") {
		t.Fatalf("admissionregistration.k8s.io versions served = %v, want admissionregistration.k8s.io/v1", versions)
	}
	// The kubectl view of discovery must agree.
	stdout, _, err := env.Kubectl(t.Context(), nil, "api-versions")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(splitLines(string(stdout)), "admissionregistration.k8s.io/v1") {
		t.Errorf("kubectl api-versions does not list admissionregistration.k8s.io/v1:\n%s", stdout)
	}
}

func splitLines(s string) []string {
	var lines []string
	for line := range strings.Lines(s) {
		lines = append(lines, strings.TrimSpace(line))
	}
	return lines
}

// TestStartReportsAPIServerFailure proves a broken apiserver fails Start quickly with the
// reason from its log, instead of a bare timeout.
func TestStartReportsAPIServerFailure(t *testing.T) {
	t.Parallel()
	broken, err := testenv.Start(t.Context(), testenv.Options{
		Logf:           t.Logf,
		APIServerFlags: []string{"--no-such-flag"},
	})
	if err == nil {
		broken.Stop()
		t.Fatal("Start succeeded with an unknown apiserver flag")
	}
	t.Logf("Start failed as expected:\n%v", err)
	for _, want := range []string{"kube-apiserver exited", "kube-apiserver.log", "unknown flag: --no-such-flag"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start error does not contain %q:\n%v", want, err)
		}
	}
}
