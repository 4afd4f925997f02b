package audit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/patch"
	"github.com/admitkit/admit/review"
)

func mustSet(t *testing.T, yaml string) review.Admission {
	t.Helper()
	if yaml == "" {
		return review.Admission{}
	}
	set, err := config.Parse("set.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return review.AdmissionOf(set)
}

const podsWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: pods}
webhooks:
- name: pods.example.com
  clientConfig: {url: "https://127.0.0.1:1/pods", caBundle: Y2E=}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`

const replicaPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [deployments, deployments/scale]}]
  validations: [{expression: "object.spec.replicas <= 5"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [Warn]}
`

// The proposal is the baseline with the changes over it; a change is a step whose configuration
// differs.
func TestChanges(t *testing.T) {
	tests := []struct {
		name, base, proposed string
		want                 []string
	}{
		{name: "nothing proposed changes nothing", base: podsWebhook + "---\n" + replicaPolicy},
		{name: "a new webhook and a new policy", proposed: podsWebhook + "---\n" + replicaPolicy,
			want: []string{"added validating webhook pods.example.com (ValidatingWebhookConfiguration pods)", "added ValidatingAdmissionPolicy replicas"}},
		{name: "the same webhook without its caBundle (an injector fills it) is no change", base: podsWebhook,
			proposed: strings.Replace(podsWebhook, ", caBundle: Y2E=", "", 1)},
		{name: "a policy as the cluster stores it, defaults filled in, is the policy as written", base: strings.Replace(replicaPolicy,
			"  matchConstraints:\n", "  failurePolicy: Fail\n  matchConstraints:\n    matchPolicy: Equivalent\n    namespaceSelector: {}\n    objectSelector: {}\n", 1),
			proposed: replicaPolicy},
		{name: "a webhook's timeout changed", base: podsWebhook, proposed: podsWebhook + "  timeoutSeconds: 3\n",
			want: []string{"changed validating webhook pods.example.com (ValidatingWebhookConfiguration pods)"}},
		{name: "a binding's actions changed change its policy", base: replicaPolicy,
			proposed: strings.Replace(replicaPolicy, "[Warn]", "[Deny]", 1),
			want:     []string{"changed ValidatingAdmissionPolicy replicas (binding replicas changed)"}},
		{name: "a webhook left out of a replaced configuration is removed", base: podsWebhook,
			proposed: "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: pods}\nwebhooks: []\n",
			want:     []string{"removed validating webhook pods.example.com (ValidatingWebhookConfiguration pods)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := mustSet(t, tt.base)
			proposed := Overlay(base, mustSet(t, tt.proposed))
			var got []string
			for _, c := range Changes(base, proposed) {
				line := c.What + " " + c.Step.String()
				if c.Detail != "" {
					line += " (" + c.Detail + ")"
				}
				got = append(got, line)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// A write no changed step can match is not admitted; the matcher errs on the side of admitting.
func TestMatcher(t *testing.T) {
	base := review.Admission{}
	m := NewMatcher(Changes(base, Overlay(base, mustSet(t, podsWebhook+"---\n"+replicaPolicy))), nil)
	tests := []struct {
		op          admissionregistrationv1.OperationType
		gvr         schema.GroupVersionResource
		subresource string
		want        bool
	}{
		{admissionregistrationv1.Create, schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "", true},
		{admissionregistrationv1.Update, schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "", false},
		{admissionregistrationv1.Create, schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "status", false},
		{admissionregistrationv1.Create, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "", false},
		{admissionregistrationv1.Update, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "", true},
		{admissionregistrationv1.Update, schema.GroupVersionResource{Group: "apps", Version: "v1beta2", Resource: "deployments"}, "scale", true},
		{admissionregistrationv1.Update, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "status", false},
	}
	for _, tt := range tests {
		if got := m.Matches(tt.op, tt.gvr, tt.subresource); got != tt.want {
			t.Errorf("matches(%s %s/%s) = %v, want %v", tt.op, tt.gvr, tt.subresource, got, tt.want)
		}
	}
	if !m.MatchesResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}) || m.MatchesResource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}) {
		t.Error("matchesResource follows pods, and only them among these")
	}
}

// result builds an admission's result from its decision and rows, "type/configuration/name=outcome".
func result(allowed bool, status *metav1.Status, object string, warnings []string, rows ...engine.Row) *review.Outcome {
	var obj json.RawMessage
	if object != "" {
		obj = json.RawMessage(object)
	}
	return &review.Outcome{
		Source:  "dump.yaml:3",
		Request: &engine.Request{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Name: "web", Namespace: "shop", Operation: admissionv1.Update},
		Result:  &engine.Result{Allowed: allowed, Status: status, Object: obj, Warnings: warnings, Rows: rows},
	}
}

func row(typ, configuration, name string, outcome engine.Outcome, reason string) engine.Row {
	return engine.Row{Type: engine.RowType(typ), Configuration: configuration, Name: name, Outcome: outcome, Reason: reason}
}

// Two admissions compared: what the proposal newly does.
func TestCompare(t *testing.T) {
	hook := Step{Type: engine.TypeValidatingWebhook, Configuration: "pods", Name: "pods.example.com"}
	mutator := Step{Type: engine.TypeMutatingWebhook, Configuration: "labels", Name: "labels.example.com"}
	policy := Step{Type: engine.TypeValidatingPolicy, Name: "replicas"}
	changed := map[Step]string{hook: "added", mutator: "added", policy: "changed"}
	denied := &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: `admission webhook "pods.example.com" denied the request: no`}
	const pod = `{"metadata":{"name":"web","managedFields":[{"manager":"admit"}]}}`
	const labelled = `{"metadata":{"name":"web","labels":{"team":"a"},"managedFields":[{"manager":"admit"},{"manager":"other"}]}}`
	tests := []struct {
		name           string
		base, proposed *review.Outcome
		want           Finding
		wantRank       int
	}{
		{
			name:     "nothing new",
			base:     result(true, nil, pod, nil),
			proposed: result(true, nil, pod, nil, row("validating", "pods", "pods.example.com", engine.OutcomeAllowed, "")),
			want:     Finding{}, wantRank: 5,
		},
		{
			name:     "newly denied by a webhook",
			base:     result(true, nil, pod, nil),
			proposed: result(false, denied, "", nil, row("validating", "pods", "pods.example.com", engine.OutcomeDenied, "no")),
			want: Finding{Effects: []Effect{EffectDenied},
				Denial: &Denial{Step: hook, Code: 403, Reason: "Forbidden", Message: denied.Message}},
			wantRank: 0,
		},
		{
			name:     "denied already: nothing new",
			base:     result(false, denied, "", nil, row("validating", "pods", "pods.example.com", engine.OutcomeDenied, "no")),
			proposed: result(false, denied, "", nil, row("validating", "pods", "pods.example.com", engine.OutcomeDenied, "no")),
			want:     Finding{}, wantRank: 5,
		},
		{
			name: "a call that fails under failurePolicy Fail: failing, not denied",
			base: result(true, nil, pod, nil),
			proposed: result(false, &metav1.Status{Code: 500, Message: "failed calling webhook"}, "", nil,
				row("validating", "pods", "pods.example.com", engine.OutcomeError, "failed calling webhook: connection refused")),
			want: Finding{Effects: []Effect{EffectFailing},
				Failures: []Failure{{Step: hook, Message: "failed calling webhook: connection refused", Rejected: true}}},
			wantRank: 1,
		},
		{
			name: "a call that fails open, with the policy's warning",
			base: result(true, nil, pod, nil),
			proposed: result(true, nil, pod, []string{"Validation failed for ValidatingAdmissionPolicy 'replicas' with binding 'replicas': too many"},
				row("validating", "pods", "pods.example.com", engine.OutcomeFailedOpen, "failed calling webhook: timeout"),
				row("validating-policy", "", "replicas", engine.OutcomeAllowed, "")),
			want: Finding{Effects: []Effect{EffectFailing, EffectWarned},
				Failures: []Failure{{Step: hook, Message: "failed calling webhook: timeout"}},
				Warnings: []Warning{{Steps: []Step{policy}, Text: "Validation failed for ValidatingAdmissionPolicy 'replicas' with binding 'replicas': too many"}}},
			wantRank: 1,
		},
		{
			name: "newly mutated, managedFields aside; a webhook's warning is its own",
			base: result(true, nil, pod, []string{"old"}),
			proposed: result(true, nil, labelled, []string{"old", "label added"},
				row("mutating", "labels", "labels.example.com", engine.OutcomePatched, "")),
			want: Finding{Effects: []Effect{EffectWarned, EffectMutated},
				Patch:     patch.Patch{{Op: "add", Path: "/metadata/labels", Value: json.RawMessage(`{"team":"a"}`)}},
				MutatedBy: []Step{mutator},
				Warnings:  []Warning{{Steps: []Step{mutator}, Text: "label added"}}},
			wantRank: 2,
		},
		{
			name:     "newly allowed",
			base:     result(false, denied, "", nil, row("validating", "pods", "pods.example.com", engine.OutcomeDenied, "no")),
			proposed: result(true, nil, pod, nil),
			want:     Finding{Effects: []Effect{EffectAllowed}, BaselineRejection: denied.Message, BaselineRejectedBy: &hook},
			wantRank: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.base, tt.proposed, changed)
			ignore := cmpopts.IgnoreFields(Finding{}, "Source", "Operation", "APIVersion", "Kind", "Namespace", "Name", "UID")
			if diff := cmp.Diff(tt.want, got, ignore); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
			// The rank orders the report's list: written out here, not computed by the code
			// under test.
			if r := got.rank(); r != tt.wantRank {
				t.Errorf("rank %d, want %d", r, tt.wantRank)
			}
		})
	}
}

func TestNewWarnings(t *testing.T) {
	got := newWarnings([]string{"a", "b", "a"}, []string{"a", "a", "a", "c", "b"})
	if diff := cmp.Diff([]string{"a", "c"}, got); diff != "" {
		t.Errorf("newWarnings (-want +got):\n%s", diff)
	}
}
