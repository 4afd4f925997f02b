//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/internal/lockedbuf"
	"github.com/admitkit/admit/webhook"
)

// TestDevPointsTheClusterAtALocalServerAndCleansUp runs `admit dev` as a process against the
// real apiserver, with the quickstart webhooks served from this test on the port admit dev
// configured, and checks that the configurations exist only while admit dev runs.
func TestDevPointsTheClusterAtALocalServerAndCleansUp(t *testing.T) {
	for _, stop := range []string{"interrupt", "command exits"} {
		t.Run(stop, func(t *testing.T) {
			ctx := context.Background()
			ns, selector := newNamespace(t, "dev")
			registry, err := quickstart.NewRegistry(webhook.HTTPOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// The service-mode configuration a project would ship, scoped to this test's namespace.
			configYAML, err := registry.ConfigurationsYAML(webhook.ConfigOptions{Name: "quickstart-" + ns, ClientConfig: webhook.ClientConfig{Service: "quickstart", Namespace: "quickstart-system"}})
			if err != nil {
				t.Fatal(err)
			}
			configYAML = scopeConfigurations(t, configYAML, selector)
			dir := t.TempDir()
			configFile := filepath.Join(dir, "webhooks.yaml")
			if err := os.WriteFile(configFile, configYAML, 0o600); err != nil {
				t.Fatal(err)
			}
			certDir := filepath.Join(dir, "certs")
			doneFile := filepath.Join(dir, "done")
			port := freePort(t)

			command := []string{"sleep", "300"}
			if stop == "command exits" {
				command = []string{"sh", "-c", "while [ ! -f " + doneFile + " ]; do sleep 0.1; done; echo cert dir $ADMIT_DEV_CERT_DIR"}
			}
			args := append([]string{"dev", "--kubeconfig", env.KubeconfigPath, "--webhooks", configFile, "--port", strconv.Itoa(port), "--cert-dir", certDir, "--"}, command...)
			var stdout, stderr lockedbuf.Buffer
			dev := exec.Command(admitBinary(t), args...)
			dev.Stdout, dev.Stderr = &stdout, &stderr
			if err := dev.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- dev.Wait() }()
			t.Cleanup(func() {
				_ = dev.Process.Kill()
			})

			sessionSelector := metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=admit-dev"}
			eventually(t, "admit dev to apply the configurations", func() error {
				ms, err := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, sessionSelector)
				if err != nil {
					return err
				}
				if len(ms.Items) == 0 {
					return fmt.Errorf("none yet; admit dev says: %s", stderr.String())
				}
				if got := *ms.Items[0].Webhooks[0].ClientConfig.URL; got != "https://127.0.0.1:"+strconv.Itoa(port)+"/mutate-core-v1-pod" {
					return fmt.Errorf("url %q", got)
				}
				return nil
			})

			// Serve the webhooks where admit dev pointed them, with the certificate it made.
			server, err := webhook.NewServer(webhook.ServerOptions{
				Addr: "127.0.0.1:" + strconv.Itoa(port), Handler: registry,
				CertFile: filepath.Join(certDir, certs.CertFileName), KeyFile: filepath.Join(certDir, certs.KeyFileName),
			})
			if err != nil {
				t.Fatal(err)
			}
			serveCtx, stopServing := context.WithCancel(ctx)
			served := make(chan error, 1)
			go func() { served <- server.Run(serveCtx) }()
			defer func() { stopServing(); <-served }()

			eventually(t, "the local server to decide creates", func() error {
				_, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Data: map[string]string{"Bad_Key": "x"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if err == nil || !strings.Contains(err.Error(), `admission webhook "configmap-keys.quickstart.admit.dev" denied the request`) {
					return fmt.Errorf("not denied by the local server yet: %v", err)
				}
				return nil
			})
			pod, err := env.Client.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if pod.Labels[quickstart.InjectedLabel] != "true" || len(pod.Spec.Containers) != 2 {
				t.Fatalf("pod not mutated by the local server: labels %v, %d containers", pod.Labels, len(pod.Spec.Containers))
			}

			if stop == "interrupt" {
				if err := dev.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(doneFile, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("admit dev: %v\n%s", err, stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("admit dev did not exit; stderr:\n%s", stderr.String())
			}
			if stop == "command exits" && !strings.Contains(stdout.String(), "cert dir "+certDir) {
				t.Fatalf("COMMAND did not get ADMIT_DEV_CERT_DIR: %q", stdout.String())
			}
			ms, err := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, sessionSelector)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, sessionSelector)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms.Items)+len(vs.Items) != 0 {
				t.Fatalf("%d configurations left after admit dev exited; stderr:\n%s", len(ms.Items)+len(vs.Items), stderr.String())
			}
			if !strings.Contains(stderr.String(), "admit: deleted 2 webhook configurations") {
				t.Fatalf("stderr does not report the clean-up:\n%s", stderr.String())
			}
		})
	}
}
