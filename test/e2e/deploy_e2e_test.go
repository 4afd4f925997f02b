//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// deployDir is the repository's deploy/ directory, seen from this package.
var deployDir = filepath.Join("..", "..", "deploy")

// certManagerCRDs stand in for cert-manager's CRDs: the apiserver only needs the kinds to exist
// to check the overlay's objects with a server-side dry run.
const certManagerCRDs = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.cert-manager.io
spec:
  group: cert-manager.io
  names: {kind: Certificate, listKind: CertificateList, plural: certificates, singular: certificate}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: issuers.cert-manager.io
spec:
  group: cert-manager.io
  names: {kind: Issuer, listKind: IssuerList, plural: issuers, singular: issuer}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

func TestDeployBaseWebhooksMatchPrintConfig(t *testing.T) {
	committed, err := os.ReadFile(filepath.Join(deployDir, "base", "webhooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	printed, err := exec.Command(admitBinary(t), "serve", "--print-config", "--service", "admit", "--namespace", "admit-system",
		"--webhooks", "namespace-protection", "--cert-dir", t.TempDir()).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(committed, printed) {
		t.Fatalf("deploy/base/webhooks.yaml is out of date; regenerate it with the command in its header.\nprinted:\n%s", printed)
	}
}

// TestDeployOverlaysAreAcceptedByTheAPIServer renders each overlay with kubectl kustomize,
// injects a CA bundle where the overlay says to, and has the real apiserver check every object
// with a server-side dry run.
func TestDeployOverlaysAreAcceptedByTheAPIServer(t *testing.T) {
	ctx := context.Background()
	admit := admitBinary(t)
	if _, stderr, err := env.Kubectl(ctx, []byte(certManagerCRDs), "apply", "-f", "-"); err != nil {
		t.Fatalf("installing stub cert-manager CRDs: %v\n%s", err, stderr)
	}
	eventually(t, "the cert-manager CRDs to be served", func() error {
		_, _, err := env.Kubectl(ctx, nil, "get", "certificates.cert-manager.io", "-A")
		return err
	})
	// Namespaced objects can only be dry-run into a namespace that exists.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "admit-system", Labels: map[string]string{"admit.dev/runlevel": "2"}}}
	if _, err := env.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.CoreV1().Namespaces().Delete(context.Background(), "admit-system", metav1.DeleteOptions{})
	})

	// Work on a copy: the self-signed overlay needs certificate files next to it.
	work := t.TempDir()
	if out, err := exec.Command("cp", "-r", deployDir, work).CombinedOutput(); err != nil {
		t.Fatalf("copying deploy/: %v: %s", err, out)
	}
	overlays := filepath.Join(work, "deploy", "overlays")
	tlsDir := filepath.Join(overlays, "self-signed", "tls")
	if out, err := exec.Command(admit, "certs", "create", "--host", "admit.admit-system.svc", "--out", tlsDir).CombinedOutput(); err != nil {
		t.Fatalf("admit certs create: %v: %s", err, out)
	}

	tests := []struct {
		overlay     string
		inject      bool
		wantObjects []string
	}{
		{"cert-manager", false, []string{"namespace/admit-system", "deployment.apps/admit", "poddisruptionbudget.policy/admit", "service/admit",
			"certificate.cert-manager.io/admit-serving", "issuer.cert-manager.io/admit-selfsigned", "validatingwebhookconfiguration.admissionregistration.k8s.io/admit"}},
		{"self-signed", true, []string{"secret/admit-tls-", "deployment.apps/admit", "validatingwebhookconfiguration.admissionregistration.k8s.io/admit"}},
		{"url", true, []string{"namespace/admit-system", "validatingwebhookconfiguration.admissionregistration.k8s.io/admit"}},
		{"rotator", false, []string{"deployment.apps/admit", "role.rbac.authorization.k8s.io/admit-cert-rotator", "clusterrole.rbac.authorization.k8s.io/admit-cert-rotator",
			"clusterrolebinding.rbac.authorization.k8s.io/admit-cert-rotator", "validatingwebhookconfiguration.admissionregistration.k8s.io/admit"}},
	}
	for _, tt := range tests {
		t.Run(tt.overlay, func(t *testing.T) {
			rendered, stderr, err := env.Kubectl(ctx, nil, "kustomize", filepath.Join(overlays, tt.overlay))
			if err != nil {
				t.Fatalf("kubectl kustomize: %v\n%s", err, stderr)
			}
			if tt.inject {
				cmd := exec.Command(admit, "certs", "inject", "--ca-file", filepath.Join(tlsDir, "ca.crt"), "-")
				cmd.Stdin = bytes.NewReader(rendered)
				if rendered, err = cmd.Output(); err != nil {
					t.Fatalf("admit certs inject: %v", err)
				}
				if !bytes.Contains(rendered, []byte("caBundle: ")) {
					t.Fatal("no caBundle after admit certs inject")
				}
			}
			lint := exec.Command(admit, "lint", "-")
			lint.Stdin = bytes.NewReader(rendered)
			if out, err := lint.CombinedOutput(); err != nil {
				t.Fatalf("admit lint of the rendered overlay: %v\n%s", err, out)
			}
			out, stderr, err := env.Kubectl(ctx, rendered, "apply", "--dry-run=server", "-f", "-")
			if err != nil {
				t.Fatalf("kubectl apply --dry-run=server: %v\n%s", err, stderr)
			}
			for _, want := range tt.wantObjects {
				if !strings.Contains(string(out), want) {
					t.Errorf("dry run output lacks %s:\n%s", want, out)
				}
			}
		})
	}
}

// TestDeployCertManagerOverlayInjectsEveryConfiguration regenerates the base's configurations
// as deploy/README.md says when more webhooks are enabled (a MutatingWebhookConfiguration
// appears) and checks that the cert-manager overlay has cainjector fill both.
func TestDeployCertManagerOverlayInjectsEveryConfiguration(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	if out, err := exec.Command("cp", "-r", deployDir, work).CombinedOutput(); err != nil {
		t.Fatalf("copying deploy/: %v: %s", err, out)
	}
	print := exec.Command(admitBinary(t), "serve", "--print-config", "--service", "admit", "--namespace", "admit-system",
		"--webhooks", "image-mirrors,required-labels,namespace-protection", "--cert-dir", t.TempDir())
	print.Env = append(os.Environ(), "ADMIT_IMAGE_MIRRORS=docker.io=mirror.local/hub", "ADMIT_REQUIRED_LABELS=ConfigMap=team")
	printed, err := print.Output()
	if err != nil {
		t.Fatalf("admit serve --print-config: %v", err)
	}
	if err := os.WriteFile(filepath.Join(work, "deploy", "base", "webhooks.yaml"), printed, 0o644); err != nil {
		t.Fatal(err)
	}
	rendered, stderr, err := env.Kubectl(ctx, nil, "kustomize", filepath.Join(work, "deploy", "overlays", "cert-manager"))
	if err != nil {
		t.Fatalf("kubectl kustomize: %v\n%s", err, stderr)
	}
	var injected []string
	for _, doc := range strings.Split(string(rendered), "\n---\n") {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(obj.Kind, "WebhookConfiguration") {
			injected = append(injected, obj.Kind+" "+obj.Metadata.Annotations["cert-manager.io/inject-ca-from"])
		}
	}
	want := []string{"MutatingWebhookConfiguration admit-system/admit-serving", "ValidatingWebhookConfiguration admit-system/admit-serving"}
	if diff := gocmp.Diff(want, injected); diff != "" {
		t.Errorf("configurations and their inject-ca-from annotation (-want +got):\n%s", diff)
	}
}
