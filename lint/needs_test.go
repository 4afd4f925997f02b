package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
)

func TestNeedsOf(t *testing.T) {
	set, err := config.Parse("needs.yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: b, annotations: {cert-manager.io/inject-ca-from: certs/serving}}
webhooks:
- {name: b.example.com, clientConfig: {service: {namespace: zeta, name: b}}, sideEffects: None, admissionReviewVersions: [v1]}
- {name: url.example.com, clientConfig: {url: "https://hooks.example.com/"}, sideEffects: None, admissionReviewVersions: [v1]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: a}
webhooks:
- {name: a.example.com, clientConfig: {service: {namespace: alpha, name: a}}, sideEffects: None, admissionReviewVersions: [v1]}
- {name: a2.example.com, clientConfig: {service: {namespace: zeta, name: a}}, sideEffects: None, admissionReviewVersions: [v1]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: limits}
spec:
  paramKind: {apiVersion: example.com/v1, kind: Limits}
  validations: [{expression: "true"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: limits-again}
spec:
  paramKind: {apiVersion: example.com/v1, kind: Limits}
  validations: [{expression: "true"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: defaults}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: "Object{}"}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: malformed}
spec:
  paramKind: {apiVersion: a/b/c, kind: Limits}
  validations: [{expression: "true"}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-policy, namespace: elsewhere}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Needs{
		ServerNamespaces:      []string{"alpha", "zeta"},
		CertificateNamespaces: []string{"certs"},
		ParamKinds:            []schema.GroupVersionKind{{Group: "example.com", Version: "v1", Kind: "Limits"}, {Version: "v1", Kind: "ConfigMap"}},
	}
	if diff := cmp.Diff(want, NeedsOf(set)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
