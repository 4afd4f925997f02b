//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/internal/loopback"
	"github.com/admitkit/admit/webhook"
)

// servedWebhooks is a webhook server on loopback that the apiserver can call.
type servedWebhooks struct {
	// URL is the server's base URL, e.g. https://127.0.0.1:43211.
	URL string
	// CABundle is the PEM CA the apiserver must trust.
	CABundle []byte
}

// serveWebhooks runs handler in a webhook.Server with a fresh CA until the test ends.
func serveWebhooks(t *testing.T, handler *webhook.Registry) servedWebhooks {
	t.Helper()
	dir, caBundle := loopback.Certs(t, "admit-e2e")
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: "127.0.0.1:0", CertFile: filepath.Join(dir, certs.CertFileName), KeyFile: filepath.Join(dir, certs.KeyFileName),
		Handler: handler, GracePeriod: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	runServer(t, server)
	return servedWebhooks{URL: "https://" + server.Addr().String(), CABundle: caBundle}
}

// runServer binds server and serves until the test ends, then checks it stopped cleanly.
func runServer(t *testing.T, server *webhook.Server) {
	t.Helper()
	if err := server.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
}

// newNamespace creates a namespace with a unique name and a label unique to the test, and a
// default ServiceAccount (no controller-manager runs to create it); it is deleted at the end.
func newNamespace(t *testing.T, prefix string) (name string, selector map[string]string) {
	t.Helper()
	name = prefix + "-" + rand.String(6)
	selector = map[string]string{"admit-e2e-test": name}
	ctx := context.Background()
	_, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: selector}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	_, err = env.Client.CoreV1().ServiceAccounts(name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the default service account in %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = env.Client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name, selector
}

// eventually retries check until it returns nil or the deadline passes. Webhook configurations
// take effect asynchronously (the apiserver's informer must see them), so tests wait for a
// readiness marker before asserting.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for {
		if err = check(); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after 30s: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// mustContain fails unless s contains every part.
func mustContain(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Fatalf("%q does not contain %q", s, p)
		}
	}
}

// admitBinary returns the admit binary TestMain provided (see internal/testbin).
func admitBinary(t testing.TB) string {
	t.Helper()
	if admitPath == "" {
		t.Fatal("no admit binary: TestMain provides it")
	}
	return admitPath
}

// admitPath and labellerPath are the admit binary and contrib/controllerruntime's example
// server, set by TestMain before any test starts its clock.
var admitPath, labellerPath string

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitServeReady waits until the `admit serve` whose health port is healthPort answers /readyz.
func waitServeReady(t *testing.T, healthPort int) {
	t.Helper()
	eventually(t, "admit serve to be ready", func() error {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(healthPort) + "/readyz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz %d", resp.StatusCode)
		}
		return nil
	})
}

// runAdmit runs the admit binary with args and returns its stdout, stderr and exit code.
func runAdmit(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(admitBinary(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("admit %s: %v", strings.Join(args, " "), err)
		}
		code = exit.ExitCode()
	}
	return out.String(), errOut.String(), code
}
