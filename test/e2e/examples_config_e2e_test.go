//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/examples/operator"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/webhook"
)

// The webhook configurations every example's Registry writes pass admit lint at its default
// severity and kube-apiserver's own validation (a server-side dry run), in service and URL mode.
func TestExampleConfigurationsPassLintAndTheAPIServer(t *testing.T) {
	ca, err := certs.NewCA("examples", 365*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	quick, err := quickstart.NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := operator.NewRegistry(operator.Defaults{Image: "registry.example.com/cache:7.2"}, webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	registries := map[string]*webhook.Registry{"quickstart": quick, "operator": cache}
	clients := map[string]webhook.ClientConfig{
		"service": {Service: "example-webhook", Namespace: "example-system", CABundle: ca.CertPEM()},
		"url":     {URL: "https://192.0.2.10:9443", CABundle: ca.CertPEM()},
	}
	for example, reg := range registries {
		for mode, cc := range clients {
			t.Run(example+"/"+mode, func(t *testing.T) {
				manifest, err := reg.ConfigurationsYAML(webhook.ConfigOptions{Name: "example-" + example + "-" + mode, ClientConfig: cc})
				if err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(t.TempDir(), "webhooks.yaml")
				if err := os.WriteFile(file, manifest, 0o644); err != nil {
					t.Fatal(err)
				}
				lint := exec.Command(admitBinary(t), "lint", file)
				if out, err := lint.CombinedOutput(); err != nil {
					t.Errorf("admit lint of %s's configurations: %v\n%s\n%s", example, err, out, manifest)
				}
				if _, stderr, err := env.Kubectl(context.Background(), manifest, "apply", "--dry-run=server", "-f", "-"); err != nil {
					t.Errorf("kube-apiserver refuses %s's configurations: %v\n%s", example, err, stderr)
				}
			})
		}
	}
}
