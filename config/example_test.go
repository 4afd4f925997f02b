package config_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/config"
)

func ExampleParse() {
	manifest := []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-policy
webhooks:
  - name: policy.pods.example.com
    clientConfig:
      url: https://127.0.0.1:8443/validate
    sideEffects: None
    admissionReviewVersions: ["v1"]
---
apiVersion: v1
kind: Namespace
metadata:
  name: pod-policy
`)
	set, err := config.Parse("<stdin>", manifest)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range set.Validating {
		w := v.Config.Webhooks[0]
		// Loading applies the v1 defaults.
		fmt.Printf("%s: %s failurePolicy=%s timeoutSeconds=%d\n", v.Source, w.Name, *w.FailurePolicy, *w.TimeoutSeconds)
	}
	for _, o := range set.Others {
		fmt.Printf("%s: %s %s\n", o.Source, o.Object.GetKind(), o.Object.GetName())
	}
	// Output:
	// <stdin>:1: policy.pods.example.com failurePolicy=Fail timeoutSeconds=10
	// <stdin>:12: Namespace pod-policy
}

func ExampleParse_errors() {
	_, err := config.Parse("webhooks.yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: pod-defaults
webhooks:
  - name: defaults.pods.example.com
    namespaceSelecter:
      matchLabels: {team: payments}
`))
	fmt.Println(err)
	// Output:
	// webhooks.yaml:7: MutatingWebhookConfiguration "pod-defaults": unknown field "webhooks[0].namespaceSelecter"
}

func ExampleLoad() {
	set, err := config.Load(config.Options{Recursive: true}, filepath.Join("testdata", "manifests"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range set.Mutating {
		fmt.Println("mutating", m.Config.Name, "from", m.Source)
	}
	for _, v := range set.Validating {
		fmt.Println("validating", v.Config.Name, "from", v.Source)
	}
	fmt.Println(len(set.Others), "other objects")
	// Output:
	// mutating a from testdata/manifests/a-mutating.yaml:1
	// validating b from testdata/manifests/b-validating.json:1
	// validating d from testdata/manifests/nested/d-validating.yaml:1
	// 2 other objects
}

func ExampleFromObjects() {
	set, err := config.FromObjects(
		&admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "pod-defaults"},
			Webhooks:   []admissionregistrationv1.MutatingWebhook{{Name: "defaults.pods.example.com"}},
		},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pod-policy"}},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	w := set.Mutating[0].Config.Webhooks[0]
	selector, _ := json.Marshal(w.NamespaceSelector)
	fmt.Printf("%s: reinvocationPolicy=%s namespaceSelector=%s\n", set.Mutating[0].Source, *w.ReinvocationPolicy, selector)
	fmt.Println(set.Others[0].Source, set.Others[0].Object.GetAPIVersion(), set.Others[0].Object.GetKind())
	// Output:
	// object 1: reinvocationPolicy=Never namespaceSelector={}
	// object 2 v1 Namespace
}

func ExampleValidateValidating() {
	timeout := int32(31)
	errs := config.ValidateValidating(&admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-policy"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:           "pod-policy",
			ClientConfig:   admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "pod-policy", Name: "webhook"}},
			TimeoutSeconds: &timeout,
		}},
	})
	for _, err := range errs {
		fmt.Println(err)
	}
	// Output:
	// webhooks[0].name: Invalid value: "pod-policy": should be a domain with at least three segments separated by dots
	// webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun
	// webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds
	// webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1
}

func ExampleValidateMutating() {
	errs := config.ValidateMutating(&admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-defaults"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "defaults.pods.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: new("https://127.0.0.1:8443/mutate")},
			SideEffects:             new(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			MatchConditions:         []admissionregistrationv1.MatchCondition{{Name: "label", Expression: "object.metadata.labels"}},
		}},
	})
	fmt.Println(errs.ToAggregate())
	// Output:
	// webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.labels": must evaluate to bool but got dyn
}

func ExampleSetDefaultsValidating() {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "policy.pods.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "pod-policy", Name: "webhook"}},
			Rules:        []admissionregistrationv1.RuleWithOperations{{}},
		}},
	}
	config.SetDefaultsValidating(c)
	w := c.Webhooks[0]
	fmt.Println(*w.FailurePolicy, *w.MatchPolicy, *w.TimeoutSeconds, *w.Rules[0].Scope, *w.ClientConfig.Service.Port)
	// Output:
	// Fail Equivalent 10 * 443
}

func ExampleWarningsValidating() {
	warnings := config.WarningsValidating(&admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "token-policy.static.k8s.io"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "tokens.example.com",
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"authentication.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"tokenreviews"}},
			}},
		}},
	})
	fmt.Println(warnings)
	// Output:
	// [metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API]
}

func ExampleSet_Validate() {
	set, err := config.Parse("webhooks.yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-policy
webhooks:
  - name: policy.pods.example.com
    clientConfig:
      url: http://127.0.0.1:8080/validate
    sideEffects: Some
    admissionReviewVersions: ["v1"]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = set.Validate()
	fmt.Println(err)
	// Output:
	// webhooks.yaml:1: ValidatingWebhookConfiguration.admissionregistration.k8s.io "pod-policy" is invalid: [webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun", webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]]
}
