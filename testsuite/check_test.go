package testsuite

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/engine"
)

// expectFrom parses an expect block as a test file would hold it.
func expectFrom(t *testing.T, block string) Expect {
	t.Helper()
	s, err := Parse("t.yaml", []byte("apiVersion: admit.dev/v1alpha1\nkind: TestSuite\ncases:\n- name: c\n  object: {apiVersion: v1, kind: Pod}\n  expect: "+block+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	return s.Cases[0].Expect
}

func TestCheck(t *testing.T) {
	rejected := &engine.Result{
		Allowed: false,
		Status:  &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: `admission webhook "a.example.com" denied the request: no`},
		Rows: []engine.Row{
			{Name: "NamespaceLifecycle", Type: "admission-plugin", Outcome: engine.OutcomeAllowed},
			{Name: "m.example.com", Type: "mutating", Round: 0, Outcome: engine.OutcomePatched},
			{Name: "m.example.com", Type: "mutating", Round: 1, Outcome: engine.OutcomeSkipped},
			{Name: "MutatingAdmissionPolicy", Type: "mutating-policy", Outcome: engine.OutcomeAllowed},
			{Name: "limit", Type: "validating-policy", Binding: "limit", Outcome: engine.OutcomeAllowed},
			{Name: "a.example.com", Type: "validating", Outcome: engine.OutcomeDenied},
			{Name: "b.example.com", Type: "validating", Outcome: engine.OutcomeSkipped},
		},
		Warnings:         []string{"w1"},
		AuditAnnotations: map[string]string{"k": "v"},
	}
	admitted := &engine.Result{
		Allowed: true,
		Object:  json.RawMessage(`{"metadata":{"labels":{"app.kubernetes.io/name":"web","n":"1"}},"spec":{"replicas":3,"containers":[{"image":"a"},{"image":"b"}]}}`),
	}
	tests := []struct {
		name   string
		expect string
		result *engine.Result
		want   []string
	}{
		{
			name:   "a rejection as expected",
			expect: `{allowed: false, code: 403, reason: Forbidden, messageRegexp: "denied the request: no$", warnings: [w1], auditAnnotations: {k: v}, called: [m.example.com, limit, a.example.com], outcomes: {m.example.com: patched, b.example.com: skipped}}`,
			result: rejected,
		},
		{
			name:   "a rejection, every expectation wrong",
			expect: `{allowed: true, code: 422, reason: Invalid, message: "x", warnings: [], auditAnnotations: {k: w, missing: v}, called: [a.example.com], outcomes: {a.example.com: allowed, nope: allowed}}`,
			result: rejected,
			want: []string{
				`rejected (403 Forbidden: admission webhook "a.example.com" denied the request: no), want admitted`,
				`code 403, want 422`,
				`reason "Forbidden", want "Invalid"`,
				`message "admission webhook \"a.example.com\" denied the request: no", want "x"`,
				`warnings ["w1"], want none`,
				`audit annotation "k" is "v", want "w"`,
				`no audit annotation "missing", want "v"`,
				`called ["m.example.com", "limit", "a.example.com"], want ["a.example.com"]`,
				`a.example.com: denied, want allowed`,
				`no webhook or policy "nope" in the result: it is not configured, or admission stopped before it`,
			},
		},
		{
			name:   "an admission as expected",
			expect: `{allowed: true, called: [], fields: {spec.replicas: 3, "spec.containers[1].image": b, "metadata.labels[\"app.kubernetes.io/name\"]": web, metadata.labels.n: "1", metadata.annotations: null, "spec.containers[5]": null}}`,
			result: admitted,
		},
		{
			name:   "an admission, fields wrong",
			expect: `{allowed: false, code: 403, message: "", fields: {spec.replicas: "3", "spec.containers[0].image": null, spec.missing: 1, spec.containers: [{image: a}]}}`,
			result: admitted,
			want: []string{
				`admitted, want rejected`,
				`code 0, want 403`,
				`spec.containers is [{"image":"a"},{"image":"b"}], want [{"image":"a"}]`,
				`spec.containers[0].image is "a", want it absent`,
				`spec.missing is absent, want 1`,
				`spec.replicas is 3, want "3"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(expectFrom(t, tt.expect), tt.result)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFieldPaths(t *testing.T) {
	obj := map[string]any{"a": map[string]any{"b.c": []any{map[string]any{"d": "x"}}, "e": nil}}
	tests := []struct {
		path      string
		value     any
		found     bool
		wantError string
	}{
		{path: `a["b.c"][0].d`, value: "x", found: true},
		{path: `a["b.c"][1].d`},
		{path: `a.e`},
		{path: `a.b.c`},
		{path: `a["b.c"].d`},
		{path: `a..b`, wantError: `field path "a..b": an empty field name`},
		{path: `a[x]`, wantError: `field path "a[x]": [x] is neither a list index nor a quoted key`},
		{path: `a[0`, wantError: `field path "a[0": a [ without its ]`},
		{path: `a[0]b`, wantError: `field path "a[0]b": a field name must follow a dot`},
		{path: ``, wantError: `field path "": empty or ending with a dot`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			value, found, err := lookup(obj, tt.path)
			if tt.wantError != "" {
				if err == nil || err.Error() != tt.wantError {
					t.Fatalf("error %v, want %s", err, tt.wantError)
				}
				return
			}
			if err != nil || found != tt.found || !cmp.Equal(value, tt.value) {
				t.Errorf("lookup = %v, %v, %v; want %v, %v", value, found, err, tt.value, tt.found)
			}
		})
	}
}
