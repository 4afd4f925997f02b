//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/internal/lockedbuf"
)

// TestServeBuiltinWebhooks runs `admit serve` as a process, applies its --print-config output
// (URL mode) with kubectl, and has the real apiserver call the three built-in webhooks.
func TestServeBuiltinWebhooks(t *testing.T) {
	ctx := context.Background()
	admit := admitBinary(t)
	ns, selector := newNamespace(t, "serve")
	dir := t.TempDir()
	certDir := filepath.Join(dir, "tls")
	if out, err := exec.Command(admit, "certs", "create", "--ip", "127.0.0.1", "--out", certDir).CombinedOutput(); err != nil {
		t.Fatalf("admit certs create: %v\n%s", err, out)
	}
	port, healthPort := freePort(t), freePort(t)
	serveEnv := append(os.Environ(),
		"ADMIT_IMAGE_MIRRORS=docker.io=mirror.local/hub,quay.io=mirror.local/quay",
		"ADMIT_REQUIRED_LABELS=ConfigMap=team",
	)

	// --print-config, scoped to this test's namespaces.
	printCmd := exec.Command(admit, "serve", "--print-config", "--url", "https://127.0.0.1:"+strconv.Itoa(port), "--cert-dir", certDir, "--config-name", "admit-"+ns)
	printCmd.Env = serveEnv
	configs, err := printCmd.Output()
	if err != nil {
		t.Fatalf("admit serve --print-config: %v", err)
	}
	scoped := scopeConfigurations(t, configs, selector)
	if _, stderr, err := env.Kubectl(ctx, scoped, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, stderr)
	}
	t.Cleanup(func() {
		_, _, _ = env.Kubectl(context.Background(), scoped, "delete", "--ignore-not-found", "-f", "-")
	})

	var stderr lockedbuf.Buffer
	serve := exec.Command(admit, "serve", "--cert-dir", certDir, "--addr", "127.0.0.1:"+strconv.Itoa(port),
		"--health-addr", "127.0.0.1:"+strconv.Itoa(healthPort), "--drain-delay", "0s", "--log-format", "text")
	serve.Env = serveEnv
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() { _ = serve.Process.Kill() })
	waitServeReady(t, healthPort)
	eventually(t, "the configurations to take effect", func() error {
		_, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "marker"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "configmaps.required-labels.admit.dev") {
			return fmt.Errorf("marker not denied yet: %v", err)
		}
		return nil
	})

	t.Run("a Deployment's images are rewritten to the mirrors", func(t *testing.T) {
		manifest := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ` + ns + `
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
      - {name: exporter, image: "quay.io/prometheus/node-exporter:v1.8.0"}
      - {name: internal, image: "registry.internal.example/app:2"}
`
		_, kubectlErr, err := env.Kubectl(ctx, []byte(manifest), "create", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, string(kubectlErr), `image "nginx:1.27" rewritten to "mirror.local/hub/library/nginx:1.27"`)
		d, err := env.Client.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var images []string
		for _, c := range d.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
		want := []string{"mirror.local/hub/library/nginx:1.27", "mirror.local/quay/prometheus/node-exporter:v1.8.0", "registry.internal.example/app:2"}
		if strings.Join(images, ",") != strings.Join(want, ",") {
			t.Fatalf("images = %v, want %v", images, want)
		}
	})

	t.Run("a ConfigMap without the required label is rejected with 422 causes", func(t *testing.T) {
		_, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{})
		var status *apierrors.StatusError
		if !errors.As(err, &status) || status.ErrStatus.Code != 422 {
			t.Fatalf("create = %v, want a 422", err)
		}
		mustContain(t, status.ErrStatus.Message, `admission webhook "configmaps.required-labels.admit.dev" denied the request: ConfigMap "settings" is invalid: metadata.labels[team]: Required value`)
		if d := status.ErrStatus.Details; d == nil || len(d.Causes) != 1 || d.Causes[0].Field != "metadata.labels[team]" {
			t.Fatalf("causes = %+v", status.ErrStatus.Details)
		}
		_, kubectlErr, err := env.Kubectl(ctx, nil, "create", "configmap", "settings2", "-n", ns)
		if err == nil {
			t.Fatal("kubectl created a ConfigMap without the team label")
		}
		mustContain(t, string(kubectlErr), "metadata.labels[team]: Required value")
		if _, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "labelled", Labels: map[string]string{"team": "web"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("labelled ConfigMap refused: %v", err)
		}
	})

	t.Run("a protected namespace cannot be deleted", func(t *testing.T) {
		labels := map[string]string{"admit.dev/protected": "true"}
		for k, v := range selector {
			labels[k] = v
		}
		name := ns + "-protected"
		if _, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, kubectlErr, err := env.Kubectl(ctx, nil, "delete", "namespace", name)
		if err == nil {
			t.Fatal("kubectl deleted a protected namespace")
		}
		mustContain(t, string(kubectlErr), `admission webhook "namespace-protection.admit.dev" denied the request`, "kubectl label namespace "+name+" admit.dev/protected-")
		if _, _, err := env.Kubectl(ctx, nil, "label", "namespace", name, "admit.dev/protected-"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := env.Kubectl(ctx, nil, "delete", "namespace", name, "--wait=false"); err != nil {
			t.Fatalf("unprotected namespace not deletable: %v", err)
		}
	})

	if err := serve.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("admit serve after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(40 * time.Second):
		t.Fatal("admit serve did not stop after SIGTERM")
	}
	mustContain(t, stderr.String(), "webhook server draining", "webhook server stopped")
}

// scopeConfigurations restricts every webhook in a YAML stream of configurations to the
// namespaces carrying selector, so the test cannot affect others.
func scopeConfigurations(t *testing.T, stream []byte, selector map[string]string) []byte {
	t.Helper()
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	var out [][]byte
	for {
		var head metav1.TypeMeta
		var raw map[string]any
		if err := decoder.Decode(&raw); err != nil {
			break
		}
		doc, err := yaml.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatal(err)
		}
		var obj any
		switch head.Kind {
		case "MutatingWebhookConfiguration":
			var c admissionregistrationv1.MutatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				t.Fatal(err)
			}
			for i := range c.Webhooks {
				c.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
			}
			obj = &c
		case "ValidatingWebhookConfiguration":
			var c admissionregistrationv1.ValidatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				t.Fatal(err)
			}
			for i := range c.Webhooks {
				c.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
			}
			obj = &c
		default:
			t.Fatalf("unexpected %s in --print-config output", head.Kind)
		}
		b, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if len(out) != 2 {
		t.Fatalf("--print-config printed %d configurations, want a mutating and a validating one", len(out))
	}
	return bytes.Join(out, []byte("---\n"))
}
