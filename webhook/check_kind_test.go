package webhook

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	widgetsv1 "github.com/admitkit/admit/webhook/internal/apitest/v1"
)

func widgetScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := widgetsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func rule(ops []admissionregistrationv1.OperationType, groups, versions, resources []string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources}}
}

var create = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}

// Kinds are taken from the handler's Go type where it says them, resources of Kubernetes'
// own kinds from the resources it serves.
func TestRegisterFillsKindAndResourceIn(t *testing.T) {
	widget := schema.GroupVersionKind{Group: "widgets.example.com", Version: "v1", Kind: "Widget"}
	tests := []struct {
		name         string
		w            Webhook
		wantKind     schema.GroupVersionKind
		wantResource string
		wantPath     string
	}{
		{"a Kubernetes type", Webhook{Name: "pods.example.com", Type: TypeMutating, Handler: DefaultingHandler[*corev1.Pod](nopDefaulter{})},
			podGVK, "pods", "/mutate-core-v1-pod"},
		{"a Kubernetes type in a group", Webhook{Name: "deployments.example.com", Type: TypeValidating, Handler: ValidatingHandler[*appsv1.Deployment](nopValidator[*appsv1.Deployment]{})},
			deploymentGVK, "deployments", "/validate-apps-v1-deployment"},
		{"a type of a Scheme", Webhook{Name: "widgets.example.com", Type: TypeValidating, Scheme: widgetScheme(t), Resource: "widgets",
			Handler: ValidatingHandler[*widgetsv1.Widget](nopValidator[*widgetsv1.Widget]{})}, widget, "widgets", "/validate-widgets-example-com-v1-widget"},
		{"a Kubernetes kind given", Webhook{Name: "configmaps.example.com", Type: TypeValidating, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Handler: allowHandler},
			corev1.SchemeGroupVersion.WithKind("ConfigMap"), "configmaps", "/validate-core-v1-configmap"},
		{"any kind, by rules", Webhook{Name: "workloads.example.com", Type: TypeValidating, Handler: allowHandler,
			Rules: []admissionregistrationv1.RuleWithOperations{rule(create, []string{"apps"}, []string{"v1"}, []string{"deployments", "statefulsets"})}},
			schema.GroupVersionKind{}, "", "/validate-workloads-example-com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry(HTTPOptions{})
			if err := r.Register(tt.w); err != nil {
				t.Fatal(err)
			}
			got := r.Webhooks()[0]
			if diff := cmp.Diff([]any{tt.wantKind, tt.wantResource, tt.wantPath}, []any{got.Kind, got.Resource, got.Path}); diff != "" {
				t.Errorf("kind, resource, path (-want +got):\n%s", diff)
			}
		})
	}
	// The Registry's Scheme, given once, is the Scheme of the webhooks that give none.
	r := NewRegistry(HTTPOptions{Scheme: widgetScheme(t)})
	err := r.Register(Webhook{Name: "widgets.example.com", Type: TypeValidating, Resource: "widgets",
		Handler: ValidatingHandler[*widgetsv1.Widget](nopValidator[*widgetsv1.Widget]{})})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Webhooks()[0].Kind; got != widget {
		t.Errorf("with the Registry's Scheme: kind %v, want %v", got, widget)
	}
}

// A typed handler whose Go type matches the webhook, an unstructured one and partial views are
// accepted; so are the subresources and scopes Kubernetes serves.
func TestRegistryAcceptsMatchingRegistrations(t *testing.T) {
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
		// A type of your own named after its kind, without a Scheme: kind and version by name.
		{Name: "named.example.com", Type: TypeValidating, Kind: schema.GroupVersionKind{Group: "any.example.com", Version: "v1", Kind: "Widget"}, Resource: "widgets",
			Handler: ValidatingHandler[*widgetsv1.Widget](nopValidator[*widgetsv1.Widget]{})},
		{Name: "attach.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods/attach", Path: "/attach", Handler: allowHandler,
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Connect}},
		{Name: "namespaces.example.com", Type: TypeValidating, Kind: corev1.SchemeGroupVersion.WithKind("Namespace"), Scope: admissionregistrationv1.ClusterScope, Handler: allowHandler},
		// A version Kubernetes 1.36 no longer serves may still be served by an older cluster.
		{Name: "old.example.com", Type: TypeValidating, Kind: schema.GroupVersionKind{Group: "batch", Version: "v1beta1", Kind: "CronJob"}, Resource: "cronjobs", Handler: allowHandler},
		// A kind and a resource of a built-in group that 1.36 does not serve by default (beta).
		{Name: "beta.example.com", Type: TypeValidating, Kind: schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1beta1", Kind: "LeaseCandidate"}, Resource: "leasecandidates", Handler: allowHandler},
		{Name: "status.example.com", Type: TypeValidating, Handler: allowHandler, Rules: []admissionregistrationv1.RuleWithOperations{
			rule([]admissionregistrationv1.OperationType{admissionregistrationv1.Update}, []string{"", "apps"}, []string{"*"}, []string{"pods/status", "deployments/*"}),
			rule(create, []string{"example.com"}, []string{"v1"}, []string{"*"}),
		}},
		{Name: "ephemeral.example.com", Type: TypeMutating, Handler: DefaultingHandler[*corev1.Pod](nopDefaulter{}), Path: "/ephemeral", Rules: []admissionregistrationv1.RuleWithOperations{
			rule(create, []string{""}, []string{"v1"}, []string{"pods"}),
			rule([]admissionregistrationv1.OperationType{admissionregistrationv1.Update}, []string{""}, []string{"v1"}, []string{"pods/ephemeralcontainers"}),
		}},
	} {
		if err := r.Register(w); err != nil {
			t.Errorf("Register(%s %s): %v", w.Type, w.Name, err)
		}
	}
}

// A kind, a resource or rules that do not fit the handler or what Kubernetes serves are
// refused, naming the field.
func TestRegistryRefusesKindsAndResourcesThatDoNotFit(t *testing.T) {
	otherGroup := schema.GroupVersionKind{Group: "other.example.com", Version: "v1", Kind: "Widget"}
	widgetV1 := schema.GroupVersionKind{Group: "widgets.example.com", Version: "v1", Kind: "Widget"}
	tests := []struct {
		name string
		w    Webhook
		want string
	}{
		{"Pod with the resource of Deployments", Webhook{Kind: podGVK, Resource: "deployments", Handler: allowHandler},
			`resource: Invalid value: "deployments": group core has no resource "deployments": the resource of Pod is "pods"`},
		{"Pod with the resource of ConfigMaps", Webhook{Kind: podGVK, Resource: "configmaps", Handler: allowHandler},
			`resource: Invalid value: "configmaps": configmaps of group core hold ConfigMap objects, not Pod: the resource of Pod is "pods"`},
		{"a singular resource", Webhook{Kind: ingressGVK, Resource: "ingress", Handler: allowHandler},
			`resource: Invalid value: "ingress": group networking.k8s.io has no resource "ingress": the resource of Ingress is "ingresses"`},
		{"a singular custom resource", Webhook{Kind: otherGroup, Resource: "widget", Handler: allowHandler},
			`resource: Invalid value: "widget": is the kind's singular: rules match the plural, "widgets"`},
		{"an upper-case resource", Webhook{Kind: podGVK, Resource: "Pods", Handler: allowHandler},
			`resource: Invalid value: "Pods": resources are lower case ("pods")`},
		{"a subresource that does not exist", Webhook{Kind: podGVK, Resource: "pods/stats", Handler: allowHandler},
			`resource: Invalid value: "pods/stats": pods have no subresource "stats" (they have attach, binding, ephemeralcontainers, eviction, exec, log, portforward, proxy, resize, status)`},
		{"a wildcard for one kind", Webhook{Kind: podGVK, Resource: "*", Handler: allowHandler},
			`resource: Invalid value: "*": a wildcard matches other resources than Pod's, which the handler cannot decode: use rules, with an empty kind for a handler that takes any kind`},
		{"a scope the resource has not", Webhook{Kind: corev1.SchemeGroupVersion.WithKind("Namespace"), Scope: admissionregistrationv1.NamespacedScope, Handler: allowHandler},
			`scope: Invalid value: "Namespaced": namespaces are cluster-scoped: the webhook would never be called`},
		{"a custom kind without a resource", Webhook{Kind: otherGroup, Handler: allowHandler},
			`resource: Required value: the plural resource of kind Widget, probably "widgets"`},
		{"a typed handler for another kind", Webhook{Type: TypeMutating, Kind: deploymentGVK, Handler: DefaultingHandler[*corev1.Pod](nopDefaulter{})},
			`kind: Invalid value: "apps/v1 Deployment": the handler decodes *v1.Pod, which is v1 Pod in Kubernetes' API`},
		{"a typed handler for another version", Webhook{Kind: schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"}, Handler: ValidatingHandler[*appsv1.Deployment](nopValidator[*appsv1.Deployment]{})},
			`kind: Invalid value: "apps/v1beta2 Deployment": the handler decodes *v1.Deployment, which is apps/v1 Deployment in Kubernetes' API`},
		{"a typed handler for another group", Webhook{Kind: schema.GroupVersionKind{Group: "extensions", Version: "v1", Kind: "Deployment"}, Resource: "deployments", Handler: ValidatingHandler[*appsv1.Deployment](nopValidator[*appsv1.Deployment]{})},
			`kind: Invalid value: "extensions/v1 Deployment": the handler decodes *v1.Deployment, which is apps/v1 Deployment in Kubernetes' API`},
		{"a custom type under another kind", Webhook{Kind: schema.GroupVersionKind{Group: "widgets.example.com", Version: "v1", Kind: "Gadget"}, Resource: "gadgets",
			Handler: ValidatingHandler[*widgetsv1.Widget](nopValidator[*widgetsv1.Widget]{})},
			`kind: Invalid value: "widgets.example.com/v1 Gadget": the handler decodes *v1.Widget, of kind Widget by its name and of version v1 by its package; give the webhook the Scheme its type is registered in to have the group checked too`},
		{"a custom type under another group, with its Scheme", Webhook{Kind: otherGroup, Resource: "widgets", Scheme: widgetScheme(t),
			Handler: ValidatingHandler[*widgetsv1.Widget](nopValidator[*widgetsv1.Widget]{})},
			`kind: Invalid value: "other.example.com/v1 Widget": the handler decodes *v1.Widget, which is widgets.example.com/v1 Widget in the webhook's Scheme`},
		{"a custom type the Scheme does not know", Webhook{Kind: widgetV1, Resource: "gadgets", Scheme: widgetScheme(t),
			Handler: ValidatingHandler[*widgetsv1.Gadget](nopValidator[*widgetsv1.Gadget]{})},
			`kind: Invalid value: "widgets.example.com/v1 Widget": the handler decodes *v1.Gadget, of kind Gadget by its name and of version v1 by its package; give the webhook the Scheme its type is registered in to have the group checked too; ` +
				`scheme: Invalid value: "*v1.Gadget": the handler's type is not registered in the Scheme: add it (AddToScheme), or leave the Scheme out for a partial view of objects`},
		{"a custom type without its group", Webhook{Resource: "widgets", Handler: ValidatingHandler[*widgetsv1.Widget](nopValidator[*widgetsv1.Widget]{})},
			`kind: Required value: the group of *v1.Widget is not known: set kind, or give the webhook the Scheme its type is registered in`},
		{"rules beside a resource", Webhook{Kind: podGVK, Resource: "pods", Scope: admissionregistrationv1.AllScopes, Handler: allowHandler,
			Rules: []admissionregistrationv1.RuleWithOperations{rule(create, []string{""}, []string{"v1"}, []string{"pods"})}},
			`resource: Forbidden: the rules say it: set either rules, or resource, scope and operations; scope: Forbidden: the rules say it: set either rules, or resource, scope and operations`},
		{"rules kube-apiserver refuses", Webhook{Handler: allowHandler, Rules: []admissionregistrationv1.RuleWithOperations{
			rule(nil, []string{"*", "apps"}, []string{""}, []string{"*/*", "pods"}),
			rule([]admissionregistrationv1.OperationType{"PATCH"}, nil, []string{"v1"}, nil),
		}},
			`rules[0].operations: Required value; rules[0].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups; ` +
				`rules[0].apiVersions[0]: Required value; rules[0].resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources; ` +
				`rules[1].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"; rules[1].apiGroups: Required value; rules[1].resources: Required value`},
		{"rules naming a resource Kubernetes does not serve", Webhook{Handler: allowHandler, Rules: []admissionregistrationv1.RuleWithOperations{
			rule(create, []string{"apps"}, []string{"v1"}, []string{"deployment", "replicasets/logs"})}},
			`rules[0].resources[0]: Invalid value: "deployment": group apps has no resource "deployment" (did you mean "deployments"?); ` +
				`rules[0].resources[1]: Invalid value: "replicasets/logs": replicasets have no subresource "logs" (they have scale, status)`},
		{"rules sending a one-kind handler other versions and resources", Webhook{Handler: DefaultingHandler[*corev1.Pod](nopDefaulter{}), Type: TypeMutating,
			Rules: []admissionregistrationv1.RuleWithOperations{rule(create, []string{""}, []string{"v1", "v2"}, []string{"pods", "configmaps"})}},
			`rules[0].apiVersions: Invalid value: ["v1","v2"]: the handler decodes v1 Pod only, requests for others would be answered 400: name "v1" alone, or leave kind empty for a handler that takes any kind; ` +
				`rules[0].resources[1]: Invalid value: "configmaps": a webhook that decodes one kind matches one resource, not pods and configmaps`},
		{"rules sending a one-kind handler another resource in another rule", Webhook{Kind: podGVK, Handler: allowHandler, Rules: []admissionregistrationv1.RuleWithOperations{
			rule(create, []string{""}, []string{"v1"}, []string{"pods"}), rule(create, []string{""}, []string{"v1"}, []string{"secrets"})}},
			`rules[1].resources[0]: Invalid value: "secrets": a webhook that decodes one kind matches one resource, not pods and secrets`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			w.Name, w.Path = "x.example.com", "/x"
			if w.Type == "" {
				w.Type = TypeValidating
			}
			err := NewRegistry(HTTPOptions{}).Register(w)
			want := `registering webhook "x.example.com": ` + tt.want
			if err == nil || err.Error() != want {
				t.Fatalf("error:\n%v\nwant:\n%s", err, want)
			}
		})
	}
}

// Register's errors unwrap to the field errors, for callers that want the fields.
func TestRegisterErrorsUnwrapToFieldErrors(t *testing.T) {
	err := NewRegistry(HTTPOptions{}).Register(Webhook{Name: "x.example.com", Type: TypeValidating, Kind: podGVK, Resource: "deployments", TimeoutSeconds: 90, Handler: allowHandler})
	var fields []string
	for _, e := range err.(interface{ Unwrap() error }).Unwrap().(interface{ Unwrap() []error }).Unwrap() {
		fields = append(fields, strings.SplitN(e.Error(), ":", 2)[0])
	}
	if diff := cmp.Diff([]string{"resource", "timeoutSeconds"}, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}
