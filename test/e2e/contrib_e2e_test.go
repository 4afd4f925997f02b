//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/internal/loopback"
)

// TestControllerRuntimeMountBehindTheAPIServer runs contrib/controllerruntime's example, an
// operator's controller-runtime webhook server with admit's Registry mounted on it, behind the
// real kube-apiserver: the configuration the Registry prints is accepted, and a Pod created
// through the apiserver comes back with the label admit's handler patched in.
func TestControllerRuntimeMountBehindTheAPIServer(t *testing.T) {
	ctx := context.Background()
	ns, selector := newNamespace(t, "contrib")

	bin := labellerPath
	dir, _ := loopback.Certs(t, "admit-e2e-contrib")
	port := freePort(t)
	url := "https://127.0.0.1:" + strconv.Itoa(port)

	server := exec.Command(bin, "--cert-dir", dir, "--port", strconv.Itoa(port))
	server.Stdout, server.Stderr = os.Stderr, os.Stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = server.Process.Signal(os.Interrupt)
		_ = server.Wait()
	})
	eventually(t, "the controller-runtime server to serve TLS", func() error {
		conn, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a readiness probe
		if err != nil {
			return err
		}
		return conn.Close()
	})

	printed, err := exec.Command(bin, "--cert-dir", dir, "--print-config", "--url", url, "--config-name", "labeller-"+ns).Output()
	if err != nil {
		t.Fatalf("--print-config: %v", err)
	}
	var config admissionregistrationv1.MutatingWebhookConfiguration
	if err := yaml.UnmarshalStrict(printed, &config); err != nil {
		t.Fatalf("the printed configuration: %v\n%s", err, printed)
	}
	for i := range config.Webhooks {
		config.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
	}
	configs := env.Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if _, err := configs.Create(ctx, &config, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the printed configuration: %v", err)
	}
	t.Cleanup(func() { _ = configs.Delete(context.Background(), config.Name, metav1.DeleteOptions{}) })

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "labelled"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
	}
	eventually(t, "the Pod to come back labelled by the mounted handler", func() error {
		created, err := env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return err
		}
		if got := created.Labels["seen-by"]; got != "admit" {
			return fmt.Errorf("label seen-by = %q, want admit (labels %v)", got, created.Labels)
		}
		return nil
	})
}
