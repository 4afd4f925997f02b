package lint_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/lint"
)

// A webhook server in injector-system, with a fail-closed webhook on pods that exempts
// kube-system but not its own namespace.
const injector = `apiVersion: v1
kind: Service
metadata: {name: injector, namespace: injector-system}
spec:
  selector: {app: injector}
  ports: [{port: 443, targetPort: 9443}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: injector
webhooks:
- name: pods.injector.example.com
  clientConfig:
    service: {name: injector, namespace: injector-system, path: /inject}
  rules:
  - {apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
  timeoutSeconds: 2
  sideEffects: None
  admissionReviewVersions: [v1]
`

func ExampleRun() {
	set, err := config.Parse("injector.yaml", []byte(injector))
	if err != nil {
		fmt.Println(err)
		return
	}
	findings, err := lint.Run(set, lint.Options{Disable: []string{"empty-ca-bundle"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range lint.AtLeast(findings, lint.Warning) {
		fmt.Println(f.Location(), f.Severity, f.Rule, f.Name, f.Field)
	}
	// Output:
	// injector.yaml:18 error B02 fail-closed-own-namespace webhooks[0].namespaceSelector
	// injector.yaml:18 warning B11 fail-closed-add-on-namespaces webhooks[0].namespaceSelector
}

// Linting a large input, as admit lint does: the configurations are read first, then, of the
// objects around them, only what they can refer to (here the Service in injector-system).
func ExampleSurroundings() {
	dir, err := os.MkdirTemp("", "lint-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "injector.yaml")
	if err := os.WriteFile(path, []byte(injector), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	around := lint.NewSurroundings()
	set, err := config.Load(config.Options{Others: around.Keep, Around: around.Around}, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	findings, err := lint.Run(set, lint.Options{Surroundings: around, Disable: []string{"empty-ca-bundle"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range lint.AtLeast(findings, lint.Error) {
		fmt.Println(f.Rule, f.Name, f.Field)
	}
	// Output:
	// B02 fail-closed-own-namespace webhooks[0].namespaceSelector
}

// What to read around a cluster's configurations: the namespaces of the Services the webhooks
// call, where their servers run (package lint/cluster lists these).
func ExampleNeedsOf() {
	set, err := config.Parse("injector.yaml", []byte(injector))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(lint.NeedsOf(set).ServerNamespaces)
	// Output:
	// [injector-system]
}

func ExampleWriteText() {
	set, err := config.Parse("injector.yaml", []byte(injector))
	if err != nil {
		fmt.Println(err)
		return
	}
	findings, err := lint.Run(set, lint.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := lint.WriteText(os.Stdout, findings, lint.Error); err != nil {
		fmt.Println(err)
	}
	// Output:
	// MutatingWebhookConfiguration "injector"  injector.yaml:8
	//   error   B02 fail-closed-own-namespace: webhooks[0].namespaceSelector (webhook "pods.injector.example.com")
	//           fails closed and intercepts CREATE pods in "injector-system", the namespace of its own
	//           Service "injector" (pods labelled app=injector): when every replica is down, none can be
	//           recreated
	//           fix: exclude the server's namespace: add {key: kubernetes.io/metadata.name, operator:
	//           NotIn, values: [injector-system]} to namespaceSelector.matchExpressions, or label it
	//           admit.dev/runlevel=2 and exclude runlevels up to 2
	//   error   E05 empty-ca-bundle: webhooks[0].clientConfig.caBundle (webhook "pods.injector.example.com")
	//           is empty, and nothing in the input fills it in (no injection annotation, no ServiceAccount
	//           that may update the configuration): the apiserver verifies the server against its system
	//           roots, every call fails, and under failurePolicy Fail so does every write the webhook
	//           intercepts
	//           fix: set caBundle (admit certs inject --ca-file ca.crt), annotate the configuration for an
	//           injector (cert-manager.io/inject-ca-from: <namespace>/<certificate>), or ship what fills
	//           it in (its RBAC: update or patch on this configuration)
	//
	// 2 errors (2 below error)
}

func ExampleRules() {
	for _, r := range lint.Rules()[:4] {
		fmt.Println(r.ID, r.Name, r.Severity)
	}
	// Output:
	// A01 invalid error
	// A02 apiserver-warning warning
	// B01 fail-closed-kube-system error
	// B02 fail-closed-own-namespace error
}
