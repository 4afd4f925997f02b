package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/webhook"
)

// A Defaulter changes the typed object; the framework answers with a lossless patch.
func ExampleDefaultingHandler() {
	addTeamLabel := webhook.DefaulterFunc[*corev1.Pod](func(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
		if pod.Labels["team"] == "" {
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels["team"] = "unassigned"
			return []string{"team label defaulted to unassigned"}, nil
		}
		return nil, nil
	})
	h := webhook.NewHTTPHandler("/mutate-core-v1-pod", webhook.DefaultingHandler(addTeamLabel), webhook.HTTPOptions{})

	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE",
	  "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
	  "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}}`
	r := httptest.NewRequest(http.MethodPost, "/mutate-core-v1-pod", bytes.NewBufferString(review))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 200 {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"1","allowed":true,"patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscyIsInZhbHVlIjp7InRlYW0iOiJ1bmFzc2lnbmVkIn19XQ==","patchType":"JSONPatch","warnings":["team label defaulted to unassigned"]}}
}

// replicaLimit is a Validator for Deployments.
type replicaLimit struct{ max int32 }

func (v replicaLimit) check(d *appsv1.Deployment) error {
	if d.Spec.Replicas != nil && *d.Spec.Replicas > v.max {
		return webhook.Invalid(field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), *d.Spec.Replicas, fmt.Sprintf("must be at most %d", v.max))})
	}
	return nil
}

func (v replicaLimit) ValidateCreate(_ context.Context, _ *webhook.Request, d *appsv1.Deployment) ([]string, error) {
	return nil, v.check(d)
}

func (v replicaLimit) ValidateUpdate(_ context.Context, _ *webhook.Request, _, d *appsv1.Deployment) ([]string, error) {
	return nil, v.check(d)
}

func (replicaLimit) ValidateDelete(context.Context, *webhook.Request, *appsv1.Deployment) ([]string, error) {
	return nil, nil
}

// A Validator returns field errors; the client receives one 422 Invalid with a cause per field.
func ExampleValidatingHandler() {
	h := webhook.ValidatingHandler[*appsv1.Deployment](replicaLimit{max: 10})
	req := &webhook.Request{}
	req.UID, req.Operation, req.Name = "1", "CREATE", "web"
	req.Kind.Group, req.Kind.Version, req.Kind.Kind = "apps", "v1", "Deployment"
	req.Object.Raw = []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":50}}`)

	resp := h.Admit(context.Background(), req)
	fmt.Println(resp.Outcome, resp.Status.Code, resp.Status.Message)
	fmt.Println(resp.Status.Details.Causes[0].Field)
	// Output:
	// denied 422 Deployment.apps "web" is invalid: spec.replicas: Invalid value: 50: must be at most 10
	// spec.replicas
}

// Fail lets the webhook's failurePolicy decide instead of denying.
func ExampleFail() {
	h := webhook.DefaultingHandler(webhook.DefaulterFunc[*corev1.Pod](func(context.Context, *webhook.Request, *corev1.Pod) ([]string, error) {
		return nil, webhook.Fail(errors.New("image registry unreachable"))
	}))
	req := &webhook.Request{}
	req.UID, req.Operation = "1", "CREATE"
	req.Kind.Version, req.Kind.Kind = "v1", "Pod"
	req.Object.Raw = []byte(`{"apiVersion":"v1","kind":"Pod"}`)
	status, body, _ := webhook.EncodeResponse(req, h.Admit(context.Background(), req))
	fmt.Println(status, string(body))
	// Output:
	// 500 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"image registry unreachable","reason":"InternalError","code":500}
}

// A Registry serves webhooks on generated paths and describes them as webhook configurations.
func ExampleRegistry() {
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	err := registry.Register(webhook.Webhook{
		Name:     "replicas.example.com",
		Type:     webhook.TypeValidating,
		Kind:     schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Resource: "deployments",
		Handler:  webhook.ValidatingHandler[*appsv1.Deployment](replicaLimit{max: 10}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := registry.ConfigurationsYAML(webhook.ConfigOptions{
		Name:         "example",
		ClientConfig: webhook.ClientConfig{Service: "example-webhook", Namespace: "example-system"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(out)
	// Output:
	// apiVersion: admissionregistration.k8s.io/v1
	// kind: ValidatingWebhookConfiguration
	// metadata:
	//   name: example
	// webhooks:
	// - admissionReviewVersions:
	//   - v1
	//   - v1beta1
	//   clientConfig:
	//     service:
	//       name: example-webhook
	//       namespace: example-system
	//       path: /validate-apps-v1-deployment
	//       port: 443
	//   failurePolicy: Fail
	//   matchPolicy: Equivalent
	//   name: replicas.example.com
	//   namespaceSelector:
	//     matchExpressions:
	//     - key: kubernetes.io/metadata.name
	//       operator: NotIn
	//       values:
	//       - example-system
	//       - kube-system
	//     - key: admit.dev/runlevel
	//       operator: NotIn
	//       values:
	//       - "0"
	//       - "1"
	//       - "2"
	//   objectSelector: {}
	//   rules:
	//   - apiGroups:
	//     - apps
	//     apiVersions:
	//     - v1
	//     operations:
	//     - CREATE
	//     - UPDATE
	//     resources:
	//     - deployments
	//     scope: '*'
	//   sideEffects: None
	//   timeoutSeconds: 5
}

// A Server serves a Registry over TLS until its context ends, then drains.
func ExampleNewServer() {
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr:       ":9443",
		CertFile:   "/etc/admit/tls/tls.crt", // a mounted Secret; rotations are picked up
		KeyFile:    "/etc/admit/tls/tls.key",
		Handler:    registry,
		HealthAddr: ":8080", // /healthz, /readyz, /metrics
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = server // server.Run(ctx) blocks until ctx is cancelled, then drains.
}

// Register refuses what kube-apiserver would refuse and what would misbehave once served,
// naming each field: here a resource that does not hold the kind's objects and a match
// condition that is not a boolean.
func ExampleRegistry_Register() {
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	err := registry.Register(webhook.Webhook{
		Name:            "pods.example.com",
		Type:            webhook.TypeValidating,
		Kind:            corev1.SchemeGroupVersion.WithKind("Pod"),
		Resource:        "deployments",
		MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "team", Expression: "object.metadata.labels.team"}},
		Handler:         webhook.ValidatingHandler[*corev1.Pod](noPrivileged{}),
	})
	fmt.Println(strings.ReplaceAll(err.Error(), "; ", ";\n"))
	// Output:
	// registering webhook "pods.example.com": resource: Invalid value: "deployments": group core has no resource "deployments": the resource of Pod is "pods";
	// matchConditions[0].expression: Invalid value: "object.metadata.labels.team": must evaluate to bool but got dyn
}

// A Pod webhook that only sees the Pods that ask for it: an objectSelector, and a match
// condition that leaves mirror pods out. Kind and resource come from *corev1.Pod.
func ExampleWebhook_narrowed() {
	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	err := registry.Register(webhook.Webhook{
		Name:            "proxies.example.com",
		Type:            webhook.TypeMutating,
		ObjectSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"proxy.example.com/inject": "true"}},
		MatchConditions: []admissionregistrationv1.MatchCondition{webhook.NotMirrorPod()},
		Handler: webhook.DefaultingHandler(webhook.DefaulterFunc[*corev1.Pod](func(_ context.Context, _ *webhook.Request, pod *corev1.Pod) ([]string, error) {
			pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "proxy", Image: "envoyproxy/envoy:v1.31.0"})
			return nil, nil
		})),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _, err := registry.Configurations(webhook.ConfigOptions{Name: "proxies", ClientConfig: webhook.ClientConfig{URL: "https://127.0.0.1:9443"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	w := m.Webhooks[0]
	fmt.Println(*w.ClientConfig.URL, w.Rules[0].Resources, w.ObjectSelector.MatchLabels, w.MatchConditions[0].Name)
	// Output:
	// https://127.0.0.1:9443/mutate-core-v1-pod [pods] map[proxy.example.com/inject:true] not-mirror-pod
}

// noPrivileged is a Validator for Pods.
type noPrivileged struct{}

func (noPrivileged) ValidateCreate(context.Context, *webhook.Request, *corev1.Pod) ([]string, error) {
	return nil, nil
}
func (noPrivileged) ValidateUpdate(context.Context, *webhook.Request, *corev1.Pod, *corev1.Pod) ([]string, error) {
	return nil, nil
}
func (noPrivileged) ValidateDelete(context.Context, *webhook.Request, *corev1.Pod) ([]string, error) {
	return nil, nil
}

// A Server with a certificate held in memory, e.g. issued by a test's throwaway CA; a
// GetCertificate function serves certificates something else keeps current.
func ExampleNewServer_certificate() {
	ca, err := certs.NewCA("example", time.Hour)
	if err != nil {
		fmt.Println(err)
		return
	}
	serving, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	cert, err := serving.TLSCertificate()
	if err != nil {
		fmt.Println(err)
		return
	}
	server, err := webhook.NewServer(webhook.ServerOptions{Addr: "127.0.0.1:0", Certificate: &cert, Handler: webhook.NewRegistry(webhook.HTTPOptions{})})
	fmt.Println(server != nil, err)
	// Output:
	// true <nil>
}
