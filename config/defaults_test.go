package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSetDefaultsMutating(t *testing.T) {
	tests := []struct {
		name string
		in   admissionregistrationv1.MutatingWebhook
		want admissionregistrationv1.MutatingWebhook
	}{{
		name: "everything unset",
		in: admissionregistrationv1.MutatingWebhook{
			Rules:        []admissionregistrationv1.RuleWithOperations{{}, {}},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "s", Namespace: "n"}},
		},
		want: admissionregistrationv1.MutatingWebhook{
			Rules: []admissionregistrationv1.RuleWithOperations{
				{Rule: admissionregistrationv1.Rule{Scope: ptr(admissionregistrationv1.AllScopes)}},
				{Rule: admissionregistrationv1.Rule{Scope: ptr(admissionregistrationv1.AllScopes)}},
			},
			ClientConfig:       admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "s", Namespace: "n", Port: ptr(int32(443))}},
			FailurePolicy:      ptr(admissionregistrationv1.Fail),
			MatchPolicy:        ptr(admissionregistrationv1.Equivalent),
			NamespaceSelector:  &metav1.LabelSelector{},
			ObjectSelector:     &metav1.LabelSelector{},
			TimeoutSeconds:     ptr(int32(10)),
			ReinvocationPolicy: ptr(admissionregistrationv1.NeverReinvocationPolicy),
		},
	}, {
		name: "everything set is kept",
		in: admissionregistrationv1.MutatingWebhook{
			Rules:              []admissionregistrationv1.RuleWithOperations{{Rule: admissionregistrationv1.Rule{Scope: ptr(admissionregistrationv1.NamespacedScope)}}},
			ClientConfig:       admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Port: ptr(int32(8443))}},
			FailurePolicy:      ptr(admissionregistrationv1.Ignore),
			MatchPolicy:        ptr(admissionregistrationv1.Exact),
			NamespaceSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			ObjectSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"c": "d"}},
			TimeoutSeconds:     ptr(int32(3)),
			ReinvocationPolicy: ptr(admissionregistrationv1.IfNeededReinvocationPolicy),
			SideEffects:        ptr(admissionregistrationv1.SideEffectClassNone),
		},
		want: admissionregistrationv1.MutatingWebhook{
			Rules:              []admissionregistrationv1.RuleWithOperations{{Rule: admissionregistrationv1.Rule{Scope: ptr(admissionregistrationv1.NamespacedScope)}}},
			ClientConfig:       admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Port: ptr(int32(8443))}},
			FailurePolicy:      ptr(admissionregistrationv1.Ignore),
			MatchPolicy:        ptr(admissionregistrationv1.Exact),
			NamespaceSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			ObjectSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"c": "d"}},
			TimeoutSeconds:     ptr(int32(3)),
			ReinvocationPolicy: ptr(admissionregistrationv1.IfNeededReinvocationPolicy),
			SideEffects:        ptr(admissionregistrationv1.SideEffectClassNone),
		},
	}, {
		name: "url webhooks get no port; sideEffects and admissionReviewVersions have no default",
		in:   admissionregistrationv1.MutatingWebhook{ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr("https://127.0.0.1/")}},
		want: admissionregistrationv1.MutatingWebhook{
			ClientConfig:       admissionregistrationv1.WebhookClientConfig{URL: ptr("https://127.0.0.1/")},
			FailurePolicy:      ptr(admissionregistrationv1.Fail),
			MatchPolicy:        ptr(admissionregistrationv1.Equivalent),
			NamespaceSelector:  &metav1.LabelSelector{},
			ObjectSelector:     &metav1.LabelSelector{},
			TimeoutSeconds:     ptr(int32(10)),
			ReinvocationPolicy: ptr(admissionregistrationv1.NeverReinvocationPolicy),
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{tc.in}}
			SetDefaultsMutating(c)
			if diff := cmp.Diff(tc.want, c.Webhooks[0]); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetDefaultsValidating(t *testing.T) {
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{{
		Rules:        []admissionregistrationv1.RuleWithOperations{{}},
		ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{}},
	}, {
		TimeoutSeconds: ptr(int32(5)),
		FailurePolicy:  ptr(admissionregistrationv1.Ignore),
	}}}
	SetDefaultsValidating(c)
	want := []admissionregistrationv1.ValidatingWebhook{{
		Rules:             []admissionregistrationv1.RuleWithOperations{{Rule: admissionregistrationv1.Rule{Scope: ptr(admissionregistrationv1.AllScopes)}}},
		ClientConfig:      admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Port: ptr(int32(443))}},
		FailurePolicy:     ptr(admissionregistrationv1.Fail),
		MatchPolicy:       ptr(admissionregistrationv1.Equivalent),
		NamespaceSelector: &metav1.LabelSelector{},
		ObjectSelector:    &metav1.LabelSelector{},
		TimeoutSeconds:    ptr(int32(10)),
	}, {
		FailurePolicy:     ptr(admissionregistrationv1.Ignore),
		MatchPolicy:       ptr(admissionregistrationv1.Equivalent),
		NamespaceSelector: &metav1.LabelSelector{},
		ObjectSelector:    &metav1.LabelSelector{},
		TimeoutSeconds:    ptr(int32(5)),
	}}
	if diff := cmp.Diff(want, c.Webhooks); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
