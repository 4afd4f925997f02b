package chain

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/webhooktest"
)

const storedDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  uid: 6e1993ba-46c3-4e63-8e46-4cc6c13afd7b
  resourceVersion: "1040"
  generation: 1
  creationTimestamp: "2026-11-25T19:36:10Z"
  labels: {app: web}
  managedFields:
  - {manager: kubectl-create, operation: Update, apiVersion: apps/v1, time: "2026-11-25T19:36:10Z", fieldsType: FieldsV1, fieldsV1: {"f:spec": {"f:replicas": {}, "f:selector": {}}}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx:1.27}]}
`

func TestScalesRead(t *testing.T) {
	parent, err := yaml.YAMLToJSON([]byte(storedDeployment))
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewScales(nil).Read(schema.GroupResource{Group: "apps", Resource: "deployments"}, parent)
	if err != nil {
		t.Fatal(err)
	}
	var scale map[string]any
	if err := json.Unmarshal(got, &scale); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "autoscaling/v1", "kind": "Scale",
		"metadata": map[string]any{"name": "web", "namespace": "default", "uid": "6e1993ba-46c3-4e63-8e46-4cc6c13afd7b",
			"resourceVersion": "1040", "creationTimestamp": "2026-11-25T19:36:10Z",
			"managedFields": []any{map[string]any{"manager": "kubectl-create", "operation": "Update", "apiVersion": "autoscaling/v1",
				"time": "2026-11-25T19:36:10Z", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{"f:replicas": map[string]any{}}}}}},
		"spec":   map[string]any{"replicas": float64(2)},
		"status": map[string]any{"replicas": float64(0), "selector": "app=web"},
	}
	if diff := cmp.Diff(want, scale); diff != "" {
		t.Errorf("the Scale (-want +got):\n%s", diff)
	}
}

// An UPDATE of deployments/scale, as kubectl scale makes it: webhooks receive autoscaling/v1
// Scales, the Scale is validated, written into the Deployment whose own update runs, and
// validating admission sees the Deployment's new Scale.
func TestScaleUpdate(t *testing.T) {
	server := webhooktest.Start(t)
	none := admissionregistrationv1.SideEffectClassNone
	rules := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments/scale"}}}}
	d := newDispatcher(t, newChain(t, Config{}), dispatch.Options{
		Validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "v"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "scale.example.com", ClientConfig: server.ClientConfig(webhooktest.PathAllow), SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}, Rules: rules,
		}}}},
	})
	parent, err := yaml.YAMLToJSON([]byte(storedDeployment))
	if err != nil {
		t.Fatal(err)
	}
	scales := NewScales(nil)
	deployments := schema.GroupResource{Group: "apps", Resource: "deployments"}
	update := func(replicas int, resourceVersion string) *engine.Result {
		t.Helper()
		old, err := scales.Read(deployments, parent)
		if err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(string(old), `"replicas":2},"status"`, `"replicas":`+itoa(replicas)+`},"status"`, 1)
		body = strings.Replace(body, `"resourceVersion":"1040"`, `"resourceVersion":"`+resourceVersion+`"`, 1)
		res, err := d.Admit(context.Background(), &engine.Request{
			Kind:     schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"},
			Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, SubResource: "scale",
			Name: "web", Namespace: "default", Operation: admissionv1.Update,
			Object: json.RawMessage(body), OldObject: old, Parent: parent,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := update(5, "1040")
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	seen := server.Requests(webhooktest.PathAllow)
	if len(seen) != 1 {
		t.Fatalf("the validating webhook got %d requests, want 1", len(seen))
	}
	if got := member(t, seen[0].Object.Raw, "spec", "replicas"); got != float64(5) {
		t.Errorf("the webhook's Scale has replicas %v, want 5", got)
	}
	if got := member(t, seen[0].Object.Raw, "metadata", "managedFields"); got != nil {
		t.Errorf("validating admission's Scale has managed fields %v; the apiserver's has none", got)
	}
	if got := member(t, seen[0].OldObject.Raw, "spec", "replicas"); got != float64(2) {
		t.Errorf("the webhook's old Scale has replicas %v, want 2", got)
	}
	if seen[0].Kind.Kind != "Scale" || seen[0].SubResource != "scale" || seen[0].Resource.Resource != "deployments" {
		t.Errorf("the webhook's request: kind %v, resource %v/%s", seen[0].Kind, seen[0].Resource, seen[0].SubResource)
	}
	if got := member(t, res.Object, "status", "selector"); got != "app=web" {
		t.Errorf("the answer's selector %v, want app=web", got)
	}

	res = update(-1, "1040")
	want := `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`
	if res.Allowed || res.Status.Code != 422 || res.Status.Message != want {
		t.Errorf("negative replicas: %+v, want 422 %q", res.Status, want)
	}
	res = update(3, "999")
	if res.Allowed || res.Status.Code != 409 {
		t.Errorf("a stale resource version: %+v, want 409", res.Status)
	}
}

func itoa(n int) string {
	return strings.TrimSpace(strings.Replace(string(mustMarshal(n)), `"`, "", -1))
}
