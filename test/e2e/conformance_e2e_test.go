//go:build e2e

package e2e

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// TestConformanceAdmissionWebhooks runs the scenarios of Kubernetes' admission-webhook
// conformance suite (test/e2e/apimachinery/webhook.go) that need no kubelet against the real
// kube-apiserver, with every webhook written with admit's framework and served by one admit
// webhook server. Each scenario scopes its configurations to namespaces and labels of its own and
// waits for them to take effect through readiness markers, so the scenarios run in parallel.
func TestConformanceAdmissionWebhooks(t *testing.T) {
	server := startConformanceServer(t)
	scenarios := []struct {
		name string
		run  func(*testing.T, *conformanceServer)
	}{
		{"should include webhook resources in discovery documents", testDiscovery},
		{"should be able to deny pod and configmap creation", testDenyPodAndConfigMapCreation},
		{"should be able to deny attaching pod", testDenyAttachingPod},
		{"should unconditionally reject operations on fail closed webhook", testFailClosedWebhook},
		{"should mutate configmap", testMutateConfigMap},
		{"should mutate pod and apply defaults after mutation", testMutatePodAndApplyDefaults},
		{"should honor timeout", testHonorTimeout},
		{"should be able to deny custom resource creation, update and deletion", testDenyCustomResource},
		{"should mutate custom resource", testMutateCustomResource},
		{"should mutate custom resource with pruning", testMutateCustomResourceWithPruning},
		{"should mutate custom resource with different stored version", testMutateCustomResourceWithDifferentStoredVersion},
		{"should deny crd creation", testDenyCRDCreation},
		{"should not be able to mutate or prevent deletion of webhook configuration objects", testConfigurationObjectsAreExempt},
		{"patching/updating a validating webhook should work", testUpdateValidatingConfiguration},
		{"patching/updating a mutating webhook should work", testUpdateMutatingConfiguration},
		{"listing validating webhooks should work", testListValidatingConfigurations},
		{"listing mutating webhooks should work", testListMutatingConfigurations},
		{"should be able to create and update webhook configurations with match conditions", testMatchConditionsCreateAndUpdate},
		{"should reject webhook configurations with invalid match conditions", testInvalidMatchConditions},
		{"should mutate everything except 'skip-me' configmaps", testMutateEverythingExceptSkipMe},
		{"runlevel-exempt namespaces are admitted while a fail-closed webhook is down", testRunlevelBootstrapping},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, server)
		})
	}
}

// skipAdmissionLabel exempts a namespace from the deny scenario's ConfigMap webhook.
const skipAdmissionLabel = "skip-webhook-admission"

func testDenyPodAndConfigMapCreation(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	pods := s.validating(podPolicyWebhook)
	// Short, so that the call the pod webhook never answers ends soon.
	pods.TimeoutSeconds = ptr.To[int32](2)
	configMaps := s.validating(configMapPolicyWebhook)
	configMaps.NamespaceSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{
		Key: skipAdmissionLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"yes"},
	}}
	// Without the CA bundle the apiserver cannot verify the server, so every call to this webhook
	// fails; failurePolicy Ignore must make that harmless.
	failOpen := s.validating(configMapPolicyWebhook)
	failOpen.Name = "fail-open.conformance.admit.dev"
	failOpen.ClientConfig.CABundle = nil
	failOpen.FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
	s.installValidating(s.validatingConfiguration(s.configurationName("deny"), pods, configMaps, failOpen))

	podClient := env.Client.CoreV1().Pods(s.namespace)
	configMapClient := env.Client.CoreV1().ConfigMaps(s.namespace)

	t.Run("a pod with an unwanted label and container name is denied for both", func(t *testing.T) {
		_, err := podClient.Create(ctx, newPod("disallowed", map[string]string{policyKey: disallowed}, disallowed), metav1.CreateOptions{})
		mustFailWith(t, "creating a non-compliant pod", err, "the pod contains unwanted label", "the pod contains unwanted container name")
	})
	t.Run("a webhook that never answers fails the request with a deadline error", func(t *testing.T) {
		_, err := podClient.Create(ctx, newPod("hanging", map[string]string{policyKey: hangForever}, "app"), metav1.CreateOptions{})
		mustFailWith(t, "creating a pod the webhook never answers for", err, "webhook", "deadline")
		_, err = podClient.Get(ctx, "hanging", metav1.GetOptions{})
		mustBeGone(t, "the pod the webhook never answered for", err)
	})
	t.Run("a non-compliant configmap is denied", func(t *testing.T) {
		_, err := configMapClient.Create(ctx, newConfigMap("disallowed", map[string]string{policyKey: disallowed}), metav1.CreateOptions{})
		mustFailWith(t, "creating a non-compliant configmap", err, "the configmap contains unwanted key and value")
	})
	t.Run("a compliant configmap is admitted; updating or patching it to a non-compliant one is denied", func(t *testing.T) {
		// Admitted although the fail-open webhook, which matches it too, cannot be called (the
		// fail-closed scenario shows the same webhook under failurePolicy Fail).
		cm, err := configMapClient.Create(ctx, newConfigMap("allowed", map[string]string{policyKey: permitted}), metav1.CreateOptions{})
		mustSucceed(t, "creating a compliant configmap", err)

		cm.Data[policyKey] = disallowed
		_, err = configMapClient.Update(ctx, cm, metav1.UpdateOptions{})
		mustFailWith(t, "updating (PUT) the configmap to a non-compliant one", err, "the configmap contains unwanted key and value")

		patch := []byte(`{"data":{"` + policyKey + `":"` + disallowed + `"}}`)
		_, err = configMapClient.Patch(ctx, cm.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		mustFailWith(t, "patching (strategic merge) the configmap to a non-compliant one", err, "the configmap contains unwanted key and value")

		stored, err := configMapClient.Get(ctx, cm.Name, metav1.GetOptions{})
		mustSucceed(t, "reading the configmap back", err)
		if diff := cmp.Diff(map[string]string{policyKey: permitted}, stored.Data); diff != "" {
			t.Fatalf("stored data changed by denied requests (-want +got):\n%s", diff)
		}
	})
	skipped := s.createNamespace("skipped", map[string]string{s.key: "true", skipAdmissionLabel: "yes"})
	t.Run("a namespace exempted by the selector is not sent to the webhook", func(t *testing.T) {
		_, err := env.Client.CoreV1().ConfigMaps(skipped).Create(ctx, newConfigMap("disallowed", map[string]string{policyKey: disallowed}), metav1.CreateOptions{})
		mustSucceed(t, "creating a non-compliant configmap in an exempt namespace", err)
	})
}

func testDenyAttachingPod(t *testing.T, server *conformanceServer) {
	ctx := context.Background()
	s := newScenario(t, server)
	s.installValidating(s.validatingConfiguration(s.configurationName("attach"), s.validating(attachPolicyWebhook)))
	pod, err := env.Client.CoreV1().Pods(s.namespace).Create(ctx, newPod("to-be-attached-pod", nil, "container1"), metav1.CreateOptions{})
	mustSucceed(t, "creating the pod to attach to", err)

	// CONNECT admission happens before the apiserver contacts a kubelet, so no node is needed to
	// see the webhook's decision. A plain POST stands in for kubectl attach, which would wait
	// for the pod to run.
	attach := func(stdin bool) error {
		return env.Client.CoreV1().RESTClient().Post().Namespace(s.namespace).Resource("pods").Name(pod.Name).SubResource("attach").
			Param("container", "container1").Param("stdin", strconv.FormatBool(stdin)).Param("stdout", "true").Do(ctx).Error()
	}
	mustFailWith(t, "attaching interactively", attach(true), `admission webhook "`+attachPolicyWebhook+`" denied the request: attaching to pod 'to-be-attached-pod' is not allowed`)
	// The webhook lets this one through; the apiserver then fails it for want of a node.
	mustFailWith(t, "attaching without stdin", attach(false), "pod to-be-attached-pod does not have a host assigned")
}

func testFailClosedWebhook(t *testing.T, server *conformanceServer) {
	s := newScenario(t, server)
	// Without the CA bundle the apiserver cannot verify the server: every call fails.
	failClosed := s.validating(configMapPolicyWebhook)
	failClosed.Name = "fail-closed.conformance.admit.dev"
	failClosed.ClientConfig.CABundle = nil
	failClosed.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
	s.installValidating(s.validatingConfiguration(s.configurationName("fail-closed"), failClosed))

	_, err := env.Client.CoreV1().ConfigMaps(s.namespace).Create(context.Background(), newConfigMap("compliant", map[string]string{policyKey: permitted}), metav1.CreateOptions{})
	if !apierrors.IsInternalError(err) {
		t.Fatalf("creating a configmap = %v, want an internal error (500)", err)
	}
	mustContain(t, err.Error(), `failed calling webhook "fail-closed.conformance.admit.dev"`, "x509")
}

func testMutateConfigMap(t *testing.T, server *conformanceServer) {
	tests := []struct {
		name   string
		stages []string
		want   map[string]string
	}{
		{
			name:   "stage 2 builds on stage 1",
			stages: []string{configMapStage1Webhook, configMapStage2Webhook},
			want:   map[string]string{mutationStart: "yes", "mutation-stage-1": "yes", "mutation-stage-2": "yes"},
		},
		{
			// Mutating webhooks run once each in configuration order (reinvocation is Never), so
			// stage 2 called first has nothing to build on.
			name:   "stage 2 listed first finds nothing to build on",
			stages: []string{configMapStage2Webhook, configMapStage1Webhook},
			want:   map[string]string{mutationStart: "yes", "mutation-stage-1": "yes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, server)
			var stages []admissionregistrationv1.MutatingWebhook
			for _, name := range tt.stages {
				stages = append(stages, s.mutating(name))
			}
			s.installMutating(s.mutatingConfiguration(s.configurationName("stages"), stages...))
			cm, err := env.Client.CoreV1().ConfigMaps(s.namespace).Create(context.Background(), newConfigMap("to-be-mutated", map[string]string{mutationStart: "yes"}), metav1.CreateOptions{})
			mustSucceed(t, "creating the configmap", err)
			if diff := cmp.Diff(tt.want, cm.Data); diff != "" {
				t.Fatalf("data (-want +got):\n%s", diff)
			}
		})
	}
}

func testMutatePodAndApplyDefaults(t *testing.T, server *conformanceServer) {
	s := newScenario(t, server)
	s.installMutating(s.mutatingConfiguration(s.configurationName("init-container"), s.mutating(initContainerWebhook)))
	pod, err := env.Client.CoreV1().Pods(s.namespace).Create(context.Background(), newPod("webhook-to-be-mutated", nil, "app"), metav1.CreateOptions{})
	mustSucceed(t, "creating the pod", err)
	type view struct {
		Name, Image              string
		TerminationMessagePolicy corev1.TerminationMessagePolicy
		ImagePullPolicy          corev1.PullPolicy
	}
	var got []view
	for _, c := range pod.Spec.InitContainers {
		got = append(got, view{c.Name, c.Image, c.TerminationMessagePolicy, c.ImagePullPolicy})
	}
	// The webhook set only the name and the image; the rest is the apiserver's defaulting, which
	// must run after mutation.
	want := []view{{"webhook-added-init-container", "webhook-added-image:1.0", corev1.TerminationMessageReadFile, corev1.PullIfNotPresent}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("init containers (-want +got):\n%s", diff)
	}
}

func testHonorTimeout(t *testing.T, server *conformanceServer) {
	tests := []struct {
		name    string
		policy  admissionregistrationv1.FailurePolicyType
		timeout *int32
		wantErr []string // nil: admitted
	}{
		{
			name: "a 1s timeout with failurePolicy Fail rejects", policy: admissionregistrationv1.Fail, timeout: ptr.To[int32](1),
			wantErr: []string{"/always-allow-delay-" + slowWebhookDelay.String() + "?timeout=1s", "deadline"},
		},
		{name: "a 1s timeout with failurePolicy Ignore admits", policy: admissionregistrationv1.Ignore, timeout: ptr.To[int32](1)},
		{name: "a 10s timeout admits", policy: admissionregistrationv1.Fail, timeout: ptr.To[int32](10)},
		{name: "the default timeout admits", policy: admissionregistrationv1.Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, server)
			slow := s.validating(slowWebhook)
			slow.FailurePolicy = ptr.To(tt.policy)
			slow.TimeoutSeconds = tt.timeout
			stored := s.installValidating(s.validatingConfiguration(s.configurationName("slow"), slow))
			if got := stored.Webhooks[0].TimeoutSeconds; got == nil || *got != ptr.Deref(tt.timeout, 10) {
				t.Fatalf("stored timeoutSeconds = %v, want %d", got, ptr.Deref(tt.timeout, 10))
			}

			_, err := env.Client.CoreV1().ConfigMaps(s.namespace).Create(context.Background(), newConfigMap("slow", nil), metav1.CreateOptions{})
			if tt.wantErr == nil {
				mustSucceed(t, "creating a configmap through the slow webhook", err)
				return
			}
			mustFailWith(t, "creating a configmap through the slow webhook", err, tt.wantErr...)
		})
	}
}

// newPod returns a pod with labels and one container per name.
func newPod(name string, labels map[string]string, containers ...string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	for _, c := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c, Image: "registry.k8s.io/pause:3.10"})
	}
	return pod
}

// newConfigMap returns a ConfigMap with data.
func newConfigMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
}
