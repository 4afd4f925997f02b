package lint

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestRealisticSets lints configurations shaped like well-known webhooks, each with its
// Namespace, Service, Deployment and certificates, and compares the full text report with the
// expected findings in testdata/realistic/<set>.golden.
func TestRealisticSets(t *testing.T) {
	for _, set := range []string{"cert-manager", "policy-engine", "sidecar-injector"} {
		t.Run(set, func(t *testing.T) {
			findings := lintFiles(t, Options{}, filepath.Join("testdata", "realistic", set))
			var out bytes.Buffer
			if err := WriteText(&out, findings, Info); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "realistic", set+".golden"), out.String())
		})
	}
}
