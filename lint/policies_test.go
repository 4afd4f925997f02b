package lint

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPolicyRules(t *testing.T) {
	type view struct{ Rule, Field string }
	tests := []struct {
		name    string
		file    string
		checker bool
		want    []view
	}{
		{
			name: "an expression that does not parse is A01's, not F05's", file: "invalid-expression.yaml", checker: true,
			want: []view{{"A01", "spec.failurePolicy"}, {"A01", "spec.validations[0].expression"}},
		},
		{
			name: "without a PolicyChecker, policies are not validated", file: "invalid-expression.yaml",
		},
		{
			name: "without a PolicyChecker, the other F rules run", file: filepath.Join("..", "rules", "F01-trigger.yaml"),
			want: []view{{"F07", "metadata.name"}, {"F01", "spec.policyName"}},
		},
		{
			name: "stubs the apiserver refuses are A01's only", file: "assertion-stubs.yaml", checker: true,
			want: []view{
				{"A01", "spec.auditAnnotations"}, {"A01", "spec.matchConstraints"}, {"A01", "spec.validations"},
				{"A01", "spec.policyName"}, {"A01", "spec.validationActions"},
			},
		},
		{
			name: "a library binding one policy as an example is reported once, as info", file: "library-with-example.yaml",
			want: []view{{"F07", "metadata.name"}},
		},
		{
			name: "a binding's matchResources without resourceRules keeps the policy's resources", file: "binding-selector-only.yaml",
			want: []view{{"F03", "spec.matchConstraints.namespaceSelector"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts Options
			if tt.checker {
				opts.Policies = newChainPolicies(t)
			}
			var got []view
			for _, f := range lintFiles(t, opts, filepath.Join("testdata", "policies", tt.file)) {
				got = append(got, view{f.Rule, f.Field})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
