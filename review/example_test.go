package review_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http/httptest"

	corev1 "k8s.io/api/core/v1"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/review"
	"github.com/admitkit/admit/webhook"
)

// A kustomize build — a namespace, a pod, two ConfigMaps — reviewed through kube-apiserver's
// admission with an admission policy and the quickstart's webhooks, served in process.
func Example() {
	// The webhooks: the quickstart's sidecar injector and ConfigMap key validator, over TLS.
	registry, err := quickstart.NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	server := httptest.NewTLSServer(registry)
	defer server.Close()
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	configurations, err := registry.ConfigurationsYAML(webhook.ConfigOptions{
		Name: "quickstart", ClientConfig: webhook.ClientConfig{URL: server.URL, CABundle: caBundle},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	webhooks, err := config.Parse("webhooks.yaml", configurations)
	if err != nil {
		fmt.Println(err)
		return
	}
	// An admission policy: ConfigMaps in team namespaces need an owner label.
	policies, err := review.Parse("policies.yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: owned}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    namespaceSelector: {matchLabels: {tier: team}}
  validations: [{expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels", message: "a ConfigMap needs an owner"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: owned}
spec: {policyName: owned, validationActions: [Deny]}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The build, as `kustomize build` prints it.
	objects, err := review.Parse("build.yaml", []byte(`apiVersion: v1
kind: Namespace
metadata: {name: payments, labels: {tier: team}}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: payments}
spec: {containers: [{name: api, image: registry.example/api:1.4}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: payments, labels: {owner: payments}}
data: {log-level: info}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: flags, namespace: payments}
data: {beta: "true"}
`))
	if err != nil {
		fmt.Println(err)
		return
	}

	session, err := review.New(review.Config{
		Mutating: webhooks.MutatingConfigs(), Validating: webhooks.ValidatingConfigs(), Policies: policies,
	}, objects)
	if err != nil {
		fmt.Println(err)
		return
	}
	outcomes, err := session.Review(context.Background(), review.Write{}, objects, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range outcomes {
		switch {
		case o.Err != nil:
			fmt.Printf("%s %s: not reviewed: %v\n", o.Object.GetKind(), o.Name(), o.Err)
		case o.Result.Allowed && o.Object.GetKind() == "Pod":
			var pod corev1.Pod
			if err := json.Unmarshal(o.Result.Object, &pod); err != nil {
				fmt.Println(err)
				return
			}
			var containers []string
			for _, c := range pod.Spec.Containers {
				containers = append(containers, c.Name)
			}
			fmt.Printf("%s %s: admitted with containers %v, service account %s\n", o.Object.GetKind(), o.Name(), containers, pod.Spec.ServiceAccountName)
		case o.Result.Allowed:
			fmt.Printf("%s %s: admitted\n", o.Object.GetKind(), o.Name())
		default:
			fmt.Printf("%s %s: %d %s\n", o.Object.GetKind(), o.Name(), o.Result.Status.Code, o.Result.Status.Message)
		}
	}
	// Output:
	// Namespace payments: admitted
	// Pod api: admitted with containers [api proxy], service account default
	// ConfigMap settings: admitted
	// ConfigMap flags: 422 configmaps "flags" is forbidden: ValidatingAdmissionPolicy 'owned' with binding 'owned' denied request: a ConfigMap needs an owner
}
