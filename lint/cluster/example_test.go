package cluster_test

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/lint/cluster"
)

func ExampleLoad() {
	// A real program builds the client from a kubeconfig (k8s.io/client-go/tools/clientcmd).
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	client := fake.NewClientset(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}},
		&admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "injector"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name:         "pods.injector.example.com",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "injector", Namespace: "injector-system"}},
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				}},
				FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			}},
		},
	)
	set, err := cluster.Load(context.Background(), client, cluster.Options{Name: "dev"})
	if err != nil {
		fmt.Println(err)
		return
	}
	findings, err := lint.Run(set, lint.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range lint.AtLeast(findings, lint.Error) {
		fmt.Println(f.Location(), f.Rule, f.Field)
	}
	// Output:
	// dev B01 webhooks[0].namespaceSelector
	// dev B02 webhooks[0].namespaceSelector
}
