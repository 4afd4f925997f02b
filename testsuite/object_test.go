package testsuite

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/engine"
)

// A deployment as admission leaves it: the fields the apiserver sets anew on every write among
// the others.
const admittedDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","uid":"u-1","creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{"manager":"admit"}],"labels":{"tier":"standard","app.kubernetes.io/name":"web"}},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"web","image":"a"},{"name":"proxy","image":"b"}]}}}}`

func TestObjectExpectations(t *testing.T) {
	res := &engine.Result{Allowed: true, Object: json.RawMessage(admittedDeployment)}
	tests := []struct {
		name   string
		expect string
		want   []string
	}{
		{name: "a partial document that matches",
			expect: `{allowed: true, object: {metadata: {labels: {tier: standard, missing: null}}, spec: {replicas: 3, template: {spec: {containers: [{image: a}, {name: proxy}]}}}}}`},
		{name: "a partial document that does not",
			expect: `{allowed: true, object: {metadata: {labels: {tier: gold, app.kubernetes.io/name: null}, annotations: {a: b}}, spec: {replicas: "3", template: {spec: {containers: [{image: a}]}}}}}`,
			want: []string{
				`object: metadata.annotations is absent, want {"a":"b"}`,
				`object: metadata.labels["app.kubernetes.io/name"] is "web", want it absent`,
				`object: metadata.labels.tier is "standard", want "gold"`,
				`object: spec.replicas is 3, want "3"`,
				`object: spec.template.spec.containers has 2 items, want 1: [{"image":"a","name":"web"},{"image":"b","name":"proxy"}]`,
			}},
		{name: "the whole object, volatile fields aside",
			expect: `{allowed: true, wholeObject: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, uid: other, labels: {tier: standard, app.kubernetes.io/name: web}}, spec: {replicas: 3, template: {spec: {containers: [{name: web, image: a}, {name: proxy, image: b}]}}}}}`},
		{name: "the whole object, a field more and one less",
			expect: `{allowed: true, wholeObject: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, labels: {tier: standard}}, spec: {replicas: 3, paused: true, template: {spec: {containers: [{name: web, image: a}, {name: proxy, image: b}]}}}}}`,
			want: []string{
				`wholeObject: metadata.labels["app.kubernetes.io/name"] is "web", want it absent`,
				`wholeObject: spec.paused is absent, want true`,
			}},
		{name: "no object to compare", expect: `{allowed: true, object: {metadata: {name: web}}}`, want: []string{"no admitted object to compare with (a DELETE or CONNECT has none)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result := res
			if tt.name == "no object to compare" {
				result = &engine.Result{Allowed: true}
			}
			if diff := cmp.Diff(tt.want, Check(expectFrom(t, tt.expect), result)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareBoundsItsReport(t *testing.T) {
	want, got := map[string]any{}, map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		want[k], got[k] = "x", "y"
	}
	diffs := compare(want, got, false)
	if len(diffs) != maxDifferences+1 || diffs[maxDifferences] != "and 2 more differences" {
		t.Errorf("compare reported %d lines, the last %q", len(diffs), diffs[len(diffs)-1])
	}
}

// Skipped webhooks and policies are told apart from called ones, with the reason, and a wrong
// expectation about them says why they were not called.
func TestRowsAndSkips(t *testing.T) {
	res := &engine.Result{Allowed: true, Rows: []engine.Row{
		{Name: "NamespaceLifecycle", Type: "admission-plugin", Outcome: engine.OutcomeAllowed},
		{Name: "m.example.com", Type: "mutating", Outcome: engine.OutcomePatched},
		{Name: "m.example.com", Type: "mutating", Round: 1, Outcome: engine.OutcomeSkipped, Reason: "no reinvocation"},
		{Name: "limit", Type: "validating-policy", Binding: "limit-binding", Outcome: engine.OutcomeSkipped, Reason: "the binding's matchResources do not match CREATE configmaps"},
	}}
	wantRows := []Row{
		{Name: "m.example.com", Type: "mutating", Outcome: "patched"},
		{Name: "limit", Type: "validating-policy", Binding: "limit-binding", Outcome: "skipped", Reason: "the binding's matchResources do not match CREATE configmaps"},
	}
	if diff := cmp.Diff(wantRows, Rows(res)); diff != "" {
		t.Errorf("Rows (-want +got):\n%s", diff)
	}
	got := Check(expectFrom(t, `{allowed: true, called: [m.example.com, limit, ghost], outcomes: {limit: allowed}}`), res)
	want := []string{
		`called ["m.example.com"], want ["m.example.com", "limit", "ghost"]; "limit" was skipped: the binding's matchResources do not match CREATE configmaps; "ghost" is not configured, or admission stopped before it`,
		`limit: skipped, not called (the binding's matchResources do not match CREATE configmaps), want allowed`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
	if got := Check(expectFrom(t, `{allowed: true, outcomes: {limit: skipped}}`), res); len(got) > 0 {
		t.Errorf("skipped as expected: %v", got)
	}
}
