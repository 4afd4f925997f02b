package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSourceField locates fields of configurations in their files: top-level documents, the
// second document of a file, List items, and fields that are unset (the deepest part found).
func TestSourceField(t *testing.T) {
	const text = `# leading comment
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: first
webhooks:
- name: a.example.com
  clientConfig:
    url: https://a.example.com/
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 10
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfigurationList
items:
- metadata:
    name: second
  webhooks:
  - name: b.example.com
    clientConfig:
      url: https://b.example.com/
    sideEffects: None
    admissionReviewVersions: [v1]
`
	set, err := Parse("hooks.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Pos       Position
		Found, OK bool
	}
	field := func(s Source, path string) result {
		pos, found, ok := s.Field(path)
		return result{pos, found, ok}
	}
	first, second := set.Validating[0].Source, set.Mutating[0].Source
	for _, tc := range []struct {
		name   string
		source Source
		path   string
		want   result
	}{
		{"a set field", first, "webhooks[0].timeoutSeconds", result{Position{Line: 12, Column: 3}, true, true}},
		{"a nested field", first, "webhooks[0].clientConfig.url", result{Position{Line: 9, Column: 5}, true, true}},
		{"an unset field gives its webhook", first, "webhooks[0].namespaceSelector", result{Position{Line: 7, Column: 3}, false, true}},
		{"the second document", second, "webhooks[0].clientConfig", result{Position{Line: 21, Column: 5}, true, true}},
		{"an unset field of a List item", second, "webhooks[0].timeoutSeconds", result{Position{Line: 20, Column: 5}, false, true}},
		{"no text", Source{File: "x"}, "webhooks[0]", result{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, field(tc.source, tc.path)); diff != "" {
				t.Errorf("Field(%q) (-want +got):\n%s", tc.path, diff)
			}
		})
	}
}
