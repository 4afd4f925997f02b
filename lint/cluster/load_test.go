package cluster

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/resources"
)

func ptr[T any](v T) *T { return &v }

// clusterObjects is a small cluster: a fail-closed webhook served by one replica in
// webhook-system, a Namespace, and objects lint must not read (a Secret, a Deployment in a
// namespace no webhook lives in).
func clusterObjects() []runtime.Object {
	labels := map[string]string{"app": "webhook"}
	return []runtime.Object{
		&admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "example", Annotations: map[string]string{"cert-manager.io/inject-ca-from": "webhook-system/serving"}},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:         "pods.webhook.example.com",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "webhook", Namespace: "webhook-system", Path: ptr("/validate"), Port: ptr(int32(443))}},
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}, Scope: ptr(admissionregistrationv1.AllScopes)},
				}},
				FailurePolicy: ptr(admissionregistrationv1.Fail), MatchPolicy: ptr(admissionregistrationv1.Equivalent),
				NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "webhook-system"}}}},
				ObjectSelector:    &metav1.LabelSelector{}, SideEffects: ptr(admissionregistrationv1.SideEffectClassNone),
				TimeoutSeconds: ptr(int32(3)), AdmissionReviewVersions: []string{"v1"},
			}},
		},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "webhook-system", Labels: map[string]string{"admit.dev/runlevel": "2"}}},
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "webhook", Namespace: "webhook-system"},
			Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 443}}},
		},
		&appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "webhook", Namespace: "webhook-system"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}},
			},
		},
		&policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "webhook", Namespace: "webhook-system"},
			Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}},
		},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "webhook-tls", Namespace: "webhook-system"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "shop"}},
	}
}

func certificate() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
		"metadata": map[string]any{"name": "serving", "namespace": "webhook-system"},
		"spec":     map[string]any{"secretName": "webhook-tls", "dnsNames": []any{"webhook.webhook-system"}},
	}}
}

func kinds(set *config.Set) []string {
	var out []string
	for _, m := range set.Mutating {
		out = append(out, "MutatingWebhookConfiguration "+m.Config.Name+" @"+m.Source.String())
	}
	for _, v := range set.Validating {
		out = append(out, "ValidatingWebhookConfiguration "+v.Config.Name+" @"+v.Source.String())
	}
	for _, o := range set.Others {
		out = append(out, o.Object.GetKind()+" "+o.Object.GetNamespace()+"/"+o.Object.GetName()+" @"+o.Source.String())
	}
	return out
}

func TestLoadReadsWhatLintNeeds(t *testing.T) {
	client := fake.NewClientset(clusterObjects()...)
	dynamic := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{certificates(): "CertificateList"}, certificate())
	set, err := Load(context.Background(), client, Options{Dynamic: dynamic, Name: "kind-dev"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ValidatingWebhookConfiguration example @kind-dev",
		"Namespace /webhook-system @kind-dev",
		"Service webhook-system/webhook @kind-dev",
		"Deployment webhook-system/webhook @kind-dev",
		"PodDisruptionBudget webhook-system/webhook @kind-dev",
		"Certificate webhook-system/serving @kind-dev",
	}
	if diff := cmp.Diff(want, kinds(set)); diff != "" {
		t.Errorf("objects read (-want +got):\n%s", diff)
	}
	for _, action := range client.Actions() {
		if action.GetVerb() != "list" {
			t.Errorf("Load made a %s request: it must only list", action.GetVerb())
		}
		if action.GetResource().Resource == "secrets" {
			t.Errorf("Load listed Secrets")
		}
	}

	findings, err := lint.Run(set, lint.Options{Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range lint.AtLeast(findings, lint.Warning) {
		got = append(got, f.Rule+" "+f.File)
	}
	// One replica (B07), and the Certificate read from the cluster misses the service name (E03).
	if diff := cmp.Diff([]string{"B07 kind-dev", "E03 kind-dev"}, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestLoadWithoutCertManager(t *testing.T) {
	client := fake.NewClientset(clusterObjects()...)
	// Listing Certificates answers NotFound, as in a cluster without cert-manager's CRD.
	dynamic := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{certificates(): "CertificateList"}, certificate())
	dynamic.PrependReactor("list", "certificates", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(certificates().GroupResource(), "")
	})
	set, err := Load(context.Background(), client, Options{Dynamic: dynamic})
	if err != nil {
		t.Fatalf("Load without cert-manager: %v", err)
	}
	for _, k := range kinds(set) {
		if k == "Certificate webhook-system/serving @cluster" {
			t.Errorf("unexpected %s", k)
		}
	}
	if len(set.Validating) != 1 || set.Validating[0].Source.String() != "cluster" {
		t.Errorf("configurations = %v, want one from \"cluster\"", kinds(set))
	}
}

func TestLoadReadsPoliciesAndTheirParameters(t *testing.T) {
	configMapKind := &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	client := fake.NewClientset(
		&admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "limits"},
			Spec:       admissionregistrationv1.ValidatingAdmissionPolicySpec{ParamKind: configMapKind},
		},
		&admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "limits"},
			Spec:       admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "limits"},
		},
		&admissionregistrationv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "tokens"},
			Spec:       admissionregistrationv1.MutatingAdmissionPolicySpec{ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "Secret"}},
		},
	)
	// This cluster does not serve MutatingAdmissionPolicyBindings: Load goes on without them.
	client.PrependReactor("list", "mutatingadmissionpolicybindings", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(admissionregistrationv1.Resource("mutatingadmissionpolicybindings"), "")
	})
	dynamic := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(),
		&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limit", "namespace": "policies"}}},
		&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "token", "namespace": "policies"}}},
	)
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	set, err := Load(context.Background(), client, Options{Dynamic: dynamic, Resources: mapper})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ValidatingAdmissionPolicy /limits @cluster",
		"ValidatingAdmissionPolicyBinding /limits @cluster",
		"MutatingAdmissionPolicy /tokens @cluster",
		"ConfigMap policies/limit @cluster",
	}
	if diff := cmp.Diff(want, kinds(set)); diff != "" {
		t.Errorf("objects read (-want +got):\n%s", diff)
	}
	for _, action := range dynamic.Actions() {
		if action.GetResource().Resource == "secrets" {
			t.Errorf("Load listed Secrets, the parameters of a policy: it must never read them")
		}
	}
}

// TestLoadReadsAutoscalersAndPods lists, around clusterObjects' webhook, an autoscaler whose
// floor is two replicas of its Deployment, and a second webhook whose Service only a Pod
// matches (run by a controller lint does not list, as an Argo Rollout): lint reads both, so
// neither the single replica (B07) nor a Service without endpoints (B09) is reported.
func TestLoadReadsAutoscalersAndPods(t *testing.T) {
	rollout := map[string]string{"app": "rollout"}
	objects := append(clusterObjects(),
		&autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: "webhook", Namespace: "webhook-system"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "webhook"},
				MinReplicas:    ptr(int32(2)), MaxReplicas: 4,
			},
		},
		&admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "rollout", Annotations: map[string]string{"cert-manager.io/inject-ca-from": "webhook-system/serving"}},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name:         "secrets.rollout.example.com",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "rollout", Namespace: "webhook-system", Path: ptr("/validate"), Port: ptr(int32(443))}},
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}, Scope: ptr(admissionregistrationv1.AllScopes)},
				}},
				FailurePolicy: ptr(admissionregistrationv1.Ignore), MatchPolicy: ptr(admissionregistrationv1.Equivalent),
				NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
				SideEffects: ptr(admissionregistrationv1.SideEffectClassNone), TimeoutSeconds: ptr(int32(3)), AdmissionReviewVersions: []string{"v1"},
			}},
		},
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "rollout", Namespace: "webhook-system"},
			Spec:       corev1.ServiceSpec{Selector: rollout, Ports: []corev1.ServicePort{{Port: 443}}},
		},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "rollout-7d9f-abcde", Namespace: "webhook-system", Labels: rollout}},
	)
	client := fake.NewClientset(objects...)
	set, err := Load(context.Background(), client, Options{Name: "kind-dev"})
	if err != nil {
		t.Fatal(err)
	}
	read := kinds(set)
	for _, want := range []string{"HorizontalPodAutoscaler webhook-system/webhook @kind-dev", "Pod webhook-system/rollout-7d9f-abcde @kind-dev"} {
		if !slices.Contains(read, want) {
			t.Errorf("Load did not read %s; it read %q", want, read)
		}
	}
	findings, err := lint.Run(set, lint.Options{Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if f.Rule == "B07" || f.Rule == "B09" {
			t.Errorf("%s: %s", f.Rule, f.Message)
		}
	}
}
