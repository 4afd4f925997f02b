package webhook

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	widgetsv1 "github.com/admitkit/admit/webhook/internal/apitest/v1"
)

// Register refuses a match condition that cannot succeed on the kind the handler's Go type is,
// when that type is Kubernetes' own (its published schema is made from the Go type): a field
// the kind does not have fails every request at runtime. Kinds whose schema Register does not
// know are not checked.
func TestRegisterTypeChecksMatchConditions(t *testing.T) {
	pods := func(name string, h Handler, exprs ...string) Webhook {
		return Webhook{Name: name, Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: h, MatchConditions: numbered(exprs...)}
	}
	podHandler := ValidatingHandler[*corev1.Pod](nopValidator[*corev1.Pod]{})
	widgetScheme := runtime.NewScheme()
	if err := widgetsv1.AddToScheme(widgetScheme); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		w    Webhook
		want []string
	}{
		{"a misspelt field of a pod", pods("pods.example.com", podHandler, "object.spec.containerz.size() > 0"), []string{
			`matchConditions[0].expression: Invalid value: "object.spec.containerz.size() > 0": does not type-check against Pod (v1): undefined field 'containerz' at line 1, column 12: evaluating it fails, and failurePolicy decides the request (Fail rejects it, Ignore skips the webhook)`,
		}},
		{"the old object and a later condition", pods("pods.example.com", podHandler, "true", "oldObject == null || oldObject.spec.nodeNam == ''"), []string{
			`matchConditions[1].expression: Invalid value: "oldObject == null || oldObject.spec.nodeNam == ''": does not type-check against Pod (v1): undefined field 'nodeNam' at line 1, column 36: evaluating it fails, and failurePolicy decides the request (Fail rejects it, Ignore skips the webhook)`,
		}},
		{"a field of another kind, the kind from the Go type", Webhook{Name: "deployments.example.com", Type: TypeMutating, Handler: DefaultingHandler[*appsv1.Deployment](DefaulterFunc[*appsv1.Deployment](nopDefault[*appsv1.Deployment])),
			MatchConditions: numbered("object.spec.containers.size() > 0")}, []string{
			`matchConditions[0].expression: Invalid value: "object.spec.containers.size() > 0": does not type-check against Deployment (apps/v1): undefined field 'containers' at line 1, column 12: evaluating it fails, and failurePolicy decides the request (Fail rejects it, Ignore skips the webhook)`,
		}},

		{"fields a pod has", pods("pods.example.com", podHandler,
			"object.spec.containers.size() > 0",
			"has(object.metadata.labels) && object.metadata.labels['app'] == 'web'",
			"object.spec.containers.all(c, !has(c.resources.limits) || c.resources.limits.cpu != '0')",
			"object.metadata.namespace != 'kube-system'"), nil},
		{"the request, the authorizer, the mirror pod condition", pods("pods.example.com", podHandler,
			"request.userInfo.username != 'system:admin'",
			"authorizer.requestResource.check('create').allowed()",
			"authorizer.group('').resource('pods').check('create').allowed()",
			NotMirrorPod().Expression), nil},
		{"a part a guard on the kind skips", pods("pods.example.com", podHandler, "object.kind != 'Pod' || object.spec.containers.size() > 0"), nil},
		{"unstructured objects: no schema", Webhook{Name: "widgets.example.com", Type: TypeValidating, Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Resource: "widgets",
			Handler: ValidatingHandler[*unstructured.Unstructured](nopValidator[*unstructured.Unstructured]{}), MatchConditions: numbered("object.spec.colour == 'red'")}, nil},
		{"a HandlerFunc of a Kubernetes kind: no Go type", pods("pods.example.com", allowHandler, "object.spec.containerz.size() > 0"), nil},
		{"a partial view of a kind", Webhook{Name: "ingresses.example.com", Type: TypeValidating, Kind: ingressGVK, Resource: "ingresses",
			Handler: ValidatingHandler[*partialIngress](nopValidator[*partialIngress]{}), MatchConditions: numbered("object.spec.rulez.size() > 0")}, nil},
		{"a custom resource's Go type: its CRD's schema is not known", Webhook{Name: "widgets.example.com", Type: TypeValidating, Scheme: widgetScheme, Resource: "widgets",
			Handler: ValidatingHandler[*widgetsv1.Widget](nopValidator[*widgetsv1.Widget]{}), MatchConditions: numbered("object.size > 3 && object.spec.colourz == 'red'")}, nil},
		{"a RawExtension holds any JSON", Webhook{Name: "revisions.example.com", Type: TypeValidating, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ControllerRevision"}, Resource: "controllerrevisions",
			Handler: ValidatingHandler[*appsv1.ControllerRevision](nopValidator[*appsv1.ControllerRevision]{}), MatchConditions: numbered("has(object.data.spec) && object.revision > 1")}, nil},
		{"an Ingress, typed", Webhook{Name: "ingresses.example.com", Type: TypeValidating, Kind: ingressGVK, Resource: "ingresses",
			Handler: ValidatingHandler[*networkingv1.Ingress](nopValidator[*networkingv1.Ingress]{}), MatchConditions: numbered("object.spec.rules.exists(r, r.host.endsWith('.example.com'))")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewRegistry(HTTPOptions{}).Register(tt.w)
			var got []string
			if err != nil {
				var list registrationErrors
				if !errors.As(err, &list) {
					t.Fatalf("Register: %v", err)
				}
				got = errorStrings(field.ErrorList(list))
				if want := `registering webhook "` + tt.w.Name + `": `; !strings.HasPrefix(err.Error(), want) {
					t.Errorf("error %q does not start with %q", err, want)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Register errors (-want +got):\n%s", diff)
			}
		})
	}
}

// numbered names conditions c0, c1...
func numbered(exprs ...string) []admissionregistrationv1.MatchCondition {
	out := make([]admissionregistrationv1.MatchCondition, len(exprs))
	for i, e := range exprs {
		out[i] = admissionregistrationv1.MatchCondition{Name: "c" + string(rune('0'+i)), Expression: e}
	}
	return out
}

func nopDefault[T runtime.Object](_ context.Context, _ *Request, _ T) ([]string, error) {
	return nil, nil
}
