package benchinput

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/webhook"
)

// RegisterLabeller registers the benchmarks' one webhook in registry: a mutating webhook at
// /label that adds label (set to "true") to every object of every resource it is sent on
// CREATE and UPDATE, reading only the object's metadata.
func RegisterLabeller(registry *webhook.Registry, label string) error {
	add := webhook.DefaulterFunc[*metav1.PartialObjectMetadata](func(_ context.Context, _ *webhook.Request, obj *metav1.PartialObjectMetadata) ([]string, error) {
		if obj.Labels == nil {
			obj.Labels = map[string]string{}
		}
		obj.Labels[label] = "true"
		return nil, nil
	})
	return registry.Register(webhook.Webhook{
		Name: "reviewed.bench.admit.dev", Type: webhook.TypeMutating, Path: "/label",
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
		}},
		Handler: webhook.DefaultingHandler[*metav1.PartialObjectMetadata](add),
	})
}
