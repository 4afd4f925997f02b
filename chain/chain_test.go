package chain

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/dispatch/live"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/internal/webhooktest"
	"github.com/admitkit/admit/resources"
)

// fixedTime makes created objects' system metadata predictable.
func fixedTime() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func newChain(t *testing.T, cfg Config) *Chain {
	t.Helper()
	cfg.Now = fixedTime
	cfg.NewUID = func(*engine.Request) string { return "11111111-2222-3333-4444-555555555555" }
	c, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// newDispatcher admits through the chain's steps with opts' webhooks among them.
func newDispatcher(t *testing.T, c *Chain, opts dispatch.Options) *engine.Pipeline {
	t.Helper()
	steps := c.Steps()
	opts.Codec, opts.Converter = steps.Codec, steps.Converter
	if opts.Namespaces == nil {
		opts.Namespaces = live.ListerNamespaces{Lister: steps.Namespaces, Client: steps.Client}
	}
	w, err := dispatch.NewWebhooks(opts)
	if err != nil {
		t.Fatal(err)
	}
	p := steps.Pipeline(w.Mutating(), w.Validating())
	p.MaxRequestBodyBytes = opts.MaxRequestBodyBytes
	return p
}

// request builds a CREATE (or UPDATE, with old) of a YAML object in namespace default.
func request(t *testing.T, gvr schema.GroupVersionResource, object, old string) *engine.Request {
	t.Helper()
	obj, err := yaml.YAMLToJSON([]byte(object))
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct{ Name, Namespace string }
	}
	if err := json.Unmarshal(obj, &head); err != nil {
		t.Fatal(err)
	}
	gv, _ := schema.ParseGroupVersion(head.APIVersion)
	req := &engine.Request{Kind: gv.WithKind(head.Kind), Resource: gvr, Name: head.Metadata.Name, Namespace: head.Metadata.Namespace,
		Operation: admissionv1.Create, Object: obj}
	if old != "" {
		req.Operation = admissionv1.Update
		if req.OldObject, err = yaml.YAMLToJSON([]byte(old)); err != nil {
			t.Fatal(err)
		}
	}
	return req
}

func member(t *testing.T, obj json.RawMessage, path ...string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(obj, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// TestPodCreate: a Pod as kube-apiserver stores it — defaults, the built-in plugins' changes,
// the registry's preparation — and the plugins listed in the result.
func TestPodCreate(t *testing.T) {
	d := newDispatcher(t, newChain(t, Config{}), dispatch.Options{})
	res, err := d.Admit(context.Background(), request(t, pods, `
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: app, image: "nginx:latest"}]
`, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	var pod corev1.Pod
	if err := json.Unmarshal(res.Object, &pod); err != nil {
		t.Fatal(err)
	}
	c := pod.Spec.Containers[0]
	checks := []struct {
		what      string
		got, want any
	}{
		{"imagePullPolicy of a :latest image (defaulting)", c.ImagePullPolicy, corev1.PullAlways},
		{"restartPolicy (defaulting)", pod.Spec.RestartPolicy, corev1.RestartPolicyAlways},
		{"serviceAccountName (ServiceAccount)", pod.Spec.ServiceAccountName, "default"},
		{"token volume mounted (ServiceAccount)", len(c.VolumeMounts) == 1 && strings.HasPrefix(c.VolumeMounts[0].Name, "kube-api-access-"), true},
		{"tolerations (DefaultTolerationSeconds)", len(pod.Spec.Tolerations), 2},
		{"priority (Priority)", *pod.Spec.Priority, int32(0)},
		{"phase (PrepareForCreate)", pod.Status.Phase, corev1.PodPending},
		{"qosClass (PrepareForCreate)", pod.Status.QOSClass, corev1.PodQOSBestEffort},
		{"uid (the injected clock)", string(pod.UID), "11111111-2222-3333-4444-555555555555"},
		{"creationTimestamp (the injected clock)", pod.CreationTimestamp.Time.Equal(fixedTime()), true},
		{"generation", pod.Generation, int64(1)},
	}
	for _, c := range checks {
		if !cmp.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	changed := map[string]bool{}
	for _, w := range res.Rows {
		if w.Outcome == engine.OutcomePatched {
			changed[w.Name] = true
		}
	}
	if diff := cmp.Diff(map[string]bool{"ServiceAccount": true, "Priority": true, "DefaultTolerationSeconds": true, "registry": true}, changed); diff != "" {
		t.Errorf("steps that changed the pod (-want +got):\n%s", diff)
	}
}

// TestValidationRejects: the kind's own validation runs before validating admission and answers
// with the apiserver's 422.
func TestValidationRejects(t *testing.T) {
	server := webhooktest.Start(t)
	none := admissionregistrationv1.SideEffectClassNone
	validating := []*admissionregistrationv1.ValidatingWebhookConfiguration{{
		ObjectMeta: metav1.ObjectMeta{Name: "v"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "deployments.example.com", ClientConfig: server.ClientConfig(webhooktest.PathAllow), SideEffects: &none,
			AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}},
		}},
	}}
	d := newDispatcher(t, newChain(t, Config{}), dispatch.Options{Validating: validating})
	res, err := d.Admit(context.Background(), request(t, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: app, image: nginx}]}
`, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := `Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"api"}: ` + "`selector` does not match template `labels`"
	if res.Allowed || res.Status.Code != 422 || res.Status.Message != want {
		t.Fatalf("status %+v, want 422 %q", res.Status, want)
	}
	if n := server.Calls(webhooktest.PathAllow); n != 0 {
		t.Fatalf("the validating webhook was called %d times after the kind's validation rejected", n)
	}
}

// TestHPAConvertedFromTheInternalObject: a webhook of another version sees the object converted
// from the internal version, as in the apiserver, not from the request version's encoding (an
// autoscaling/v1 HPA's metrics annotation would add values).
func TestHPAConvertedFromTheInternalObject(t *testing.T) {
	server := webhooktest.Start(t)
	none := admissionregistrationv1.SideEffectClassNone
	equivalent := admissionregistrationv1.Equivalent
	path := webhooktest.SetLabel("status", "seen")
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	d := newDispatcher(t, newChain(t, Config{}), dispatch.Options{
		Resources: mapper,
		Mutating: []*admissionregistrationv1.MutatingWebhookConfiguration{{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "hpa.example.com", ClientConfig: server.ClientConfig(path), SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			MatchPolicy: &equivalent, NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
			Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"autoscaling"}, APIVersions: []string{"v2"}, Resources: []string{"horizontalpodautoscalers/status"}}}},
		}}}},
	})
	const hpa = `
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default, resourceVersion: "5"}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50}
status: {currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 42}
`
	req := request(t, schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}, hpa, hpa)
	req.SubResource = "status"
	res, err := d.Admit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	seen := server.Requests(path)
	if len(seen) != 1 {
		t.Fatalf("the webhook got %d requests, want 1", len(seen))
	}
	current := member(t, seen[0].Object.Raw, "status", "currentMetrics")
	want := []any{map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu", "current": map[string]any{"averageUtilization": float64(42)}}}}
	if diff := cmp.Diff(want, current); diff != "" {
		t.Errorf("currentMetrics the v2 webhook saw (-want +got):\n%s", diff)
	}
	if got := member(t, res.Object, "metadata", "labels", "status"); got != "seen" {
		t.Errorf("the v2 webhook's label came back as %v on the v1 object", got)
	}
}

func widgets(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 1, maximum: 10}
              color: {type: string, default: blue}
          status: {type: object, properties: {ready: {type: boolean}}}
`), &crd); err != nil {
		t.Fatal(err)
	}
	return &crd
}

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// TestCustomResources: schema defaults, pruning with a warning per unknown field, the strict
// directive's error, the status wiped on create, and the schema's validation.
func TestCustomResources(t *testing.T) {
	d := newDispatcher(t, newChain(t, Config{CRDs: []*apiextensionsv1.CustomResourceDefinition{widgets(t)}}), dispatch.Options{})
	const widget = `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec: {size: 3, extra: true}
status: {ready: true}
`
	res, err := d.Admit(context.Background(), request(t, widgetsGVR, widget, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	if diff := cmp.Diff(map[string]any{"size": float64(3), "color": "blue"}, member(t, res.Object, "spec")); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if got := member(t, res.Object, "status"); got != nil {
		t.Errorf("status = %v, want none: a create ignores the status of a resource with a status subresource", got)
	}
	if got := member(t, res.Object, "metadata", "generation"); got != float64(1) {
		t.Errorf("generation = %v, want 1", got)
	}
	if diff := cmp.Diff([]string{`unknown field "spec.extra"`}, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	strict := request(t, widgetsGVR, widget, "")
	strict.Options = json.RawMessage(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldValidation":"Strict"}`)
	res, err = d.Admit(context.Background(), strict)
	if err != nil {
		t.Fatal(err)
	}
	want := `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.extra"`
	if res.Allowed || res.Status.Code != 400 || res.Status.Message != want {
		t.Errorf("strict: status %+v, want 400 %q", res.Status, want)
	}

	res, err = d.Admit(context.Background(), request(t, widgetsGVR, strings.Replace(widget, "size: 3", "size: 30", 1), ""))
	if err != nil {
		t.Fatal(err)
	}
	want = `Widget.example.com "w" is invalid: spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10`
	if res.Allowed || res.Status.Code != 422 || res.Status.Message != want {
		t.Errorf("invalid: status %+v, want 422 %q", res.Status, want)
	}
}

// TestClusterState: what a fresh cluster has is assumed and said; what the state gives is used.
func TestClusterState(t *testing.T) {
	state := []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", Labels: map[string]string{"env": "prod"}}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults", Namespace: "team"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type: corev1.LimitTypeContainer, DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
		}}}},
	}
	c := newChain(t, Config{Objects: state, Namespaces: []string{"team", "other"}})
	assumed := strings.Join(c.Assumed(), "\n")
	for _, want := range []string{"namespaces default, kube-node-lease, kube-public, kube-system and other exist", "the default ServiceAccount exists in default, kube-node-lease, kube-public, kube-system, other and team"} {
		if !strings.Contains(assumed, want) {
			t.Errorf("assumptions lack %q:\n%s", want, assumed)
		}
	}
	d := newDispatcher(t, c, dispatch.Options{})
	res, err := d.Admit(context.Background(), request(t, pods, `
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: team}
spec: {containers: [{name: app, image: nginx}]}
`, ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := member(t, res.Object, "spec", "containers"); !strings.Contains(mustJSON(t, got), `"requests":{"cpu":"100m"}`) {
		t.Errorf("LimitRanger did not apply the namespace's default request: %s", mustJSON(t, got))
	}
	labels, err := d.Admit(context.Background(), request(t, pods, `
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: missing}
spec: {containers: [{name: app, image: nginx}]}
`, ""))
	if err != nil {
		t.Fatal(err)
	}
	if labels.Allowed || labels.Status.Code != 404 {
		t.Errorf("a pod in a namespace the cluster does not have: %+v, want 404", labels.Status)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
