//go:build e2e

package e2e

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	"github.com/admitkit/admit/config"
)

// A webhook configuration whose metadata sets a namespace (as some charts do) is created: the
// apiserver clears the namespace of a cluster-scoped object before validating it. config's
// validation, which lint's A01 and review use, agrees.
func TestConfigurationNamespaceIsCleared(t *testing.T) {
	ctx := context.Background()
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "namespaced-" + rand.String(6), Namespace: "kuma-system"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "never.e2e.admit.dev",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:1/never")},
			// Matches nothing this suite writes.
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"e2e.admit.dev/never": "true"}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if errs := config.ValidateValidating(c); len(errs) > 0 {
		t.Errorf("config.ValidateValidating: %v", errs.ToAggregate())
	}
	configs := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	created, err := configs.Create(ctx, c, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the apiserver refused it: %v", err)
	}
	t.Cleanup(func() { _ = configs.Delete(context.Background(), created.Name, metav1.DeleteOptions{}) })
	if created.Namespace != "" {
		t.Errorf("stored with namespace %q, want none", created.Namespace)
	}
}
