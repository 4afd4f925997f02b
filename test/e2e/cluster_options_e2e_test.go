//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/internal/testenv"
)

// TestClusterOptionsMatchTheAPIServer starts a kube-apiserver with options that change admission
// — privileged containers refused, AlwaysPullImages enabled, PodSecurity's cluster-wide default
// from an admission configuration file — and compares its answers to dry-run writes with those
// of admit review given the same options and reading that cluster (--kubeconfig: its state is
// whole, so a namespace it lacks is the apiserver's 404).
func TestClusterOptionsMatchTheAPIServer(t *testing.T) {
	dir := t.TempDir()
	admissionConfig := filepath.Join(dir, "admission.yaml")
	if err := os.WriteFile(admissionConfig, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: baseline, enforce-version: latest}
    exemptions: {namespaces: [kube-system]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A configuration that matches none of the writes: the chain around the webhooks is what is
	// compared.
	unrelated := filepath.Join(dir, "webhooks.yaml")
	if err := os.WriteFile(unrelated, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: leases-only}
webhooks:
- name: leases.e2e.admit.dev
  clientConfig: {url: "https://127.0.0.1:1/validate"}
  rules: [{apiGroups: [coordination.k8s.io], apiVersions: [v1], resources: [leases], operations: [CREATE]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	options := []string{"--allow-privileged=false", "--enable-admission-plugins=AlwaysPullImages", "--admission-control-config-file=" + admissionConfig}
	ctx := context.Background()
	cluster, err := testenv.Start(ctx, testenv.Options{APIServerFlags: options})
	if err != nil {
		t.Fatalf("starting a kube-apiserver with %v: %v", options, err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(); err != nil {
			t.Error(err)
		}
	})
	client, err := dynamic.NewForConfig(cluster.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}

	pod := func(spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec: " + spec + "\n"
	}
	tests := []struct {
		name     string
		object   string
		wantCode int32 // 0: admitted
		// wantPullPolicy is the admitted pod's first container's imagePullPolicy.
		wantPullPolicy string
	}{
		{name: "a privileged container under --allow-privileged=false", object: pod("{containers: [{name: app, image: nginx:1.27, securityContext: {privileged: true}}]}"), wantCode: 422},
		{name: "host networking under PodSecurity's default baseline", object: pod("{hostNetwork: true, containers: [{name: app, image: nginx:1.27}]}"), wantCode: 403},
		{name: "a tagged image under AlwaysPullImages", object: pod("{containers: [{name: app, image: nginx:1.27}]}"), wantPullPolicy: "Always"},
		{name: "a namespace the cluster does not have", object: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ghost}\ndata: {k: v}\n", wantCode: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj unstructured.Unstructured
			if err := yaml.Unmarshal([]byte(tt.object), &obj.Object); err != nil {
				t.Fatal(err)
			}
			gvr := schema.GroupVersionResource{Version: "v1", Resource: strings.ToLower(obj.GetKind()) + "s"}
			created, err := client.Resource(gvr).Namespace(obj.GetNamespace()).Create(ctx, &obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			var apiCode int32
			var apiMessage string
			var status apierrors.APIStatus
			switch {
			case errors.As(err, &status):
				apiCode, apiMessage = status.Status().Code, status.Status().Message
			case err != nil:
				t.Fatal(err)
			}
			if apiCode != tt.wantCode {
				t.Fatalf("kube-apiserver answered %d %q, want %d", apiCode, apiMessage, tt.wantCode)
			}

			file := filepath.Join(t.TempDir(), "object.yaml")
			if err := os.WriteFile(file, []byte(tt.object), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"review", "-f", file, "--kubeconfig", cluster.KubeconfigPath, "--dry-run=server", "-o", "json",
				"--webhooks", unrelated}, options...)
			cmd := exec.Command(admitBinary(t), args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 1 {
					t.Fatalf("admit review: %v\n%s", err, stderr.String())
				}
			}
			var result struct {
				Allowed bool            `json:"allowed"`
				Status  *metav1.Status  `json:"status"`
				Object  json.RawMessage `json:"object"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &result); err != nil {
				t.Fatalf("admit review -o json: %v\n%s", err, stdout.String())
			}
			var admitCode int32
			var admitMessage string
			if result.Status != nil {
				admitCode, admitMessage = result.Status.Code, result.Status.Message
			}
			if admitCode != apiCode || admitMessage != apiMessage {
				t.Errorf("admit review answered %d %q; kube-apiserver %d %q", admitCode, admitMessage, apiCode, apiMessage)
			}
			if tt.wantPullPolicy != "" {
				var admitted unstructured.Unstructured
				if err := json.Unmarshal(result.Object, &admitted.Object); err != nil {
					t.Fatal(err)
				}
				for side, o := range map[string]map[string]any{"kube-apiserver": created.Object, "admit review": admitted.Object} {
					containers, _, _ := unstructured.NestedSlice(o, "spec", "containers")
					if len(containers) == 0 || containers[0].(map[string]any)["imagePullPolicy"] != tt.wantPullPolicy {
						t.Errorf("%s: containers %v, want imagePullPolicy %s", side, containers, tt.wantPullPolicy)
					}
				}
			}
		})
	}
}
