package review

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// hookConfig is a configuration built in Go, as a program builds it: none of the defaults the
// apiserver gives what it stores (a nil namespaceSelector, no matchPolicy, no timeout).
func hookConfig(cc admissionregistrationv1.WebhookClientConfig, timeout *int32) *admissionregistrationv1.ValidatingWebhookConfiguration {
	none := admissionregistrationv1.SideEffectClassNone
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "built-in-go"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "pods.example.com", ClientConfig: cc, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: timeout,
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
		}},
	}
}

// New takes configurations as the apiserver stores them: defaulted (a nil namespaceSelector
// matches every namespace, as the apiserver's default {} does), and checked as the apiserver
// checks a create (a timeout of 99 seconds is refused).
func TestNewDefaultsAndValidatesConfigurations(t *testing.T) {
	url := "https://127.0.0.1:1/validate" // nothing listens: a call fails, failurePolicy Fail rejects
	s, err := New(Config{Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{hookConfig(admissionregistrationv1.WebhookClientConfig{URL: &url}, nil)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := Parse("cm.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"))
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := s.Review(context.Background(), Write{}, cm, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Called (and failing): its nil namespaceSelector matched, as {} does.
	if res := outcomes[0].Result; res == nil || res.Allowed || !strings.Contains(res.Status.Message, `failed calling webhook "pods.example.com"`) {
		t.Errorf("the webhook was not called: %+v %v", res, outcomes[0].Err)
	}
	long := int32(99)
	_, err = New(Config{Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{hookConfig(admissionregistrationv1.WebhookClientConfig{URL: &url}, &long)}}, nil)
	if err == nil || !strings.Contains(err.Error(), "webhooks[0].timeoutSeconds: Invalid value: 99: the timeout value must be between 1 and 30 seconds") {
		t.Errorf("a 99 s timeout: %v", err)
	}
}

// A webhook calling a service that nothing places is refused when the Session is created: off
// a cluster its DNS name resolves nowhere, and a query would leave the machine.
func TestNewRefusesUnplacedServices(t *testing.T) {
	service := admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "hooks", Name: "svc"}}
	cfg := Config{Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{hookConfig(service, nil)}}
	_, err := New(cfg, nil)
	if want := `webhook "pods.example.com" of ValidatingWebhookConfiguration "built-in-go" calls service hooks/svc: give Config.ServiceResolver an entry hooks/svc=HOST:PORT`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("no resolver: %v, want %q", err, want)
	}
	services, err := ParseServices([]string{"hooks/svc=127.0.0.1:9443"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.ServiceResolver = services.Resolve
	if _, err := New(cfg, nil); err != nil {
		t.Errorf("placed: %v", err)
	}
}

// A CRD's conversion webhook behind a service nothing places fails the conversion, when an object
// must change version, with an error naming what to give; placed, the call goes where it says.
func TestConversionWebhookServicesArePlaced(t *testing.T) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {service: {namespace: system, name: conversion, path: /convert}}
  versions:
  - {name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v2, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`), &crd); err != nil {
		t.Fatal(err)
	}
	gadget := `apiVersion: example.com/v1
kind: Gadget
metadata: {name: g, namespace: default}
`
	message := func(cfg Config) string {
		t.Helper()
		cfg.CRDs = []*apiextensionsv1.CustomResourceDefinition{&crd}
		out, _ := reviewOne(t, cfg, gadget, authenticationv1.UserInfo{Username: "admit-review"})
		if out.Result == nil || out.Result.Allowed {
			t.Fatalf("the gadget was admitted without its conversion to the storage version: %+v", out.Result)
		}
		return out.Result.Status.Message
	}
	want := `conversion webhook for example.com/v1, Kind=Gadget failed: Post "https://conversion.system.svc:443/convert?timeout=30s": service system/conversion: no address is given for it: give --resolve system/conversion=HOST:PORT`
	if got := message(Config{Terms: Terms{Resolve: "--resolve"}}); got != want {
		t.Errorf("not placed:\n got %s\nwant %s", got, want)
	}
	services, err := ParseServices([]string{"system/conversion=127.0.0.1:1"}) // nothing listens
	if err != nil {
		t.Fatal(err)
	}
	got := message(Config{ServiceResolver: services.Resolve})
	if want := "dial tcp 127.0.0.1:1: connect: connection refused"; !strings.Contains(got, want) {
		t.Errorf("placed at 127.0.0.1:1: %s, want the call to go there (%q)", got, want)
	}

	// The webhooks alone convert the same way, for a webhook registered for v2 only.
	url := "https://127.0.0.1:1/validate" // not reached: the conversion fails first
	hook := hookConfig(admissionregistrationv1.WebhookClientConfig{URL: &url}, nil)
	hook.Webhooks[0].Rules[0].Rule = admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v2"}, Resources: []string{"gadgets"}}
	got = message(Config{WebhooksOnly: true, Terms: Terms{Resolve: "--resolve"}, Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{hook}})
	if want := "Internal error occurred: " + want; got != want {
		t.Errorf("webhooks only:\n got %s\nwant %s", got, want)
	}
}
