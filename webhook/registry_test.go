package webhook

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	if resp.Outcome != OutcomeError || resp.Status == nil || !strings.Contains(resp.Status.Message, "has no Defaulter") {
		t.Errorf("response %+v", resp)
	}
}

// Every misuse fails Register with a message naming the field, and registers nothing.
func TestRegistryRefusesBadRegistrations(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	ok := Webhook{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Handler: allowHandler}
	if err := r.Register(ok); err != nil {
		t.Fatal(err)
	}
	valid := func(change func(w *Webhook)) Webhook {
		w := Webhook{Name: "x.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Path: "/x", Handler: allowHandler}
		change(&w)
		return w
	}
	tests := []struct {
		name string
		w    Webhook
		want string
	}{
		{"same generated path", Webhook{Name: "again.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Handler: allowHandler},
			`registering webhook "again.example.com": path: Invalid value: "/mutate-core-v1-pod": is already served by webhook "pods.example.com"`},
		{"same custom path", valid(func(w *Webhook) { w.Path = "/mutate-core-v1-pod" }),
			`registering webhook "x.example.com": path: Invalid value: "/mutate-core-v1-pod": is already served by webhook "pods.example.com"`},
		{"relative path", valid(func(w *Webhook) { w.Path = "pods" }),
			`registering webhook "x.example.com": path: Invalid value: "pods": must start with /`},
		{"everything missing", Webhook{},
			`registering webhook "": name: Required value; type: Unsupported value: "": supported values: "mutating", "validating"; handler: Required value; ` +
				`kind: Required value: the kind the handler decodes (or rules, for a handler that takes any kind); resource: Required value`},
		{"a name used twice in a configuration", Webhook{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Path: "/other", Handler: allowHandler},
			`registering webhook "pods.example.com": name: Invalid value: "pods.example.com": a mutating webhook of that name is already registered (names are unique in a configuration)`},
		{"a one-segment name", valid(func(w *Webhook) { w.Name = "dup" }),
			`registering webhook "dup": name: Invalid value: "dup": should be a domain with at least three segments separated by dots`},
		{"an upper-case name", valid(func(w *Webhook) { w.Name = "Pods.Example.com" }),
			`registering webhook "Pods.Example.com": name: Invalid value: "Pods.Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters`},
		{"a type spelled its own way", valid(func(w *Webhook) { w.Type = "Mutating" }),
			`registering webhook "x.example.com": type: Unsupported value: "Mutating": supported values: "mutating", "validating"`},
		{"values kube-apiserver refuses", valid(func(w *Webhook) {
			w.Scope, w.Operations, w.FailurePolicy, w.TimeoutSeconds = "Namespace", []admissionregistrationv1.OperationType{"PATCH"}, "Retry", 60
			w.MatchPolicy, w.SideEffects = "Loose", admissionregistrationv1.SideEffectClassSome
		}),
			`registering webhook "x.example.com": scope: Unsupported value: "Namespace": supported values: "*", "Cluster", "Namespaced"; ` +
				`operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"; ` +
				`failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"; matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"; ` +
				`sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"; timeoutSeconds: Invalid value: 60: must be between 1 and 30 seconds (0 for the default, 5)`},
		{"a reinvocation policy of its own", valid(func(w *Webhook) { w.Type, w.Path, w.ReinvocationPolicy = TypeMutating, "/m", "Always" }),
			`registering webhook "x.example.com": reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`},
		{"a validating webhook reinvoked", valid(func(w *Webhook) { w.ReinvocationPolicy = admissionregistrationv1.IfNeededReinvocationPolicy }),
			`registering webhook "x.example.com": reinvocationPolicy: Forbidden: only mutating webhooks are reinvoked`},
		{"a nil HandlerFunc", valid(func(w *Webhook) { w.Handler = HandlerFunc(nil) }),
			`registering webhook "x.example.com": handler: Required value: the webhook.HandlerFunc is nil: it would panic at the first request`},
		{"a DefaultingHandler as a validating webhook", valid(func(w *Webhook) { w.Handler = DefaultingHandler[*corev1.Pod](nopDefaulter{}) }),
			`registering webhook "x.example.com": type: Invalid value: "validating": a DefaultingHandler changes objects: register it as TypeMutating (a validating webhook's patch is refused)`},
		{"a nil Defaulter", valid(func(w *Webhook) { w.Type, w.Handler = TypeMutating, DefaultingHandler[*corev1.Pod](nil) }),
			`registering webhook "x.example.com": handler: Required value: the DefaultingHandler's Defaulter is nil`},
		{"a nil Validator", valid(func(w *Webhook) { w.Handler = ValidatingHandler[*corev1.Pod]((*nopValidator[*corev1.Pod])(nil)) }),
			`registering webhook "x.example.com": handler: Required value: the ValidatingHandler's Validator is nil`},
		{"selectors kube-apiserver refuses", valid(func(w *Webhook) {
			w.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists, Values: []string{"web"}}}}
			w.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a b"}}
		}),
			`registering webhook "x.example.com": objectSelector.matchExpressions[0].values: Forbidden: may not be specified when ` + "`operator`" + ` is 'Exists' or 'DoesNotExist'; ` +
				`namespaceSelector.matchLabels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Register(tt.w)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error:\n%v\nwant it to start with:\n%s", err, tt.want)
			}
		})
	}
	if got := len(r.Webhooks()); got != 1 {
		t.Fatalf("%d webhooks registered, want 1", got)
	}
}

// What the caller keeps of a Webhook after Register cannot change the registered one.
func TestRegisterCopiesWhatTheCallerKeeps(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	w := Webhook{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Handler: allowHandler,
		Operations:      []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		ObjectSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		MatchConditions: []admissionregistrationv1.MatchCondition{NotMirrorPod()}}
	if err := r.Register(w); err != nil {
		t.Fatal(err)
	}
	w.Operations[0], w.ObjectSelector.MatchLabels["app"], w.MatchConditions[0].Name = admissionregistrationv1.Delete, "db", "changed"
	got := r.Webhooks()[0]
	if got.Operations[0] != admissionregistrationv1.Create || got.ObjectSelector.MatchLabels["app"] != "web" || got.MatchConditions[0].Name != "not-mirror-pod" {
		t.Errorf("the registered webhook changed with the caller's: %+v", got)
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
