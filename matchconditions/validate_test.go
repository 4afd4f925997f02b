package matchconditions

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/environment"
)

func TestValidate(t *testing.T) {
	many := func(n int) []admissionregistrationv1.MatchCondition {
		out := make([]admissionregistrationv1.MatchCondition, n)
		for i := range out {
			out[i] = admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", i), Expression: "true"}
		}
		return out
	}
	tests := []struct {
		name       string
		conditions []admissionregistrationv1.MatchCondition
		want       []string
	}{{
		name:       "valid",
		conditions: conditions("exclude-leases", "!(request.resource.group == 'coordination.k8s.io' && request.resource.resource == 'leases')", "breakglass", "!authorizer.group('admissionregistration.k8s.io').resource('validatingwebhookconfigurations').name('my-webhook').check('breakglass').allowed()"),
	}, {
		name:       "64 conditions",
		conditions: many(64),
	}, {
		name:       "65 conditions",
		conditions: many(65),
		want:       []string{"webhooks[0].matchConditions: Too many: 65: must have at most 64 items"},
	}, {
		name:       "missing name",
		conditions: conditions("", "true"),
		want:       []string{"webhooks[0].matchConditions[0].name: Required value"},
	}, {
		name:       "name not a qualified name",
		conditions: conditions("-bad name", "true"),
		want: []string{
			`webhooks[0].matchConditions[0].name: Invalid value: "-bad name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		},
	}, {
		name:       "qualified name with a prefix",
		conditions: conditions("example.com/exclude", "true"),
	}, {
		name:       "duplicate names",
		conditions: conditions("same", "true", "other", "true", "same", "false"),
		want:       []string{`webhooks[0].matchConditions[2].name: Duplicate value: "same"`},
	}, {
		name:       "missing expression",
		conditions: conditions("empty", "", "blank", "  \n"),
		want: []string{
			"webhooks[0].matchConditions[0].expression: Required value",
			"webhooks[0].matchConditions[1].expression: Required value",
		},
	}, {
		name:       "unknown identifier",
		conditions: conditions("bad", "  unknown.field == 1 "),
		want: []string{
			"webhooks[0].matchConditions[0].expression: Invalid value: \"unknown.field == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'unknown' (in container '')\n" +
				" | unknown.field == 1\n" +
				" | ^",
		},
	}, {
		name:       "syntax error",
		conditions: conditions("bad", "object.metadata.name =="),
		want: []string{
			"webhooks[0].matchConditions[0].expression: Invalid value: \"object.metadata.name ==\": compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n" +
				" | object.metadata.name ==\n" +
				" | .......................^",
		},
	}, {
		name:       "not a boolean",
		conditions: conditions("string", "object.metadata.name"),
		want:       []string{`webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name": must evaluate to bool but got dyn`},
	}, {
		name:       "errors of one condition come expression first, then name",
		conditions: conditions("", ""),
		want: []string{
			"webhooks[0].matchConditions[0].expression: Required value",
			"webhooks[0].matchConditions[0].name: Required value",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := Validate(tc.conditions, field.NewPath("webhooks").Index(0).Child("matchConditions"))
			var got []string
			for _, err := range errs {
				got = append(got, err.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// The pinned version must be what kube-apiserver built from these libraries uses by default;
// when the k8s.io libraries are upgraded this fails, and the pin is revisited on purpose.
func TestCompatibilityVersionIsTheAPIServerDefault(t *testing.T) {
	if got, want := CompatibilityVersion().String(), environment.DefaultCompatibilityVersion().String(); got != want {
		t.Errorf("CompatibilityVersion() = %s, the apiserver libraries default to %s", got, want)
	}
}
