package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWarnings(t *testing.T) {
	rule := func(groups, versions, resources []string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule:       admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources},
		}
	}
	list := func(s ...string) []string { return s }
	tests := []struct {
		name       string
		configName string
		rules      []admissionregistrationv1.RuleWithOperations
		want       []string
	}{{
		name:  "ordinary resources",
		rules: []admissionregistrationv1.RuleWithOperations{rule(list(""), list("v1"), list("pods", "configmaps"))},
	}, {
		name:  "a review resource named explicitly: 1.36 sends reviews to webhooks",
		rules: []admissionregistrationv1.RuleWithOperations{rule(list("authentication.k8s.io"), list("v1"), list("tokenreviews"))},
	}, {
		name: "several review resources",
		rules: []admissionregistrationv1.RuleWithOperations{
			rule(list(""), list("v1"), list("pods")),
			rule(list("authorization.k8s.io"), list("v1"), list("subjectaccessreviews", "somethingelse", "selfsubjectrulesreviews", "subjectaccessreviews")),
		},
	}, {
		name:  "every version of a review resource",
		rules: []admissionregistrationv1.RuleWithOperations{rule(list("authentication.k8s.io"), list("*"), list("selfsubjectreviews"))},
	}, {
		name:  "wildcard groups",
		rules: []admissionregistrationv1.RuleWithOperations{rule(list("*"), list("v1"), list("tokenreviews"))},
	}, {
		name:  "wildcard resources",
		rules: []admissionregistrationv1.RuleWithOperations{rule(list("authentication.k8s.io"), list("v1"), list("*"))},
	}, {
		name:  "same resource name in another group",
		rules: []admissionregistrationv1.RuleWithOperations{rule(list("example.com"), list("v1"), list("tokenreviews"))},
	}, {
		name:       "a name reserved for static manifests",
		configName: "policy.static.k8s.io",
		rules:      []admissionregistrationv1.RuleWithOperations{rule(list("authentication.k8s.io"), list("v1"), list("tokenreviews"))},
		want: []string{
			`metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`,
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: tc.configName},
				Webhooks:   []admissionregistrationv1.ValidatingWebhook{{Name: "w.example.com", Rules: tc.rules}},
			}
			if diff := cmp.Diff(tc.want, WarningsValidating(validating)); diff != "" {
				t.Errorf("WarningsValidating (-want +got):\n%s", diff)
			}
			mutating := toMutating(validating)
			if diff := cmp.Diff(tc.want, WarningsMutating(mutating)); diff != "" {
				t.Errorf("WarningsMutating (-want +got):\n%s", diff)
			}
		})
	}
}
