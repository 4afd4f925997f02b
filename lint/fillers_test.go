package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEmptyBundleFillers grades E05 by who may fill in the caBundle: a workload of the input
// that can be this configuration's filler (in its server's namespace, or with a role naming
// it) silences it; one that may update every configuration of the kind from elsewhere, an
// unbound role or a ServiceAccount nothing runs as is only assumed to, and the finding says so.
func TestEmptyBundleFillers(t *testing.T) {
	const configuration = `
apiVersion: v1
kind: Service
metadata: {name: webhook, namespace: example-system}
spec:
  selector: {app: webhook}
  ports: [{port: 443, targetPort: 9443}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: webhook, namespace: example-system}
spec:
  replicas: 2
  selector: {matchLabels: {app: webhook}}
  template:
    metadata: {labels: {app: webhook}}
    spec:
      containers: [{name: webhook, image: example.com/webhook:1.0}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: example}
webhooks:
- name: pods.webhook.example.com
  clientConfig:
    service: {name: webhook, namespace: example-system, path: /validate}
  rules:
  - {apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}
  sideEffects: None
  admissionReviewVersions: [v1]
`
	role := func(resourceNames string) string {
		return `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: configurations}
rules:
- {apiGroups: [admissionregistration.k8s.io], resources: [validatingwebhookconfigurations], verbs: [update]` + resourceNames + `}
`
	}
	boundTo := func(namespace string) string {
		return `
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: configurations}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: configurations}
subjects:
- {kind: ServiceAccount, name: filler, namespace: ` + namespace + `}
`
	}
	runBy := func(kind, namespace string) string {
		return `
---
apiVersion: ` + map[string]string{"Deployment": "apps/v1", "Job": "batch/v1"}[kind] + `
kind: ` + kind + `
metadata: {name: filler, namespace: ` + namespace + `}
spec:
  selector: {matchLabels: {app: filler}}
  template:
    metadata: {labels: {app: filler}}
    spec:
      serviceAccountName: filler
      restartPolicy: Never
      containers: [{name: filler, image: example.com/filler:1.0}]
`
	}
	tests := []struct {
		name  string
		input string
		want  []string // E05 severities
	}{{
		name:  "nothing fills it in",
		input: configuration,
		want:  []string{"error"},
	}, {
		name:  "a Job in the server's namespace that may update every configuration",
		input: configuration + role("") + boundTo("example-system") + runBy("Job", "example-system"),
	}, {
		name:  "a Deployment elsewhere whose role names the configuration",
		input: configuration + role(", resourceNames: [example]") + boundTo("certgen") + runBy("Deployment", "certgen"),
	}, {
		name:  "another project's controller that may update every configuration",
		input: configuration + role("") + boundTo("policy-system") + runBy("Deployment", "policy-system"),
		want:  []string{"info"},
	}, {
		name:  "a role naming the configuration, bound to a ServiceAccount nothing runs as",
		input: configuration + role(", resourceNames: [example]") + boundTo("certgen"),
		want:  []string{"info"},
	}, {
		name:  "an unbound role",
		input: configuration + role(", resourceNames: [example]"),
		want:  []string{"info"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range onlyRule(run(t, parse(t, tt.input), Options{}), "E05") {
				got = append(got, f.Severity.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("E05 severities (-want +got):\n%s", diff)
			}
		})
	}
}
