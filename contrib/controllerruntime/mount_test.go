package controllerruntime

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/webhook"
)

func registry(t *testing.T) *webhook.Registry {
	t.Helper()
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	err := reg.Register(webhook.Webhook{Name: "labels.example.com", Type: webhook.TypeMutating, Kind: corev1.SchemeGroupVersion.WithKind("Pod"), Resource: "pods",
		Handler: webhook.DefaultingHandler[*corev1.Pod](webhook.DefaulterFunc[*corev1.Pod](func(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
			pod.Labels = map[string]string{"seen-by": "admit"}
			return []string{"labelled"}, nil
		}))})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// startServer runs controller-runtime's webhook server on loopback with a throwaway CA.
func startServer(t *testing.T, mount func(ctrlwebhook.Server)) (string, *x509.CertPool) {
	t.Helper()
	ctrllog.SetLogger(logr.Discard())
	ca, err := certs.NewCA("controllerruntime test", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := certs.WriteFiles(dir, ca, kp); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	server := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir})
	mount(server)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("controller-runtime's server: %v", err)
		}
	})
	pool := x509.NewCertPool()
	pool.AddCert(ca.Certificate())
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("controller-runtime's server did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "https://" + addr, pool
}

func TestMountServesTheRegistry(t *testing.T) {
	reg := registry(t)
	base, pool := startServer(t, func(s ctrlwebhook.Server) {
		if err := Mount(s, reg); err != nil {
			t.Fatal(err)
		}
	})
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop"},"spec":{"containers":[{"name":"web","image":"nginx"}]}}`
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "u-1", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: "shop", Name: "web",
			Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: []byte(pod)}},
	}
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	resp, err := client.Post(base+reg.Webhooks()[0].Path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal(answer, &got); err != nil || got.Response == nil {
		t.Fatalf("answer %s: %s", resp.Status, answer)
	}
	if got.Response.UID != "u-1" || !got.Response.Allowed || !strings.Contains(string(got.Response.Patch), `"seen-by":"admit"`) ||
		len(got.Response.Warnings) != 1 {
		t.Errorf("response %+v, patch %s", got.Response, got.Response.Patch)
	}
	// Paths the registry does not serve are controller-runtime's 404.
	resp, err = client.Post(base+"/mutate-core-v1-configmap", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unregistered path answered %s", resp.Status)
	}
}

func TestMountRefusals(t *testing.T) {
	startServer(t, func(s ctrlwebhook.Server) {
		if err := Mount(s, webhook.NewRegistry(webhook.HTTPOptions{})); err == nil || !strings.Contains(err.Error(), "it has no webhooks yet") {
			t.Errorf("an empty registry: %v", err)
		}
		if err := Mount(nil, registry(t)); err == nil {
			t.Error("a nil server was accepted")
		}
		if err := Mount(s, registry(t)); err != nil {
			t.Fatal(err)
		}
		if err := Mount(s, registry(t)); err == nil || !strings.Contains(err.Error(), "/mutate-core-v1-pod") {
			t.Errorf("the same paths twice: %v", err)
		}
	})
}
