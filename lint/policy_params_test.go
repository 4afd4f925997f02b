package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParamsUse(t *testing.T) {
	type use struct{ Reads, Guarded bool }
	tests := []struct {
		name        string
		expressions []policyExpression
		want        use
	}{
		{name: "a field of params", expressions: []policyExpression{{text: "object.spec.replicas <= params.max", failing: true}},
			want: use{Reads: true}},
		{name: "params inside a macro", expressions: []policyExpression{{text: "object.spec.containers.all(c, c.name in params.names)", failing: true}},
			want: use{Reads: true}},
		{name: "a field named params is not the variable", expressions: []policyExpression{{text: "has(object.spec.params) && object.spec.params.size() > 0", failing: true}}},
		{name: "a string that says params", expressions: []policyExpression{{text: "object.metadata.name != 'params'", failing: true}}},
		{name: "a messageExpression fails softly", expressions: []policyExpression{{text: "'at most ' + string(params.max)"}}},
		{name: "tested for null", expressions: []policyExpression{{text: "params == null || object.spec.replicas <= params.max", failing: true}},
			want: use{Reads: true, Guarded: true}},
		{name: "null on the left, != ", expressions: []policyExpression{{text: "null != params && object.spec.replicas <= params.max", failing: true}},
			want: use{Reads: true, Guarded: true}},
		{name: "a presence test", expressions: []policyExpression{{text: "!has(params.max) || object.spec.replicas <= params.max", failing: true}},
			want: use{Reads: true, Guarded: true}},
		{name: "optional field selection parses", expressions: []policyExpression{{text: "object.spec.replicas <= params.?max.orValue(3)", failing: true}},
			want: use{Reads: true}},
		{name: "an expression that does not parse says nothing", expressions: []policyExpression{{text: "params.max <=", failing: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got use
			got.Reads, got.Guarded = paramsUse(tt.expressions)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paramsUse (-want +got):\n%s", diff)
			}
		})
	}
}
