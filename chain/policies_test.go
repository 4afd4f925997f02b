package chain

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// policyOn is a ValidatingAdmissionPolicy with one expression, on CREATE of a resource.
func policyOn(group, version, resource, expression string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: "policy"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: expression}},
		},
	}
}

func TestPolicyTypeChecker(t *testing.T) {
	checker, err := NewPolicyTypeChecker([]*apiextensionsv1.CustomResourceDefinition{widgets(t)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		policy *admissionregistrationv1.ValidatingAdmissionPolicy
		// want are parts of the one warning expected, none when the expression fits.
		want []string
	}{
		{name: "a field of the kind", policy: policyOn("apps", "v1", "deployments", "object.spec.replicas <= 5")},
		{name: "a field the kind lacks", policy: policyOn("", "v1", "pods", "object.spec.replicas <= 5"),
			want: []string{"against Pod (v1): undefined field 'replicas' at line 1, column 12"}},
		// kube-controller-manager's schemas drop maps of quantities; at runtime they are there.
		{name: "a map of quantities", policy: policyOn("", "v1", "pods", "object.spec.containers.all(c, has(c.resources.requests))")},
		{name: "a quantity compared as a number", policy: policyOn("", "v1", "pods", "object.spec.containers.all(c, c.resources.limits.cpu > 1)"),
			want: []string{"no matching overload for '_>_' applied to '(string, int)'"}},
		{name: "a field of a custom resource", policy: policyOn("example.com", "v1", "widgets", "object.spec.size <= 5")},
		{name: "a field a custom resource lacks", policy: policyOn("example.com", "v1", "widgets", "object.spec.weight <= 5"),
			want: []string{"against Widget (example.com/v1): undefined field 'weight'"}},
		{name: "a part a kind guard skips", policy: policyOn("", "v1", "pods", "object.kind == 'Pod' || object.spec.replicas <= 5")},
		{name: "a part a guard by list skips", policy: policyOn("", "v1", "pods", "['Deployment', 'StatefulSet'].all(k, object.kind != k) || object.spec.replicas <= 5")},
		{name: "the branch a conditional does not take", policy: policyOn("", "v1", "pods", "object.kind == 'Deployment' ? object.spec.replicas <= 5 : true")},
		{name: "the branch a conditional takes", policy: policyOn("", "v1", "pods", "object.kind == 'Pod' ? object.spec.replicas <= 5 : true"),
			want: []string{"undefined field 'replicas'"}},
		{name: "a guard false for the kind", policy: policyOn("", "v1", "pods", "object.kind != 'Pod' || object.spec.replicas <= 5"),
			want: []string{"undefined field 'replicas'"}},
		{name: "two lists of containers joined", policy: policyOn("", "v1", "pods", "(object.spec.containers + object.spec.initContainers).all(c, c.name != '')")},
		{name: "a guard that reads more than the kind", policy: policyOn("", "v1", "pods", "object.metadata.name == 'x' || object.spec.replicas <= 5"),
			want: []string{"undefined field 'replicas'"}},
		{name: "a custom resource without a CRD is not checked", policy: policyOn("example.org", "v1", "gadgets", "object.spec.weight <= 5")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			warnings, err := checker.Check(tt.policy)
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.want) == 0 {
				if len(warnings) > 0 {
					t.Fatalf("warnings %+v, want none", warnings)
				}
				return
			}
			if len(warnings) != 1 {
				t.Fatalf("warnings %+v, want one", warnings)
			}
			if warnings[0].Field != "spec.validations[0].expression" {
				t.Errorf("field %q, want spec.validations[0].expression", warnings[0].Field)
			}
			for _, part := range tt.want {
				if !strings.Contains(warnings[0].String(), part) {
					t.Errorf("warning %q does not contain %q", warnings[0], part)
				}
			}
		})
	}
}

func TestPolicyErrors(t *testing.T) {
	binding := func(paramRef *admissionregistrationv1.ParamRef) runtime.Object {
		return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: "binding"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: "policy", ParamRef: paramRef,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			},
		}
	}
	tests := []struct {
		name string
		obj  runtime.Object
		want []string // the fields of the errors
	}{
		{name: "a valid policy, defaulted first", obj: policyOn("apps", "v1", "deployments", "object.spec.replicas <= 5")},
		{name: "an expression that does not compile", obj: policyOn("apps", "v1", "deployments", "object.spec.replicas <="),
			want: []string{"spec.validations[0].expression"}},
		{name: "a valid binding", obj: binding(&admissionregistrationv1.ParamRef{Name: "limits", ParameterNotFoundAction: ptrTo(admissionregistrationv1.DenyAction)})},
		{name: "a paramRef without parameterNotFoundAction", obj: binding(&admissionregistrationv1.ParamRef{Name: "limits"}),
			want: []string{"spec.paramRef.parameterNotFoundAction"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs, _, err := PolicyErrors(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error fields (-want +got):\n%s\n%v", diff, errs)
			}
		})
	}
	if _, _, err := PolicyErrors(&admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
	}); err == nil || !strings.Contains(err.Error(), "not an admission policy") {
		t.Errorf("PolicyErrors of a webhook configuration: %v, want an error", err)
	}
}

func ptrTo[T any](v T) *T { return &v }
