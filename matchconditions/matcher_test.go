package matchconditions

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func conditions(nameExpression ...string) []admissionregistrationv1.MatchCondition {
	var out []admissionregistrationv1.MatchCondition
	for i := 0; i < len(nameExpression); i += 2 {
		out = append(out, admissionregistrationv1.MatchCondition{Name: nameExpression[i], Expression: nameExpression[i+1]})
	}
	return out
}

// createPod is a CREATE of pod "web" in namespace "default" by user "alice".
func createPod() *admissionv1.AdmissionRequest {
	dryRun := false
	return &admissionv1.AdmissionRequest{
		UID:       "b7c4a1f0-0000-0000-0000-000000000001",
		Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name:      "web",
		Namespace: "default",
		Operation: admissionv1.Create,
		UserInfo:  authenticationv1.UserInfo{Username: "alice", Groups: []string{"dev", "system:authenticated"}},
		DryRun:    &dryRun,
		Options:   runtime.RawExtension{Raw: []byte(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl"}`)},
	}
}

const podJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},"spec":{"replicas":3,"ratio":0.5}}`

func TestMatch(t *testing.T) {
	tests := []struct {
		name       string
		conditions []admissionregistrationv1.MatchCondition
		input      func(*Input)
		want       Result
		wantErr    string
	}{{
		name:       "no conditions always match",
		conditions: nil,
		want:       Result{Matched: true},
	}, {
		name:       "all true",
		conditions: conditions("named", "object.metadata.name == 'web'", "labelled", "object.metadata.labels['app'] == 'web'"),
		want:       Result{Matched: true},
	}, {
		name:       "one false names it",
		conditions: conditions("named", "object.metadata.name == 'web'", "not-web", "object.metadata.name != 'web'", "also-false", "false"),
		want:       Result{FalseCondition: "not-web"},
	}, {
		name:       "skip-me is skipped",
		conditions: conditions("not-skip-me", "object.metadata.name != 'skip-me'"),
		input:      func(in *Input) { in.Object = []byte(`{"metadata":{"name":"skip-me"}}`) },
		want:       Result{FalseCondition: "not-skip-me"},
	}, {
		name:       "other names are not skipped",
		conditions: conditions("not-skip-me", "object.metadata.name != 'skip-me'"),
		want:       Result{Matched: true},
	}, {
		name:       "false wins over an earlier error",
		conditions: conditions("broken", "object.spec.missing == 1", "false", "false"),
		want:       Result{FalseCondition: "false", EvaluationErrors: 1},
	}, {
		name:       "errors after the first false are not evaluated into the count",
		conditions: conditions("false", "false", "broken", "object.spec.missing == 1"),
		want:       Result{FalseCondition: "false"},
	}, {
		name:       "true and an error is an error",
		conditions: conditions("true", "true", "broken", "object.spec.missing == 1"),
		wantErr:    "expression 'object.spec.missing == 1' resulted in error: no such key: missing",
	}, {
		name:       "several errors are aggregated in order",
		conditions: conditions("broken", "object.spec.missing == 1", "true", "true", "division", "1 / (object.spec.replicas - 3) == 1"),
		wantErr:    "[expression 'object.spec.missing == 1' resulted in error: no such key: missing, expression '1 / (object.spec.replicas - 3) == 1' resulted in error: division by zero]",
	}, {
		name:       "oldObject is null on CREATE",
		conditions: conditions("create", "oldObject == null"),
		want:       Result{Matched: true},
	}, {
		name:       "object is null on DELETE",
		conditions: conditions("delete", "object == null && oldObject.metadata.name == 'web'"),
		input: func(in *Input) {
			in.Request.Operation = admissionv1.Delete
			in.Object, in.OldObject = nil, []byte(podJSON)
		},
		want: Result{Matched: true},
	}, {
		name:       "request fields",
		conditions: conditions("user", "request.userInfo.username == 'alice' && 'dev' in request.userInfo.groups", "operation", "request.operation == 'CREATE'", "where", "request.namespace == 'default' && request.name == 'web'", "kind", "request.kind.kind == 'Pod' && request.resource.resource == 'pods'", "options", "request.options.fieldManager == 'kubectl'", "dryRun", "!request.dryRun"),
		want:       Result{Matched: true},
	}, {
		// As in the apiserver, empty optional fields are absent: request.subResource == '' is
		// an error ("no such key") on a main resource; has() is the way to test it.
		name:       "an empty subResource is absent",
		conditions: conditions("main-resource", "!has(request.subResource)", "compare", "request.subResource == ''"),
		wantErr:    "expression 'request.subResource == ''' resulted in error: no such key: subResource",
	}, {
		name:       "request fields: dry run and another user",
		conditions: conditions("not-alice", "request.userInfo.username != 'alice'", "dryRun", "request.dryRun"),
		input: func(in *Input) {
			in.Request.UserInfo.Username = "bob"
			dryRun := true
			in.Request.DryRun = &dryRun
		},
		want: Result{Matched: true},
	}, {
		name:       "a missing dryRun is false",
		conditions: conditions("dryRun", "request.dryRun == false"),
		input:      func(in *Input) { in.Request.DryRun = nil },
		want:       Result{Matched: true},
	}, {
		name:       "matched through an equivalent resource: the kind is the webhook's, the resource is the requested one",
		conditions: conditions("kind", "request.kind.group == 'apps' && request.kind.version == 'v1' && request.requestKind.version == 'v1beta1'", "resource", "request.resource == request.requestResource && request.resource.version == 'v1beta1'"),
		input: func(in *Input) {
			in.Request.Kind = metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
			in.Request.Resource = metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
			in.Request.RequestKind = &metav1.GroupVersionKind{Group: "apps", Version: "v1beta1", Kind: "Deployment"}
			in.Request.RequestResource = &metav1.GroupVersionResource{Group: "apps", Version: "v1beta1", Resource: "deployments"}
		},
		want: Result{Matched: true},
	}, {
		name:       "integers are integers, floats are doubles",
		conditions: conditions("int", "object.spec.replicas + 1 == 4", "double", "object.spec.ratio * 2.0 == 1.0"),
		want:       Result{Matched: true},
	}, {
		name:       "namespaceObject is always null for webhooks",
		conditions: conditions("namespace", "namespaceObject == null"),
		want:       Result{Matched: true},
	}, {
		name:       "objects from the request's raw JSON",
		conditions: conditions("named", "object.metadata.name == 'from-request'", "old", "oldObject.metadata.name == 'old'"),
		input: func(in *Input) {
			in.Object, in.OldObject = nil, nil
			in.Request.Object.Raw = []byte(`{"metadata":{"name":"from-request"}}`)
			in.Request.OldObject.Raw = []byte(`{"metadata":{"name":"old"}}`)
		},
		want: Result{Matched: true},
	}, {
		name:       "objects from the request's decoded object",
		conditions: conditions("named", "object.metadata.name == 'decoded'"),
		input: func(in *Input) {
			in.Object = nil
			in.Request.Object.Object = &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "decoded"}}}
		},
		want: Result{Matched: true},
	}, {
		name:       "explicit null objects",
		conditions: conditions("null", "object == null && oldObject == null"),
		input: func(in *Input) {
			in.Object, in.OldObject = []byte("null"), []byte(" ")
			in.Request.Object.Raw = []byte(podJSON)
		},
		want: Result{Matched: true},
	}, {
		name:       "an object that is not JSON",
		conditions: conditions("any", "true"),
		input:      func(in *Input) { in.Object = []byte(`{"metadata":`) },
		wantErr:    "failed to prepare object variable for evaluation: unexpected end of JSON input",
	}, {
		name:       "an old object that is not a JSON object",
		conditions: conditions("any", "true"),
		input:      func(in *Input) { in.OldObject = []byte(`[1]`) },
		wantErr:    "failed to prepare oldObject variable for evaluation: expected a JSON object, got an array",
	}, {
		name:       "no request",
		conditions: conditions("any", "true"),
		input:      func(in *Input) { in.Request = nil },
		wantErr:    "matchconditions: the input has no admission request",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Compile(tc.conditions)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			in := Input{Request: createPod(), Object: []byte(podJSON)}
			if tc.input != nil {
				tc.input(&in)
			}
			got, err := m.Match(context.Background(), in)
			if gotErr := errString(err); gotErr != tc.wantErr {
				t.Fatalf("Match error:\n got: %s\nwant: %s", gotErr, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Match result (-want +got):\n%s", diff)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestEvaluationErrorsCount(t *testing.T) {
	m, err := Compile(conditions("a", "object.a == 1", "b", "object.b == 1", "c", "true"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Match(context.Background(), Input{Request: createPod(), Object: []byte(`{}`)})
	if got := EvaluationErrors(err); got != 2 {
		t.Errorf("EvaluationErrors(%v) = %d, want 2", err, got)
	}
	if got := EvaluationErrors(fmt.Errorf("other")); got != 0 {
		t.Errorf("EvaluationErrors(other) = %d, want 0", got)
	}
}

// authorizerFunc records the attributes of every check and allows what allow says.
type recordingAuthorizer struct {
	mu     sync.Mutex
	checks []string
	allow  func(authorizer.Attributes) bool
}

func (r *recordingAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks = append(r.checks, fmt.Sprintf("user=%s groups=%v verb=%s group=%s resource=%s subresource=%s namespace=%s name=%s",
		a.GetUser().GetName(), a.GetUser().GetGroups(), a.GetVerb(), a.GetAPIGroup(), a.GetResource(), a.GetSubresource(), a.GetNamespace(), a.GetName()))
	if r.allow(a) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "not in the breakglass group", nil
}

func TestMatchAuthorizer(t *testing.T) {
	breakglass := conditions("not-breakglass", "!authorizer.group('admissionregistration.k8s.io').resource('validatingwebhookconfigurations').name('my-webhook').check('breakglass').allowed()")
	onlyAdmins := func(a authorizer.Attributes) bool {
		return a.GetUser().GetName() == "admin" && a.GetVerb() == "breakglass"
	}
	tests := []struct {
		name       string
		conditions []admissionregistrationv1.MatchCondition
		authorizer *recordingAuthorizer
		user       string
		want       Result
		wantChecks []string
	}{{
		name:       "breakglass user is exempt",
		conditions: breakglass,
		authorizer: &recordingAuthorizer{allow: onlyAdmins},
		user:       "admin",
		want:       Result{FalseCondition: "not-breakglass"},
		wantChecks: []string{"user=admin groups=[dev system:authenticated] verb=breakglass group=admissionregistration.k8s.io resource=validatingwebhookconfigurations subresource= namespace= name=my-webhook"},
	}, {
		name:       "other users are not",
		conditions: breakglass,
		authorizer: &recordingAuthorizer{allow: onlyAdmins},
		user:       "alice",
		want:       Result{Matched: true},
		wantChecks: []string{"user=alice groups=[dev system:authenticated] verb=breakglass group=admissionregistration.k8s.io resource=validatingwebhookconfigurations subresource= namespace= name=my-webhook"},
	}, {
		name:       "requestResource checks the requested object",
		conditions: conditions("can-delete", "authorizer.requestResource.check('delete').allowed()"),
		authorizer: &recordingAuthorizer{allow: func(authorizer.Attributes) bool { return true }},
		user:       "alice",
		want:       Result{Matched: true},
		wantChecks: []string{"user=alice groups=[dev system:authenticated] verb=delete group= resource=pods subresource= namespace=default name=web"},
	}, {
		name:       "the reason is visible",
		conditions: conditions("reason", "authorizer.requestResource.check('delete').reason() == 'not in the breakglass group'"),
		authorizer: &recordingAuthorizer{allow: func(authorizer.Attributes) bool { return false }},
		user:       "alice",
		want:       Result{Matched: true},
		wantChecks: []string{"user=alice groups=[dev system:authenticated] verb=delete group= resource=pods subresource= namespace=default name=web"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Compile(tc.conditions)
			if err != nil {
				t.Fatal(err)
			}
			req := createPod()
			req.UserInfo.Username = tc.user
			got, err := m.Match(context.Background(), Input{Request: req, Object: []byte(podJSON), Authorizer: tc.authorizer})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantChecks, tc.authorizer.checks); diff != "" {
				t.Errorf("authorizer checks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatchWithoutAuthorizerDeniesEverything(t *testing.T) {
	m, err := Compile(conditions(
		"denied", "!authorizer.group('').resource('pods').check('get').allowed()",
		"reason", "authorizer.requestResource.check('create').reason() == 'no authorizer is configured'",
	))
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Match(context.Background(), Input{Request: createPod(), Object: []byte(podJSON)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Result{Matched: true}, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// Authorization checks cost 350,000 each: two fit in the 1,000,000 limit of one expression,
// eight do not fit in the 2,500,000 budget of a webhook's conditions. With no authorizer
// every check is denied, so twoChecks is true and threeChecks is over its limit.
const (
	twoChecks   = "!authorizer.group('').resource('pods').check('get').allowed() && !authorizer.group('').resource('pods').check('list').allowed()"
	threeChecks = twoChecks + " && !authorizer.group('').resource('pods').check('watch').allowed()"
)

func TestMatchCostLimits(t *testing.T) {
	tests := []struct {
		name       string
		conditions []admissionregistrationv1.MatchCondition
		want       Result
		wantErr    string
	}{{
		name:       "three conditions of two checks fit the budget",
		conditions: conditions("a", twoChecks, "b", twoChecks, "c", twoChecks),
		want:       Result{Matched: true},
	}, {
		name:       "four exceed the budget",
		conditions: conditions("a", twoChecks, "b", twoChecks, "c", twoChecks, "d", twoChecks),
		wantErr:    "validation failed due to running out of cost budget, no further validation rules will be run",
	}, {
		name:       "running out of budget is an error even after a false condition",
		conditions: conditions("false", "false", "a", twoChecks, "b", twoChecks, "c", twoChecks, "d", twoChecks),
		wantErr:    "validation failed due to running out of cost budget, no further validation rules will be run",
	}, {
		name:       "one expression over the per-expression limit is an evaluation error",
		conditions: conditions("a", threeChecks),
		wantErr:    "expression '" + threeChecks + "' resulted in error: operation cancelled: actual cost limit exceeded",
	}, {
		name:       "a false condition still wins over a condition over its limit",
		conditions: conditions("a", threeChecks, "false", "false"),
		want:       Result{FalseCondition: "false", EvaluationErrors: 1},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Compile(tc.conditions)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Match(context.Background(), Input{Request: createPod(), Object: []byte(podJSON)})
			if gotErr := errString(err); gotErr != tc.wantErr {
				t.Fatalf("error:\n got: %s\nwant: %s", gotErr, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name       string
		conditions []admissionregistrationv1.MatchCondition
		want       string
	}{{
		name:       "unknown identifier",
		conditions: conditions("ok", "true", "bad", "foo == 1"),
		want: "matchConditions[1].expression: Invalid value: \"foo == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n" +
			" | foo == 1\n" +
			" | ^",
	}, {
		name:       "not a boolean",
		conditions: conditions("dyn", "object.spec"),
		want:       `matchConditions[0].expression: Invalid value: "object.spec": must evaluate to bool but got dyn`,
	}, {
		name:       "the request has no uid",
		conditions: conditions("uid", "has(request.uid)"),
		want: "matchConditions[0].expression: Invalid value: \"has(request.uid)\": compilation failed: ERROR: <input>:1:4: undefined field 'uid'\n" +
			" | has(request.uid)\n" +
			" | ...^",
	}, {
		name:       "no params for webhooks",
		conditions: conditions("params", "params != null"),
		want: "matchConditions[0].expression: Invalid value: \"params != null\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n" +
			" | params != null\n" +
			" | ^",
	}, {
		name:       "every failing condition is reported",
		conditions: conditions("a", "1", "b", "'x'"),
		want:       `[matchConditions[0].expression: Invalid value: "1": must evaluate to bool but got int, matchConditions[1].expression: Invalid value: "'x'": must evaluate to bool but got string]`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Compile(tc.conditions)
			if m != nil {
				t.Errorf("Compile returned a matcher along with an error")
			}
			if diff := cmp.Diff(tc.want, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatchConcurrently(t *testing.T) {
	m, err := Compile(conditions("named", "object.metadata.name == 'web'", "user", "request.userInfo.username == 'alice'"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]Result, 16)
	errs := make([]error, 16)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := createPod()
			if i%2 == 1 {
				req.UserInfo.Username = "bob"
			}
			results[i], errs[i] = m.Match(context.Background(), Input{Request: req, Object: []byte(podJSON)})
		}()
	}
	wg.Wait()
	for i := range results {
		want := Result{Matched: true}
		if i%2 == 1 {
			want = Result{FalseCondition: "user"}
		}
		if errs[i] != nil || results[i] != want {
			t.Errorf("goroutine %d: got %+v, %v; want %+v", i, results[i], errs[i], want)
		}
	}
}
