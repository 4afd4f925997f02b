package webhooktest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/webhook"
	"github.com/admitkit/admit/webhook/webhooktest"
)

// teamLabel labels Pods with a team, keeping one that is set.
func teamLabel(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
	if pod.Labels["team"] != "" {
		return nil, nil
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["team"] = "unassigned"
	return []string{"team label defaulted"}, nil
}

// noLatest refuses the :latest tag, and fails (rather than denies) on a Pod named "broken".
type noLatest struct{}

func (noLatest) ValidateCreate(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
	if pod.Name == "broken" {
		return nil, webhook.Fail(errors.New("the registry is down"))
	}
	var errs field.ErrorList
	for i, c := range pod.Spec.Containers {
		if strings.HasSuffix(c.Image, ":latest") {
			errs = append(errs, field.Invalid(field.NewPath("spec", "containers").Index(i).Child("image"), c.Image, "pin a version"))
		}
	}
	return nil, webhook.Invalid(errs)
}
func (v noLatest) ValidateUpdate(ctx context.Context, req *webhook.Request, _, pod *corev1.Pod) ([]string, error) {
	return v.ValidateCreate(ctx, req, pod)
}
func (noLatest) ValidateDelete(context.Context, *webhook.Request, *corev1.Pod) ([]string, error) {
	return nil, nil
}

func pod(name, image string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}}}
}

func TestCreateBuildsWhatTheAPIServerSends(t *testing.T) {
	req := webhooktest.Create(t, pod("web", "nginx:1.27"), webhooktest.User("alice", "dev"), webhooktest.DryRun())
	if req.Kind != (metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}) || req.Resource != (metav1.GroupVersionResource{Version: "v1", Resource: "pods"}) ||
		req.Namespace != "shop" || req.Name != "web" || req.Operation != admissionv1.Create || req.UserInfo.Username != "alice" || !req.IsDryRun() {
		t.Errorf("request: %+v", req.AdmissionRequest)
	}
	if !strings.Contains(string(req.Object.Raw), `"apiVersion":"v1","kind":"Pod"`) && !strings.Contains(string(req.Object.Raw), `"kind":"Pod"`) {
		t.Errorf("the object lacks its kind: %s", req.Object.Raw)
	}
	ns := webhooktest.Delete(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "payments"}})
	if ns.Namespace != "payments" || ns.Resource.Resource != "namespaces" || ns.Object.Raw != nil || ns.OldObject.Raw == nil {
		t.Errorf("a Namespace's DELETE: %+v", ns.AdmissionRequest)
	}
}

func TestRun(t *testing.T) {
	defaulting := webhook.DefaultingHandler[*corev1.Pod](webhook.DefaulterFunc[*corev1.Pod](teamLabel))
	validating := webhook.ValidatingHandler[*corev1.Pod](noLatest{})
	tests := []struct {
		name    string
		handler webhook.Handler
		req     *webhook.Request
		check   func(t *testing.T, r *webhooktest.Result)
	}{
		{
			name: "a patch, applied", handler: defaulting, req: webhooktest.Create(t, pod("web", "nginx:1.27")),
			check: func(t *testing.T, r *webhooktest.Result) {
				var got corev1.Pod
				r.Decode(t, &got)
				if !r.Allowed || got.Labels["team"] != "unassigned" || len(r.Patch) == 0 || !cmp.Equal(r.Warnings, []string{"team label defaulted"}) {
					t.Errorf("result %+v, labels %v", r, got.Labels)
				}
			},
		},
		{
			name: "a denial with its causes", handler: validating, req: webhooktest.Create(t, pod("web", "nginx:latest")),
			check: func(t *testing.T, r *webhooktest.Result) {
				if r.Allowed || r.Errored || r.Status == nil || r.Status.Code != 422 || r.Status.Details == nil || len(r.Status.Details.Causes) != 1 ||
					r.Status.Details.Causes[0].Field != "spec.containers[0].image" {
					t.Errorf("result %+v, status %+v", r, r.Status)
				}
			},
		},
		{
			name: "a failure, for the failure policy to decide", handler: validating, req: webhooktest.Create(t, pod("broken", "nginx:1.27")),
			check: func(t *testing.T, r *webhooktest.Result) {
				if r.Allowed || !r.Errored || r.Status == nil || r.Status.Code != 500 || !strings.Contains(r.Status.Message, "the registry is down") {
					t.Errorf("result %+v, status %+v", r, r.Status)
				}
			},
		},
		{
			name: "allowed unchanged", handler: validating, req: webhooktest.Create(t, pod("web", "nginx:1.27")),
			check: func(t *testing.T, r *webhooktest.Result) {
				if !r.Allowed || r.Patch != nil || r.Status != nil {
					t.Errorf("result %+v", r)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, webhooktest.Run(t, tt.handler, tt.req)) })
	}
}

// A Registry admitted as kube-apiserver calls it: the mutating webhook's patch reaches the
// validating one, the rejection has the apiserver's message, a failure follows failurePolicy.
func TestAdmitThroughARegistry(t *testing.T) {
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	podKind := corev1.SchemeGroupVersion.WithKind("Pod")
	for _, w := range []webhook.Webhook{
		{Name: "team.example.com", Type: webhook.TypeMutating, Kind: podKind, Resource: "pods", Handler: webhook.DefaultingHandler[*corev1.Pod](webhook.DefaulterFunc[*corev1.Pod](teamLabel))},
		{Name: "tags.example.com", Type: webhook.TypeValidating, Kind: podKind, Resource: "pods", Handler: webhook.ValidatingHandler[*corev1.Pod](noLatest{})},
	} {
		if err := reg.Register(w); err != nil {
			t.Fatal(err)
		}
	}
	admitted := webhooktest.Admit(t, reg, webhooktest.Create(t, pod("web", "nginx:1.27")), webhooktest.AdmitOptions{})
	if !admitted.Allowed || admitted.Errored || !strings.Contains(string(admitted.Object), `"team":"unassigned"`) || !cmp.Equal(admitted.Warnings, []string{"team label defaulted"}) ||
		!strings.Contains(admitted.Patch.String(), `"op":"add","path":"/metadata/labels"`) {
		t.Errorf("admitted: %+v\n%s", admitted, admitted.Object)
	}
	outcomes := map[string]engine.Outcome{}
	for _, w := range admitted.Rows {
		outcomes[w.Name] = w.Outcome
	}
	if diff := cmp.Diff(map[string]engine.Outcome{"team.example.com": engine.OutcomePatched, "tags.example.com": engine.OutcomeAllowed}, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}

	denied := webhooktest.Admit(t, reg, webhooktest.Create(t, pod("web", "nginx:latest")), webhooktest.AdmitOptions{})
	const want = `admission webhook "tags.example.com" denied the request: Pod "web" is invalid: spec.containers[0].image: Invalid value: "nginx:latest": pin a version`
	if denied.Allowed || denied.Errored || denied.Status == nil || denied.Status.Code != 422 || denied.Status.Message != want {
		t.Errorf("denied: %+v\nwant message %s", denied.Status, want)
	}

	// Registered webhooks fail closed by default: a failure rejects with a 500 naming the webhook.
	failed := webhooktest.Admit(t, reg, webhooktest.Create(t, pod("broken", "nginx:1.27")), webhooktest.AdmitOptions{})
	if failed.Allowed || !failed.Errored || failed.Status == nil || failed.Status.Code != 500 || !strings.Contains(failed.Status.Message, `failed calling webhook "tags.example.com"`) {
		t.Errorf("failed: %+v", failed.Status)
	}

	// The webhooks never see kube-system.
	system := webhooktest.Admit(t, reg, webhooktest.Create(t, pod("dns", "nginx:latest"), webhooktest.Namespace("kube-system")), webhooktest.AdmitOptions{})
	if !system.Allowed {
		t.Errorf("a kube-system Pod: %+v", system.Status)
	}
}

// Admit keeps the server's own namespace from the configuration's client config: exempt by
// default, served with ServeOwnNamespace, as the configurations deployed say.
func TestAdmitHonoursTheOwnNamespaceExemption(t *testing.T) {
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	err := reg.Register(webhook.Webhook{Name: "deny.example.com", Type: webhook.TypeValidating, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		Handler: webhook.HandlerFunc(func(context.Context, *webhook.Request) webhook.Response { return webhook.Denied("no") })})
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "webhook-system"}}
	tests := []struct {
		name        string
		config      webhook.ConfigOptions
		wantAllowed bool
	}{
		{"exempt", webhook.ConfigOptions{ClientConfig: webhook.ClientConfig{Service: "webhook", Namespace: "webhook-system"}}, true},
		{"served", webhook.ConfigOptions{ClientConfig: webhook.ClientConfig{Service: "webhook", Namespace: "webhook-system"}, ServeOwnNamespace: true}, false},
		{"another namespace's server", webhook.ConfigOptions{ClientConfig: webhook.ClientConfig{Service: "webhook", Namespace: "elsewhere"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := webhooktest.Admit(t, reg, webhooktest.Create(t, cm), webhooktest.AdmitOptions{Config: tt.config}); got.Allowed != tt.wantAllowed {
				t.Errorf("allowed %v, want %v: %+v", got.Allowed, tt.wantAllowed, got.Status)
			}
		})
	}
}
