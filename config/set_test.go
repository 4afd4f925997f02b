package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

const setYAML = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-policy
webhooks:
  - name: pods.example.com
    clientConfig:
      url: https://127.0.0.1:8443/validate
    rules:
      - operations: ["*"]
        apiGroups: ["authentication.k8s.io"]
        apiVersions: ["v1"]
        resources: ["tokenreviews"]
    sideEffects: None
    admissionReviewVersions: ["v1"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: pod-policy
webhooks: []
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: pod-defaults
webhooks:
  - name: pods
    clientConfig:
      url: https://127.0.0.1:8443/mutate
    timeoutSeconds: 31
    sideEffects: None
    admissionReviewVersions: ["v1"]
`

func TestSetValidate(t *testing.T) {
	set, err := Parse("webhooks.yaml", []byte(setYAML))
	if err != nil {
		t.Fatal(err)
	}
	warnings, err := set.Validate()
	// kube-apiserver 1.36 warns about nothing here: it sends TokenReviews to webhooks.
	var wantWarnings []string
	if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	wantErr := `webhooks.yaml:23: MutatingWebhookConfiguration.admissionregistration.k8s.io "pod-defaults" is invalid: [webhooks[0].name: Invalid value: "pods": should be a domain with at least three segments separated by dots, webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds]` + "\n" +
		`webhooks.yaml:17: validatingwebhookconfigurations.admissionregistration.k8s.io "pod-policy" already exists (first defined at webhooks.yaml:1)`
	if diff := cmp.Diff(wantErr, errString(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if !apierrors.IsInvalid(err) {
		t.Errorf("apierrors.IsInvalid(%v) = false", err)
	}
	var statusErr *apierrors.StatusError
	if !errors.As(err, &statusErr) || len(statusErr.ErrStatus.Details.Causes) != 2 {
		t.Errorf("the status error should carry one cause per field error: %#v", statusErr)
	}
}

func TestSetValidateValid(t *testing.T) {
	set, err := Load(Options{Recursive: true}, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	warnings, err := set.Validate()
	if err != nil || len(warnings) != 0 {
		t.Errorf("Validate() = %v, %v; want no warnings and no error", warnings, err)
	}
	if got, want := len(set.MutatingConfigs())+len(set.ValidatingConfigs()), 6; got != want {
		t.Errorf("%d configurations, want %d", got, want)
	}
}
