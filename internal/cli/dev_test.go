package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDevClusterErrors(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.yaml")
	if err := os.WriteFile(hooks, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v}
webhooks:
- name: a.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://127.0.0.1:9443/validate"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A cluster on a loopback port nothing listens on.
	unreachable := filepath.Join(dir, "unreachable.kubeconfig")
	if err := os.WriteFile(unreachable, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
users: [{name: u, user: {token: x}}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		kubeconfig string // $KUBECONFIG
		args       []string
		code       int
		want       string
	}{
		{"no kubeconfig anywhere", "", nil, ExitBadInput, "no kubeconfig: give --kubeconfig, set KUBECONFIG, or create ~/.kube/config"},
		{"$KUBECONFIG, as kubectl reads it", unreachable, nil, 1, "reaching the cluster at https://127.0.0.1:1"},
		{"--kubeconfig", "", []string{"--kubeconfig", unreachable}, 1, "reaching the cluster at https://127.0.0.1:1"},
		{"an unknown context", unreachable, []string{"--context", "nope"}, ExitBadInput, `reading the kubeconfig: context "nope" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir()) // no ~/.kube/config
			t.Setenv("KUBECONFIG", tt.kubeconfig)
			var out, errOut bytes.Buffer
			code := Run(context.Background(), append([]string{"dev", "--webhooks", hooks}, tt.args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			if code != tt.code || !strings.Contains(errOut.String(), tt.want) {
				t.Fatalf("exit code %d, stderr %q; want %d and %q", code, errOut.String(), tt.code, tt.want)
			}
			// Nothing was applied: no clean-up to report, and the cause comes first.
			if strings.Contains(errOut.String(), "cleaning up") || strings.Contains(errOut.String(), "applied") {
				t.Errorf("stderr speaks of a clean-up or an apply: %q", errOut.String())
			}
		})
	}
}
