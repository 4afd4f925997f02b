//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/webhook"
)

// legacyPod knows only part of a Pod, like a webhook compiled against an older API. Fields it
// does not know must survive its patches: that is what "lossless" promises.
type legacyPod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Containers []legacyContainer `json:"containers"`
	} `json:"spec"`
}

type legacyContainer struct {
	Name  string `json:"name"`
	Image string `json:"image,omitempty"`
}

func (p *legacyPod) DeepCopyObject() runtime.Object {
	c := *p
	p.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Containers = append([]legacyContainer(nil), p.Spec.Containers...)
	return &c
}

func injectSidecar(_ context.Context, _ *webhook.Request, pod *legacyPod) ([]string, error) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["injected"] = "true"
	pod.Spec.Containers = append(pod.Spec.Containers, legacyContainer{Name: "proxy", Image: "registry.k8s.io/pause:3.10"})
	return []string{"sidecar injected"}, nil
}

var (
	podKind       = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	configMapKind = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	secretKind    = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
)

// TestFrameworkWebhooksOnARealAPIServer has the real kube-apiserver call webhooks written with
// the framework: a defaulter whose patch keeps what its Go type does not know, a validator whose
// field errors reach the client as a 422 with causes, and a webhook that fails rather than
// denies, under both failure policies.
func TestFrameworkWebhooksOnARealAPIServer(t *testing.T) {
	ctx := context.Background()
	ns, selector := newNamespace(t, "framework")

	registry := webhook.NewRegistry(webhook.HTTPOptions{})
	vaultDown := webhook.HandlerFunc(func(context.Context, *webhook.Request) webhook.Response {
		return webhook.Errored(errors.New("vault unreachable"))
	})
	for _, w := range []webhook.Webhook{
		{Name: "sidecar.e2e.admit.dev", Type: webhook.TypeMutating, Kind: podKind, Resource: "pods",
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Handler:    webhook.DefaultingHandler[*legacyPod](webhook.DefaulterFunc[*legacyPod](injectSidecar))},
		{Name: quickstart.ConfigMapKeysWebhookName, Type: webhook.TypeValidating, Kind: configMapKind, Resource: "configmaps",
			Handler: webhook.ValidatingHandler[*corev1.ConfigMap](quickstart.ConfigMapKeys{})},
		{Name: "secrets-ignore.e2e.admit.dev", Type: webhook.TypeValidating, Kind: secretKind, Resource: "secrets", Path: "/secrets-ignore",
			FailurePolicy: admissionregistrationv1.Ignore, Handler: vaultDown},
		{Name: "secrets-fail.e2e.admit.dev", Type: webhook.TypeValidating, Kind: secretKind, Resource: "secrets", Path: "/secrets-fail",
			FailurePolicy: admissionregistrationv1.Fail, Handler: vaultDown},
	} {
		if err := registry.Register(w); err != nil {
			t.Fatal(err)
		}
	}
	served := serveWebhooks(t, registry)
	mutating, validating, err := registry.Configurations(webhook.ConfigOptions{Name: "admit-" + ns, ClientConfig: webhook.ClientConfig{URL: served.URL, CABundle: served.CABundle}})
	if err != nil {
		t.Fatal(err)
	}
	// Only this test's namespace is sent to the webhooks; each secrets webhook sees only the
	// secrets labelled for it.
	for i := range mutating.Webhooks {
		mutating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
	}
	for i := range validating.Webhooks {
		validating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
		if policy := validating.Webhooks[i].FailurePolicy; strings.HasPrefix(validating.Webhooks[i].Name, "secrets-") {
			validating.Webhooks[i].ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"policy": strings.ToLower(string(*policy))}}
		}
	}
	admissionregistration := env.Client.AdmissionregistrationV1()
	if _, err := admissionregistration.MutatingWebhookConfigurations().Create(ctx, mutating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admissionregistration.MutatingWebhookConfigurations().Delete(context.Background(), mutating.Name, metav1.DeleteOptions{})
	})
	if _, err := admissionregistration.ValidatingWebhookConfigurations().Create(ctx, validating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = admissionregistration.ValidatingWebhookConfigurations().Delete(context.Background(), validating.Name, metav1.DeleteOptions{})
	})

	// Readiness markers: dry-run writes that only the webhooks can change.
	dryRun := []string{metav1.DryRunAll}
	eventually(t, "the validating configuration to take effect", func() error {
		_, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "marker"}, Data: map[string]string{"Marker": ""}}, metav1.CreateOptions{DryRun: dryRun})
		if err == nil || !strings.Contains(err.Error(), quickstart.ConfigMapKeysWebhookName) {
			return fmt.Errorf("marker not denied yet: %v", err)
		}
		return nil
	})
	eventually(t, "the mutating configuration to take effect", func() error {
		pod, err := env.Client.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "marker"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}, metav1.CreateOptions{DryRun: dryRun})
		if err != nil {
			return err
		}
		if pod.Labels["injected"] != "true" {
			return errors.New("marker pod not mutated yet")
		}
		return nil
	})

	t.Run("defaulter patch keeps fields its type does not know", func(t *testing.T) {
		manifest := `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: ` + ns + `
  annotations:
    keep: me
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 7
  containers:
  - name: app
    image: nginx:1.27
    env:
    - name: MODE
      value: production
    resources:
      limits:
        cpu: 100m
`
		_, stderr, err := env.Kubectl(ctx, []byte(manifest), "create", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, string(stderr), "Warning: sidecar injected")
		pod, err := env.Client.CoreV1().Pods(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Labels["injected"] != "true" || pod.Annotations["keep"] != "me" {
			t.Fatalf("labels %v annotations %v, want injected=true and keep=me", pod.Labels, pod.Annotations)
		}
		if pod.Spec.RestartPolicy != corev1.RestartPolicyNever || pod.Spec.TerminationGracePeriodSeconds == nil || *pod.Spec.TerminationGracePeriodSeconds != 7 {
			t.Fatalf("restartPolicy %q terminationGracePeriodSeconds %v: fields unknown to the webhook's type were lost", pod.Spec.RestartPolicy, pod.Spec.TerminationGracePeriodSeconds)
		}
		var names []string
		for _, c := range pod.Spec.Containers {
			names = append(names, c.Name)
		}
		if diff := cmp.Diff([]string{"app", "proxy"}, names); diff != "" {
			t.Fatalf("containers (-want +got):\n%s", diff)
		}
		app := pod.Spec.Containers[0]
		if diff := cmp.Diff([]corev1.EnvVar{{Name: "MODE", Value: "production"}}, app.Env); diff != "" {
			t.Fatalf("app env lost (-want +got):\n%s", diff)
		}
		if got := app.Resources.Limits[corev1.ResourceCPU]; got.Cmp(resource.MustParse("100m")) != 0 {
			t.Fatalf("app cpu limit = %s, want 100m", got.String())
		}
	})

	t.Run("validator field errors reach the client as 422 with causes", func(t *testing.T) {
		_, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Data: map[string]string{"Bad_Key": "x"}}, metav1.CreateOptions{})
		var statusErr *apierrors.StatusError
		if !errors.As(err, &statusErr) {
			t.Fatalf("create = %v, want a StatusError", err)
		}
		keyRule := `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
		want := metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    422,
			Reason:  metav1.StatusReasonInvalid,
			Message: `admission webhook "configmap-keys.quickstart.admit.dev" denied the request: ConfigMap "bad" is invalid: data[Bad_Key]: Invalid value: "Bad_Key": ` + keyRule,
			Details: &metav1.StatusDetails{Name: "bad", Kind: "ConfigMap", Causes: []metav1.StatusCause{{
				Type: metav1.CauseTypeFieldValueInvalid, Field: "data[Bad_Key]", Message: `Invalid value: "Bad_Key": ` + keyRule,
			}}},
		}
		got := statusErr.ErrStatus
		got.TypeMeta, got.ListMeta = metav1.TypeMeta{}, metav1.ListMeta{}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("status (-want +got):\n%s", diff)
		}

		_, stderr, err := env.Kubectl(ctx, nil, "create", "configmap", "bad", "-n", ns, "--from-literal=Bad_Key=x")
		if err == nil {
			t.Fatal("kubectl created a ConfigMap with a bad key")
		}
		mustContain(t, string(stderr), `admission webhook "configmap-keys.quickstart.admit.dev" denied the request: ConfigMap "bad" is invalid: data[Bad_Key]: Invalid value: "Bad_Key"`)

		if _, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "good"}, Data: map[string]string{"app.conf": "x"}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("valid ConfigMap refused: %v", err)
		}
	})

	t.Run("a failing webhook is decided by failurePolicy", func(t *testing.T) {
		secret := func(name, policy string) *corev1.Secret {
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"policy": policy}}}
		}
		if _, err := env.Client.CoreV1().Secrets(ns).Create(ctx, secret("ignored", "ignore"), metav1.CreateOptions{}); err != nil {
			t.Fatalf("failurePolicy Ignore: create = %v, want admitted", err)
		}
		_, err := env.Client.CoreV1().Secrets(ns).Create(ctx, secret("failed", "fail"), metav1.CreateOptions{})
		var statusErr *apierrors.StatusError
		if !errors.As(err, &statusErr) {
			t.Fatalf("failurePolicy Fail: create = %v, want a StatusError", err)
		}
		if got, want := statusErr.ErrStatus.Message, `Internal error occurred: failed calling webhook "secrets-fail.e2e.admit.dev": failed to call webhook: vault unreachable`; got != want || statusErr.ErrStatus.Code != 500 {
			t.Fatalf("failurePolicy Fail: %d %q, want 500 %q", statusErr.ErrStatus.Code, got, want)
		}
	})
}
