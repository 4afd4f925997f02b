package webhook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/matchconditions"
)

func conditions(pairs ...string) []admissionregistrationv1.MatchCondition {
	var out []admissionregistrationv1.MatchCondition
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, admissionregistrationv1.MatchCondition{Name: pairs[i], Expression: pairs[i+1]})
	}
	return out
}

// Register compiles match conditions as the dispatcher (and so admit lint and admit review)
// does, which is as kube-apiserver does: same environment, same compatibility version, same
// errors and words.
func TestMatchConditionsCompileAsTheDispatcherDoes(t *testing.T) {
	if got, want := celCompatibilityVersion().String(), matchconditions.CompatibilityVersion().String(); got != want {
		t.Fatalf("CEL compatibility version %s, the dispatcher's %s", got, want)
	}
	many := make([]string, 0, 2*(maxMatchConditions+1))
	for i := range maxMatchConditions + 1 {
		many = append(many, fmt.Sprintf("c%d", i), "true")
	}
	tests := []struct {
		name       string
		conditions []admissionregistrationv1.MatchCondition
		wantErrors int
	}{
		{"mirror pods", []admissionregistrationv1.MatchCondition{NotMirrorPod()}, 0},
		{"the variables", conditions(
			"user", "request.userInfo.username != 'system:admin'",
			"authorizer", "authorizer.group('').resource('pods').check('create').allowed()",
			"old", "oldObject == null || has(oldObject.metadata.labels)",
			"library", "object.metadata.name.matches('^[a-z]') && ['a', 'b'].all(x, x != '')"), 0},
		{"a syntax error", conditions("broken", "object."), 1},
		{"not a bool", conditions("name", "object.metadata.name"), 1},
		{"params, which webhooks have not", conditions("params", "params.enabled == true"), 1},
		{"an empty expression and name", conditions("", "  "), 2},
		{"a name that is not qualified", conditions("not valid!", "true"), 1},
		{"a name twice", conditions("twice", "true", "twice", "false"), 1},
		{"too many", conditions(many...), 1},
	}
	compiler := newConditionCompiler()
	path := field.NewPath("matchConditions")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compiler.validate(tt.conditions, path)
			if diff := cmp.Diff(errorStrings(matchconditions.Validate(tt.conditions, path)), errorStrings(got)); diff != "" {
				t.Errorf("errors (-dispatcher +Register):\n%s", diff)
			}
			if len(got) != tt.wantErrors {
				t.Errorf("%d errors, want %d: %v", len(got), tt.wantErrors, got)
			}
		})
	}
}

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// A condition that does not compile fails Register with the expression and kube-apiserver's
// message.
func TestRegisterRefusesMatchConditionsThatDoNotCompile(t *testing.T) {
	w := Webhook{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Handler: allowHandler,
		MatchConditions: conditions("name", "object.metadata.name")}
	err := NewRegistry(HTTPOptions{}).Register(w)
	const want = `registering webhook "pods.example.com": matchConditions[0].expression: Invalid value: "object.metadata.name": must evaluate to bool but got dyn`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error:\n%v\nwant it to start with:\n%s", err, want)
	}
}
