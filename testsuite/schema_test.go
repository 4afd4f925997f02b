package testsuite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A path expected absent must name a field the kind can have: one that names none can never
// fail.
func TestFieldSchemas(t *testing.T) {
	preserve := true
	widget := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"size":   {Type: "integer"},
						"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
						"parts":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"weight": {Type: "integer"}}}}},
						"extra":  {Type: "object", XPreserveUnknownFields: &preserve},
					}},
				}}}}}},
	}
	s := newFieldSchemas([]*apiextensionsv1.CustomResourceDefinition{widget})
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	custom := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	unknown := schema.GroupVersionKind{Group: "other.example.com", Version: "v1", Kind: "Thing"}
	for _, tt := range []struct {
		gvk  schema.GroupVersionKind
		path string
		want string // "" when the path can name a field
	}{
		{deployment, "metadata.labels.tier", ""},
		{deployment, `metadata.labels["app.kubernetes.io/name"]`, ""},
		{deployment, "metadata.lables.tier", "metadata.lables.tier: Deployment (apps/v1) has no field metadata.lables"},
		{deployment, "spec.template.spec.containers[0].image", ""},
		{deployment, "spec.template.spec.containers[0].imagee", "spec.template.spec.containers[0].imagee: Deployment (apps/v1) has no field spec.template.spec.containers[0].imagee"},
		{deployment, "spec.replicas", ""},
		{deployment, "spec.replicas.count", "spec.replicas.count: Deployment (apps/v1) has no field spec.replicas.count"},
		{deployment, "metadata.creationTimestamp", ""},
		{deployment, "apiVersion", ""},
		{custom, "spec.size", ""},
		{custom, "spec.sise", "spec.sise: Widget (example.com/v1) has no field spec.sise"},
		{custom, "spec.labels.anything", ""},
		{custom, "spec.parts[1].weight", ""},
		{custom, "spec.parts[1].weigth", "spec.parts[1].weigth: Widget (example.com/v1) has no field spec.parts[1].weigth"},
		{custom, "spec.extra.whatever.below", ""},
		{custom, "metadata.annotations.x", ""},
		{custom, "metadata.annotation.x", "metadata.annotation.x: Widget (example.com/v1) has no field metadata.annotation"},
		{unknown, "spec.anything", ""},
	} {
		got := ""
		if err := s.check(tt.gvk, tt.path); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("check(%s, %s) = %q, want %q", tt.gvk.Kind, tt.path, got, tt.want)
		}
	}
}

// A case whose absent-field expectation names no field of the kind does not pass: its report
// says the expectation is wrong.
func TestRunRefusesVacuousExpectations(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "admit-test.yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: admit.dev/v1alpha1
kind: TestSuite
webhooks: [policy.yaml]
cases:
- name: misspelt
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
  expect: {allowed: true, fields: {metadata.lables.tier: null}}
- name: right
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
  expect: {allowed: true, fields: {metadata.labels.tier: null}, object: {data: null, dta: null}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  validations: [{expression: "true"}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	report := RunFile(context.Background(), path, Options{})
	got := map[string]string{}
	for _, c := range casesOf(t, report) {
		got[c.Name] = c.Error
	}
	want := map[string]string{
		"misspelt": "expected absent, which it always is: metadata.lables.tier: ConfigMap (v1) has no field metadata.lables",
		"right":    "expected absent, which it always is: dta: ConfigMap (v1) has no field dta",
	}
	if diff := cmp.Diff(want, got); diff != "" || report.Error != "" {
		t.Errorf("case errors (-want +got):\n%s\nfile error: %s", diff, report.Error)
	}
}
