//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/conversion"
	"github.com/admitkit/admit/webhook/webhooktest"
)

// lampV1 has one colour; lampV2, the hub, a list of them.
type lampV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Color             string `json:"color,omitempty"`
}

type lampV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Colors            []string `json:"colors,omitempty"`
}

func (l *lampV2) DeepCopyObject() runtime.Object { c := *l; return &c }

// lampRegistry serves a conversion webhook for lamps of group, and a validating webhook whose
// rule names v1 only, which denies red lamps and warns which version it saw.
func lampRegistry(t *testing.T, group string) *webhook.Registry {
	t.Helper()
	hub := conversion.NewHub[lampV2]("Lamp")
	err := conversion.AddHubVersion(hub, group+"/v2")
	if err == nil {
		err = conversion.AddVersion(hub, group+"/v1",
			func(v *lampV1, h *lampV2) error { h.Colors = []string{v.Color}; return nil },
			func(h *lampV2, v *lampV1) error { v.Color = strings.Join(h.Colors, "+"); return nil })
	}
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	if err == nil {
		err = reg.RegisterConversion(webhook.Conversion{CRD: "lamps." + group, Converter: hub})
	}
	if err == nil {
		err = reg.Register(webhook.Webhook{
			Name: "colors.e2e.admit.dev", Type: webhook.TypeValidating,
			Kind: schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Lamp"}, Resource: "lamps",
			Handler: webhook.HandlerFunc(func(_ context.Context, req *webhook.Request) webhook.Response {
				var lamp lampV1
				if err := json.Unmarshal(req.Object.Raw, &lamp); err != nil {
					return webhook.Errored(err)
				}
				seen := fmt.Sprintf("saw %s %s", lamp.APIVersion, lamp.Color)
				if strings.Contains(lamp.Color, "red") {
					return webhook.Denied("no red lamps").WithWarnings(seen)
				}
				return webhook.Allowed().WithWarnings(seen)
			}),
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// webhooktest.Admit answers a request through a version the webhook's rule does not name as
// kube-apiserver does: the same registry, served to a real apiserver with its CRD converting
// through the registry's conversion webhook, gives the same decision, message and warnings
// for lamps created through v2.
func TestWebhooktestEquivalentMatchesAPIServer(t *testing.T) {
	ctx := context.Background()
	group := "l" + rand.String(6) + ".e2e.admit.dev"
	ns, selector := newNamespace(t, "equivalent")
	reg := lampRegistry(t, group)
	served := serveWebhooks(t, reg)
	client := webhook.ClientConfig{URL: served.URL, CABundle: served.CABundle}

	crdConversion, err := reg.CRDConversion("lamps."+group, client)
	if err != nil {
		t.Fatal(err)
	}
	anything := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}
	createCRD(t, &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "lamps." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped, Conversion: crdConversion,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "lamps", Singular: "lamp", Kind: "Lamp", ListKind: "LampList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: false, Schema: anything},
				{Name: "v2", Served: true, Storage: true, Schema: anything},
			},
		},
	})
	_, validating, err := reg.Configurations(webhook.ConfigOptions{Name: "admit-" + ns, ClientConfig: client})
	if err != nil {
		t.Fatal(err)
	}
	for i := range validating.Webhooks {
		validating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
	}
	configs := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := configs.Create(ctx, validating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = configs.Delete(context.Background(), validating.Name, metav1.DeleteOptions{}) })

	var mu sync.Mutex
	var warnings []string
	cfg := rest.CopyConfig(env.RESTConfig)
	cfg.WarningHandler = warningFunc(func(text string) { mu.Lock(); warnings = append(warnings, text); mu.Unlock() })
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v2 := schema.GroupVersionResource{Group: group, Version: "v2", Resource: "lamps"}
	lamp := func(name string, colors ...string) *lampV2 {
		return &lampV2{TypeMeta: metav1.TypeMeta{APIVersion: group + "/v2", Kind: "Lamp"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Colors: colors}
	}
	// create writes l through v2 (a dry run) and returns what the apiserver answered.
	create := func(l *lampV2) (allowed bool, message string, warned []string) {
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(l)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		warnings = nil
		mu.Unlock()
		_, err = dyn.Resource(v2).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: raw}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		var status *apierrors.StatusError
		if err != nil && !errors.As(err, &status) {
			t.Fatalf("creating lamp %s: %v", l.Name, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if status != nil {
			return false, status.ErrStatus.Message, warnings
		}
		return true, "", warnings
	}
	eventually(t, "the webhook to take effect", func() error {
		if allowed, _, _ := create(lamp("marker", "red")); allowed {
			return errors.New("a red lamp is still admitted")
		}
		return nil
	})

	for _, l := range []*lampV2{lamp("blue", "blue"), lamp("red", "red"), lamp("mixed", "blue", "red")} {
		allowed, message, warned := create(l)
		got := webhooktest.Admit(t, reg, webhooktest.Create(t, l, webhooktest.Resource(v2)), webhooktest.AdmitOptions{})
		var gotMessage string
		if got.Status != nil {
			gotMessage = got.Status.Message
		}
		if diff := cmp.Diff(struct {
			Allowed  bool
			Message  string
			Warnings []string
		}{allowed, message, warned}, struct {
			Allowed  bool
			Message  string
			Warnings []string
		}{got.Allowed, gotMessage, got.Warnings}); diff != "" {
			t.Errorf("lamp %s through v2 (-kube-apiserver +webhooktest.Admit):\n%s", l.Name, diff)
		}
	}
}
