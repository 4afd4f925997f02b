package webhook

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

var (
	podGVK        = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	ingressGVK    = schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}
)

func TestPath(t *testing.T) {
	tests := []struct {
		typ  Type
		gvk  schema.GroupVersionKind
		want string
	}{
		{TypeMutating, podGVK, "/mutate-core-v1-pod"},
		{TypeValidating, deploymentGVK, "/validate-apps-v1-deployment"},
		{TypeValidating, ingressGVK, "/validate-networking-k8s-io-v1-ingress"},
	}
	for _, tt := range tests {
		if got := Path(tt.typ, tt.gvk); got != tt.want {
			t.Errorf("Path(%s, %s) = %q, want %q", tt.typ, tt.gvk, got, tt.want)
		}
	}
}

var allowHandler = HandlerFunc(func(context.Context, *Request) Response { return Allowed() })

// partialIngress is a webhook's own view of the fields of an Ingress it reads.
type partialIngress struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (p *partialIngress) DeepCopyObject() runtime.Object { c := *p; return &c }

type nopDefaulter struct{}

func (nopDefaulter) Default(context.Context, *Request, *corev1.Pod) ([]string, error) {
	return nil, nil
}

type nopValidator[T runtime.Object] struct{}

func (nopValidator[T]) ValidateCreate(context.Context, *Request, T) ([]string, error) {
	return nil, nil
}
func (nopValidator[T]) ValidateUpdate(context.Context, *Request, T, T) ([]string, error) {
	return nil, nil
}
func (nopValidator[T]) ValidateDelete(context.Context, *Request, T) ([]string, error) {
	return nil, nil
}

// A typed handler whose Go type matches the webhook, and an unstructured one, are accepted.
func TestRegistryAcceptsMatchingTypedHandlers(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	for _, w := range []Webhook{
		{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Handler: DefaultingHandler[*corev1.Pod](nopDefaulter{})},
		{Name: "deployments.example.com", Type: TypeValidating, Kind: deploymentGVK, Resource: "deployments", Handler: ValidatingHandler[*appsv1.Deployment](nopValidator[*appsv1.Deployment]{})},
		{Name: "widgets.example.com", Type: TypeValidating, Kind: widget, Resource: "widgets", Handler: ValidatingHandler[*unstructured.Unstructured](nopValidator[*unstructured.Unstructured]{})},
		{Name: "pods.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: ValidatingHandler[*corev1.Pod](nopValidator[*corev1.Pod]{})},
		// A metadata-only view, and a partial type of one's own, fit any kind.
		{Name: "metadata.example.com", Type: TypeValidating, Kind: deploymentGVK, Resource: "deployments", Path: "/metadata", Handler: ValidatingHandler[*metav1.PartialObjectMetadata](nopValidator[*metav1.PartialObjectMetadata]{})},
		{Name: "partial.example.com", Type: TypeValidating, Kind: ingressGVK, Resource: "ingresses", Handler: ValidatingHandler[*partialIngress](nopValidator[*partialIngress]{})},
	} {
		if err := r.Register(w); err != nil {
			t.Errorf("Register(%s %s): %v", w.Type, w.Name, err)
		}
	}
}

// A nil Defaulter that reaches a request (a handler used without a Registry) fails the request
// for the failure policy to decide, instead of panicking.
func TestNilDefaulterFailsTheRequest(t *testing.T) {
	resp := DefaultingHandler[*corev1.Pod](nil).Admit(context.Background(), &Request{AdmissionRequest: admissionv1.AdmissionRequest{Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Operation: admissionv1.Create}})
	if resp.Outcome != OutcomeErrored || resp.Status == nil || !strings.Contains(resp.Status.Message, "has no Defaulter") {
		t.Errorf("response %+v", resp)
	}
}

func TestRegistryRefusesBadRegistrations(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	ok := Webhook{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Handler: allowHandler}
	if err := r.Register(ok); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		w    Webhook
		want string
	}{
		{"same generated path", Webhook{Name: "again.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Handler: allowHandler},
			`registering webhook "again.example.com": path /mutate-core-v1-pod is already served by webhook "pods.example.com"`},
		{"same custom path", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Path: "/mutate-core-v1-pod", Handler: allowHandler},
			`path /mutate-core-v1-pod is already served`},
		{"relative path", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Path: "pods", Handler: allowHandler},
			`path "pods" must start with /`},
		{"everything missing", Webhook{}, `registering webhook "": name is required; type "" must be TypeMutating ("mutating") or TypeValidating ("validating"); kind needs a version and a kind; resource is required; handler is required`},
		{"a name used twice in a configuration", Webhook{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Path: "/other", Handler: allowHandler},
			`name "pods.example.com": a mutating webhook of that name is already registered (names are unique in a configuration)`},
		{"a one-segment name", Webhook{Name: "dup", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: allowHandler},
			`name "dup": kube-apiserver wants a lower-case domain name with at least three segments`},
		{"an upper-case name", Webhook{Name: "Pods.Example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: allowHandler},
			`name "Pods.Example.com": kube-apiserver wants a lower-case domain name`},
		{"a type spelled its own way", Webhook{Name: "x.example.com", Type: "Mutating", Kind: podGVK, Resource: "pods", Handler: allowHandler},
			`type "Mutating" must be TypeMutating ("mutating") or TypeValidating ("validating")`},
		{"a singular resource", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: ingressGVK, Resource: "ingress", Handler: allowHandler},
			`resource "ingress" is the kind's singular: rules match the plural, "ingresses"`},
		{"an upper-case resource", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: podGVK, Resource: "Pods", Handler: allowHandler},
			`resource "Pods": resources are lower case ("pods")`},
		{"values kube-apiserver refuses", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: allowHandler,
			Scope: "Namespace", Operations: []admissionregistrationv1.OperationType{"PATCH"}, FailurePolicy: "Retry", TimeoutSeconds: 60},
			`scope "Namespace" must be Namespaced, Cluster or *; operation "PATCH" must be CREATE, UPDATE, DELETE, CONNECT or *; failurePolicy "Retry" must be Fail or Ignore; timeoutSeconds 60 must be between 1 and 30 (0 for the default, 5)`},
		{"a typed handler for another kind", Webhook{Name: "x.example.com", Type: TypeMutating, Kind: deploymentGVK, Resource: "deployments", Handler: DefaultingHandler[*corev1.Pod](nopDefaulter{})},
			`DefaultingHandler[*v1.Pod] decodes Pod objects, but the webhook is registered for kind Deployment`},
		{"a typed handler for another version", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"}, Resource: "deployments", Handler: ValidatingHandler[*appsv1.Deployment](nopValidator[*appsv1.Deployment]{})},
			`ValidatingHandler[*v1.Deployment] decodes Deployment objects of version v1, but the webhook is registered for apps/v1beta2`},
		{"a typed handler for another group", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: schema.GroupVersionKind{Group: "extensions", Version: "v1", Kind: "Deployment"}, Resource: "deployments", Handler: ValidatingHandler[*appsv1.Deployment](nopValidator[*appsv1.Deployment]{})},
			`ValidatingHandler[*v1.Deployment] decodes Deployment objects of Kubernetes' apps API group, but the webhook is registered for group "extensions"`},
		{"a DefaultingHandler as a validating webhook", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: DefaultingHandler[*corev1.Pod](nopDefaulter{})},
			`a DefaultingHandler changes objects: register it as TypeMutating`},
		{"a nil Defaulter", Webhook{Name: "x.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Path: "/nil", Handler: DefaultingHandler[*corev1.Pod](nil)},
			`the DefaultingHandler's Defaulter is nil`},
		{"a nil Validator", Webhook{Name: "x.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: ValidatingHandler[*corev1.Pod]((*nopValidator[*corev1.Pod])(nil))},
			`the ValidatingHandler's Validator is nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Register(tt.w)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if got := len(r.Webhooks()); got != 1 {
		t.Fatalf("%d webhooks registered, want 1", got)
	}
}

func TestRegistryServesEachPathAndGuardsTheKind(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	if err := r.Register(Webhook{Name: "pods.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: allowHandler}); err != nil {
		t.Fatal(err)
	}
	body := reviewJSON(t, "admission.k8s.io/v1", podCreateRequest())

	w := postPath(t, r, "/validate-core-v1-pod", body)
	if w.Code != http.StatusOK {
		t.Fatalf("registered path: code %d: %s", w.Code, w.Body.String())
	}
	if w := postPath(t, r, "/other", body); w.Code != http.StatusNotFound {
		t.Fatalf("unknown path: code %d, want 404", w.Code)
	}

	cm := podCreateRequest()
	cm.Kind = metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	w = postPath(t, r, "/validate-core-v1-pod", reviewJSON(t, "admission.k8s.io/v1", cm))
	if w.Code != http.StatusBadRequest {
		t.Fatalf("wrong kind: code %d, want 400", w.Code)
	}
	if s := decodeStatus(t, w); s.Message != "this webhook handles /v1, Kind=Pod, not /v1, Kind=ConfigMap: check the rules of its configuration" {
		t.Fatalf("message = %q", s.Message)
	}
}

func postPath(t *testing.T, h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestRegistryConfigurations(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	for _, w := range []Webhook{
		{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Scope: admissionregistrationv1.NamespacedScope, Handler: allowHandler},
		{Name: "deployments.example.com", Type: TypeValidating, Kind: deploymentGVK, Resource: "deployments", Handler: allowHandler,
			FailurePolicy: admissionregistrationv1.Ignore, TimeoutSeconds: 3, Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}},
	} {
		if err := r.Register(w); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("service mode", func(t *testing.T) {
		m, v, err := r.Configurations(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{Service: "admit", Namespace: "admit-system", CABundle: []byte("PEM")}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := yaml.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		want := `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: admit
webhooks:
- admissionReviewVersions:
  - v1
  - v1beta1
  clientConfig:
    caBundle: UEVN
    service:
      name: admit
      namespace: admit-system
      path: /mutate-core-v1-pod
      port: 443
  failurePolicy: Fail
  matchPolicy: Equivalent
  name: pods.example.com
  namespaceSelector:
    matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values:
      - admit-system
      - kube-system
    - key: admit.dev/runlevel
      operator: NotIn
      values:
      - "0"
      - "1"
      - "2"
  objectSelector: {}
  reinvocationPolicy: Never
  rules:
  - apiGroups:
    - ""
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - pods
    scope: Namespaced
  sideEffects: None
  timeoutSeconds: 5
`
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Fatalf("mutating configuration (-want +got):\n%s", diff)
		}
		if len(v.Webhooks) != 1 || *v.Webhooks[0].FailurePolicy != admissionregistrationv1.Ignore || *v.Webhooks[0].TimeoutSeconds != 3 ||
			*v.Webhooks[0].ClientConfig.Service.Path != "/validate-apps-v1-deployment" || *v.Webhooks[0].Rules[0].Scope != admissionregistrationv1.AllScopes {
			t.Fatalf("validating configuration = %+v", v.Webhooks)
		}
	})

	t.Run("URL mode", func(t *testing.T) {
		_, v, err := r.Configurations(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{URL: "https://127.0.0.1:9443/"}, ExemptNamespaces: []string{"cert-manager"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := *v.Webhooks[0].ClientConfig.URL; got != "https://127.0.0.1:9443/validate-apps-v1-deployment" {
			t.Fatalf("url = %q", got)
		}
		if got := v.Webhooks[0].NamespaceSelector.MatchExpressions[0].Values; !cmp.Equal(got, []string{"cert-manager", "kube-system"}) {
			t.Fatalf("exempt namespaces = %v", got)
		}
	})

	t.Run("serving the own namespace", func(t *testing.T) {
		for _, tt := range []struct {
			serveOwn bool
			want     []string
		}{
			{serveOwn: false, want: []string{"admit-system", "kube-system"}},
			{serveOwn: true, want: []string{"kube-system"}},
		} {
			_, v, err := r.Configurations(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{Service: "admit", Namespace: "admit-system"}, ServeOwnNamespace: tt.serveOwn})
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Webhooks[0].NamespaceSelector.MatchExpressions[0].Values; !cmp.Equal(got, tt.want) {
				t.Errorf("ServeOwnNamespace %v: exempt namespaces %v, want %v", tt.serveOwn, got, tt.want)
			}
		}
	})

	t.Run("bad options", func(t *testing.T) {
		for _, opts := range []ConfigOptions{
			{ClientConfig: ClientConfig{URL: "https://x"}},
			{Name: "a"},
			{Name: "a", ClientConfig: ClientConfig{URL: "https://x", Service: "s", Namespace: "n"}},
			{Name: "a", ClientConfig: ClientConfig{Service: "s"}},
		} {
			if _, _, err := r.Configurations(opts); err == nil {
				t.Errorf("Configurations(%+v) succeeded, want an error", opts)
			}
		}
	})
}

func TestRegistryConfigurationsYAML(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	if err := r.Register(Webhook{Name: "pods.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: allowHandler}); err != nil {
		t.Fatal(err)
	}
	out, err := r.ConfigurationsYAML(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{URL: "https://127.0.0.1:9443"}})
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(out), "---\n")
	if len(docs) != 1 || !strings.HasPrefix(docs[0], "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n") {
		t.Fatalf("want one validating configuration, got:\n%s", out)
	}
	var back admissionregistrationv1.ValidatingWebhookConfiguration
	if err := yaml.UnmarshalStrict(out, &back); err != nil {
		t.Fatalf("emitted YAML does not decode strictly: %v", err)
	}
	if *back.Webhooks[0].ClientConfig.URL != "https://127.0.0.1:9443/validate-core-v1-pod" {
		t.Fatalf("url = %s", *back.Webhooks[0].ClientConfig.URL)
	}
}
