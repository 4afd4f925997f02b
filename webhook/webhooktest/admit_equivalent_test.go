package webhooktest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/webhooktest"
)

// colorGuard denies Gizmos of example.com/v1 whose colour is red, and tells which version it got.
func colorGuard(t *testing.T, reg *webhook.Registry) {
	t.Helper()
	err := reg.Register(webhook.Webhook{
		Name: "colors.example.com", Type: webhook.TypeValidating,
		Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gizmo"}, Resource: "gizmos",
		Handler: webhook.HandlerFunc(func(_ context.Context, req *webhook.Request) webhook.Response {
			var g gizmoV1
			if err := json.Unmarshal(req.Object.Raw, &g); err != nil {
				return webhook.Errored(err)
			}
			seen := "saw " + g.APIVersion + " " + req.Kind.Version
			if g.Color == "red" {
				return webhook.Denied("no red gizmos").WithWarnings(seen)
			}
			return webhook.Allowed().WithWarnings(seen)
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A request through another version of the webhook's kind reaches the webhook converted by the
// Registry's conversion webhook, as kube-apiserver converts it for a rule under matchPolicy
// Equivalent: the webhook sees example.com/v1, and its answer decides.
func TestAdmitConvertsForEquivalentVersions(t *testing.T) {
	reg := gizmoRegistry(t)
	colorGuard(t, reg)
	v2 := func(name string, colors ...string) *gizmoV2 {
		return &gizmoV2{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v2", Kind: "Gizmo"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Colors: colors}
	}
	gizmos := webhooktest.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "gizmos"})

	allowed := webhooktest.Admit(t, reg, webhooktest.Create(t, v2("blue", "blue"), gizmos), webhooktest.AdmitOptions{})
	if !allowed.Allowed || !cmp.Equal(allowed.Warnings, []string{"saw example.com/v1 v1"}) {
		t.Errorf("a blue v2 Gizmo: allowed %v, warnings %q, status %+v", allowed.Allowed, allowed.Warnings, allowed.Status)
	}
	if len(allowed.Rows) != 1 || allowed.Rows[0].Outcome != engine.OutcomeAllowed {
		t.Errorf("rows: %+v", allowed.Rows)
	}

	denied := webhooktest.Admit(t, reg, webhooktest.Create(t, v2("red", "red"), gizmos), webhooktest.AdmitOptions{})
	if denied.Allowed || denied.Status == nil || !strings.Contains(denied.Status.Message, "no red gizmos") {
		t.Errorf("a red v2 Gizmo: allowed %v, status %+v", denied.Allowed, denied.Status)
	}

	// The cluster's CRD, given, decides: converting with strategy None, the apiserver only
	// rewrites the apiVersion, so the webhook sees v2's fields under v1 and no colour.
	none := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "gizmos", Kind: "Gizmo", ListKind: "GizmoList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}, {Name: "v2", Served: true}},
		},
	}
	unconverted := webhooktest.Admit(t, reg, webhooktest.Create(t, v2("red", "red"), gizmos), webhooktest.AdmitOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{none}})
	if !unconverted.Allowed || !cmp.Equal(unconverted.Warnings, []string{"saw example.com/v1 v1"}) {
		t.Errorf("a red v2 Gizmo, converted with strategy None: allowed %v, warnings %q, status %+v", unconverted.Allowed, unconverted.Warnings, unconverted.Status)
	}
}
