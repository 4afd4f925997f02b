package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSelectorsSatisfiable asks whether one label set can satisfy several selectors at once,
// as D02 asks of the webhooks it sums.
func TestSelectorsSatisfiable(t *testing.T) {
	req := func(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	tests := []struct {
		name      string
		selectors []metav1.LabelSelector
		want      bool
	}{
		{"none", nil, true},
		{"different tenants", []metav1.LabelSelector{{MatchLabels: map[string]string{"tenant": "a"}}, {MatchLabels: map[string]string{"tenant": "b"}}}, false},
		{"a tenant and every namespace", []metav1.LabelSelector{{MatchLabels: map[string]string{"tenant": "a"}}, {}}, true},
		{"overlapping sets", []metav1.LabelSelector{
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("tenant", metav1.LabelSelectorOpIn, "a", "b")}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("tenant", metav1.LabelSelectorOpIn, "b", "c")}},
		}, true},
		{"pairwise overlapping, together not", []metav1.LabelSelector{
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("tenant", metav1.LabelSelectorOpIn, "a", "b")}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("tenant", metav1.LabelSelectorOpIn, "b", "c")}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("tenant", metav1.LabelSelectorOpIn, "a", "c")}},
		}, false},
		{"opted in and opted out", []metav1.LabelSelector{
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("inject", metav1.LabelSelectorOpExists)}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("inject", metav1.LabelSelectorOpDoesNotExist)}},
		}, false},
		{"in and not in", []metav1.LabelSelector{
			{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "team-a"}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("kubernetes.io/metadata.name", metav1.LabelSelectorOpNotIn, "team-a", "kube-system")}},
		}, false},
		{"not in and absent", []metav1.LabelSelector{
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("tier", metav1.LabelSelectorOpNotIn, "system")}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{req("tier", metav1.LabelSelectorOpDoesNotExist)}},
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := labelConstraints{}
			for i := range tt.selectors {
				s, err := metav1.LabelSelectorAsSelector(&tt.selectors[i])
				if err != nil {
					t.Fatal(err)
				}
				c = c.with(s)
			}
			if diff := cmp.Diff(tt.want, c.satisfiable()); diff != "" {
				t.Errorf("satisfiable (-want +got):\n%s", diff)
			}
		})
	}
}
