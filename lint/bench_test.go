package lint

import (
	"path/filepath"
	"testing"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/resources"
)

// BenchmarkRun lints the three realistic sets together (5 configurations, 7 webhooks, their
// Namespaces, Services, Deployments and certificates), with the resource mapper built once as a
// long-running caller would.
func BenchmarkRun(b *testing.B) {
	set, err := config.Load(config.Options{},
		filepath.Join("testdata", "realistic", "cert-manager"),
		filepath.Join("testdata", "realistic", "policy-engine"),
		filepath.Join("testdata", "realistic", "sidecar-injector"))
	if err != nil {
		b.Fatal(err)
	}
	mapper, err := resources.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Now: fixtureNow, Resources: mapper}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(set, opts); err != nil {
			b.Fatal(err)
		}
	}
}
