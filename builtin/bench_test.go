package builtin

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/webhook"
)

func BenchmarkRewrite(b *testing.B) {
	spec := testMirrors().ImageMirrors
	for _, bench := range []struct{ name, image string }{
		{"docker-hub", "nginx:1.27"},
		{"tag-and-digest", "quay.io/prometheus/node-exporter:v1.8.0@" + sha256Digest},
		{"no-mirror", "ghcr.io/org/app:1"},
	} {
		image := bench.image
		b.Run(bench.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := spec.Rewrite(image); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDemoDeployment measures one admission of the demo Deployment by the mirrors webhook,
// decoding, rewriting and patching included.
func BenchmarkDemoDeployment(b *testing.B) {
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := Register(r, DemoConfig()); err != nil {
		b.Fatal(err)
	}
	var h webhook.Handler
	for _, w := range r.Webhooks() {
		if w.Name == "deployments.apps.image-mirrors.admit.dev" {
			h = w.Handler
		}
	}
	raw, err := yaml.YAMLToJSON(DemoObjects()[DemoDeployment])
	if err != nil {
		b.Fatal(err)
	}
	req := &webhook.Request{}
	req.Operation = admissionv1.Create
	req.Kind.Group, req.Kind.Version, req.Kind.Kind = "apps", "v1", "Deployment"
	req.Object.Raw = raw
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Admit(context.Background(), req); resp.Outcome != webhook.OutcomePatched {
			b.Fatalf("outcome %v", resp.Outcome)
		}
	}
}
