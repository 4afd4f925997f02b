package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseMergeKeys reads merge keys as kubectl does: a key that overrides a merged one is
// not a duplicate; a key repeated in one mapping still is.
func TestParseMergeKeys(t *testing.T) {
	const merged = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: merged}
webhooks:
- &base
  name: a.example.com
  clientConfig: {url: "https://a.example.com/"}
  sideEffects: None
  admissionReviewVersions: [v1]
- <<: *base
  name: b.example.com
`
	set, err := Parse("merged.yaml", []byte(merged))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var names []string
	for _, w := range set.Validating[0].Config.Webhooks {
		names = append(names, w.Name+" "+*w.ClientConfig.URL)
	}
	if diff := cmp.Diff([]string{"a.example.com https://a.example.com/", "b.example.com https://a.example.com/"}, names); diff != "" {
		t.Errorf("webhooks (-want +got):\n%s", diff)
	}

	duplicate := strings.Replace(merged, "  name: b.example.com\n", "  name: b.example.com\n  name: c.example.com\n", 1)
	if _, err := Parse("duplicate.yaml", []byte(duplicate)); err == nil || !strings.Contains(err.Error(), "already set") {
		t.Errorf("a repeated key: err = %v, want a duplicate-key error", err)
	}
}

// TestParseTemplateHint says to render a file that looks like a Helm template.
func TestParseTemplateHint(t *testing.T) {
	const chart = "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n    {{- include \"labels\" . | nindent 4 }}\n"
	_, err := Parse("service.yaml", []byte(chart))
	if err == nil || !strings.Contains(err.Error(), "service.yaml: this looks like a template") {
		t.Errorf("err = %v, want the template hint", err)
	}
	if _, err := Parse("plain.yaml", []byte("apiVersion: v1\nkind: [\n")); err != nil && strings.Contains(err.Error(), "template") {
		t.Errorf("a plain syntax error got the template hint: %v", err)
	}
}

// TestLoadKeepGoing returns what read along with the error about what did not.
func TestLoadKeepGoing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("kind: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := "apiVersion: v1\nkind: Namespace\nmetadata: {name: example}\n"
	if err := os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if set, err := Load(Options{}, dir); err == nil || set != nil {
		t.Errorf("Load without KeepGoing = %v, %v; want no set and an error", set, err)
	}
	set, err := Load(Options{KeepGoing: true}, dir)
	if err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("err = %v, want one naming bad.yaml", err)
	}
	if set == nil || len(set.Others) != 1 || set.Others[0].Object.GetName() != "example" {
		t.Errorf("set = %+v, want the Namespace of good.yaml", set)
	}
}
