package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuildKustomization builds a kustomization that patches a base, as projects build their
// releases, and lints the output instead of the files.
func TestBuildKustomization(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"config/base/kustomization.yaml": "resources: [webhook.yaml]\n",
		"config/base/webhook.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: validating-webhook-configuration}
webhooks:
- name: vpod.example.com
  clientConfig: {service: {name: webhook-service, namespace: system, path: /validate}}
  rules: [{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`,
		"config/default/kustomization.yaml": `namePrefix: example-
resources: [../base]
patches:
- target: {kind: ValidatingWebhookConfiguration}
  patch: |-
    - op: add
      path: /webhooks/0/namespaceSelector
      value: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]}
`,
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := materialized{Root: root, LintPaths: []string{"config"}}
	if err := buildKustomization(&m, "config/default"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"config/default/" + kustomizeOutput}, m.LintPaths); diff != "" {
		t.Errorf("LintPaths (-want +got):\n%s", diff)
	}
	out, err := os.ReadFile(filepath.Join(root, m.LintPaths[0]))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"name: example-validating-webhook-configuration", "namespaceSelector:", "kube-system"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the build lacks %q:\n%s", want, out)
		}
	}

	if err := buildKustomization(&materialized{Root: root}, "config/missing"); err == nil || !strings.Contains(err.Error(), "kustomize build config/missing") {
		t.Errorf("a missing kustomization: err = %v, want one naming it", err)
	}
}
