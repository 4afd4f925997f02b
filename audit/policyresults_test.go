package audit

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/admitkit/admit/audit/policyreport"
	"github.com/admitkit/admit/engine"
	"github.com/admitkit/admit/patch"
)

// The steps of the mapping's cases, and what the proposal does to them.
var (
	replicaCap = Step{Type: engine.TypeValidatingPolicy, Name: "replica-cap"}
	teamPods   = Step{Type: engine.TypeValidatingWebhook, Configuration: "team-pods", Name: "team-pods.example.com"}
	ownerLabel = Step{Type: engine.TypeMutatingWebhook, Configuration: "owner", Name: "owner.example.com"}
	sidecar    = Step{Type: engine.TypeMutatingPolicy, Name: "sidecar"}
	legacy     = Step{Type: engine.TypeValidatingWebhook, Configuration: "legacy", Name: "legacy.example.com"}
	podSec     = Step{Type: engine.TypeAdmissionPlugin, Name: "PodSecurity"}
	testedAt   = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

func mappingReport(f Finding) *Report {
	return &Report{Time: testedAt, Complete: true, Objects: []Finding{f},
		Namespaces: []NamespaceCount{{Namespace: f.Namespace}},
		Changes: []Change{{Step: replicaCap, What: "changed"}, {Step: teamPods, What: "added"}, {Step: ownerLabel, What: "added"},
			{Step: sidecar, What: "added"}, {Step: legacy, What: "removed"}}}
}

// want is a result of the write of deploymentWrite or podWrite, with the fields every result of
// it has.
func want(f Finding, policy, rule, category string, status policyreport.Status, severity policyreport.Severity, message string, props map[string]string) policyreport.Result {
	properties := map[string]string{"operation": f.Operation, "input": f.Source}
	for k, v := range props {
		properties[k] = v
	}
	return policyreport.Result{Source: "admit", Policy: policy, Rule: rule, Category: category, Severity: severity,
		Timestamp: policyreport.Timestamp{Seconds: testedAt.Unix()}, Result: status, Scored: status != policyreport.StatusWarn,
		Resources: []corev1.ObjectReference{{APIVersion: f.APIVersion, Kind: f.Kind, Namespace: f.Namespace, Name: f.Name, UID: f.UID}},
		Message:   message, Properties: properties}
}

var (
	deploymentWrite = Finding{Source: "dump.yaml:12", Operation: "UPDATE", APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "big", UID: "0f1e"}
	podWrite        = Finding{Source: "dump.yaml:40", Operation: "CREATE", APIVersion: "v1", Kind: "Pod", Namespace: "shop", Name: "web"}
)

func with(f Finding, set func(*Finding)) Finding {
	set(&f)
	return f
}

// Each write's results: one per step an effect is attributed to, the worst status of what the
// step newly does, named as its configuration names it.
func TestPolicyResults(t *testing.T) {
	const denied = `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replica-cap' with binding 'replica-cap' denied request: at most 5 replicas`
	const warned = "Validation failed for ValidatingAdmissionPolicy 'replica-cap' with binding 'replica-cap': at most 5 replicas"
	labelPatch := patch.Patch{{Op: "add", Path: "/metadata/labels", Value: json.RawMessage(`{"owner":"platform"}`)}}
	tests := []struct {
		name    string
		finding Finding
		want    []policyreport.Result
	}{{
		name: "denied by a changed policy that also warns: one result, the worst",
		finding: with(deploymentWrite, func(f *Finding) {
			f.Effects = []Effect{EffectDenied, EffectWarned}
			f.Denial = &Denial{Step: replicaCap, Code: 422, Reason: "Invalid", Message: denied}
			f.Warnings = []Warning{{Steps: []Step{replicaCap}, Text: warned}}
		}),
		want: []policyreport.Result{want(deploymentWrite, "replica-cap", "", "ValidatingAdmissionPolicy", policyreport.StatusFail, policyreport.SeverityHigh,
			denied+"\n"+warned, map[string]string{"code": "422", "reason": "Invalid", "change": "changed"})},
	}, {
		name: "a call failing closed, another failing open, a policy's warning",
		finding: with(podWrite, func(f *Finding) {
			f.Effects = []Effect{EffectFailing, EffectWarned}
			f.Failures = []Failure{{Step: teamPods, Message: "failed calling webhook: refused", Rejected: true}, {Step: ownerLabel, Message: "failed calling webhook: timeout"}}
			f.Warnings = []Warning{{Steps: []Step{podSec}, Text: "would violate PodSecurity \"restricted:latest\""}}
		}),
		want: []policyreport.Result{
			want(podWrite, "team-pods", "team-pods.example.com", "ValidatingWebhookConfiguration", policyreport.StatusError, policyreport.SeverityHigh,
				"failed calling webhook: refused", map[string]string{"failurePolicy": "Fail", "change": "added"}),
			want(podWrite, "owner", "owner.example.com", "MutatingWebhookConfiguration", policyreport.StatusError, policyreport.SeverityMedium,
				"failed calling webhook: timeout", map[string]string{"failurePolicy": "Ignore", "change": "added"}),
			want(podWrite, "PodSecurity", "", "admission plugin", policyreport.StatusWarn, policyreport.SeverityLow,
				"would violate PodSecurity \"restricted:latest\"", nil),
		},
	}, {
		name: "a warning any of two webhooks may have sent, and one none did: unattributed, with the candidates",
		finding: with(podWrite, func(f *Finding) {
			f.Effects = []Effect{EffectWarned}
			f.Warnings = []Warning{{Steps: []Step{teamPods, ownerLabel}, Text: "deprecated"}, {Text: "spec.foo is deprecated"}}
		}),
		want: []policyreport.Result{want(podWrite, UnattributedPolicy, "", "admission chain", policyreport.StatusWarn, policyreport.SeverityLow,
			"deprecated\nspec.foo is deprecated", map[string]string{"steps": teamPods.String() + "; " + ownerLabel.String()})},
	}, {
		name: "mutated by two steps: a pass each",
		finding: with(podWrite, func(f *Finding) {
			f.Effects = []Effect{EffectMutated}
			f.Patch, f.MutatedBy = labelPatch, []Step{ownerLabel, sidecar}
		}),
		want: []policyreport.Result{
			want(podWrite, "owner", "owner.example.com", "MutatingWebhookConfiguration", policyreport.StatusPass, "",
				`mutated: add /metadata/labels: {"owner":"platform"}`, map[string]string{"change": "added"}),
			want(podWrite, "sidecar", "", "MutatingAdmissionPolicy", policyreport.StatusPass, "",
				`mutated: add /metadata/labels: {"owner":"platform"}`, map[string]string{"change": "added"}),
		},
	}, {
		name: "mutated by no step of its own, a write to a subresource replayed from a log",
		finding: with(podWrite, func(f *Finding) {
			f.Effects, f.SubResource, f.Origin = []Effect{EffectMutated}, "status", "audit.log:3: update pods/status web in shop by kubelet, answered 200"
			f.Patch = labelPatch
		}),
		want: []policyreport.Result{want(podWrite, UnattributedPolicy, "", "admission chain", policyreport.StatusPass, "",
			`mutated: add /metadata/labels: {"owner":"platform"}`,
			map[string]string{"steps": "none known", "subresource": "status", "origin": "audit.log:3: update pods/status web in shop by kubelet, answered 200"})},
	}, {
		name: "admitted where a removed webhook rejected it",
		finding: with(podWrite, func(f *Finding) {
			f.Effects = []Effect{EffectAllowed}
			f.BaselineRejection, f.BaselineRejectedBy = `admission webhook "legacy.example.com" denied the request: no`, &legacy
		}),
		want: []policyreport.Result{want(podWrite, "legacy", "legacy.example.com", "ValidatingWebhookConfiguration", policyreport.StatusPass, "",
			`admitted; the baseline rejects it: admission webhook "legacy.example.com" denied the request: no`, map[string]string{"change": "removed"})},
	}, {
		name: "denied, no step known to have rejected",
		finding: with(podWrite, func(f *Finding) {
			f.Effects = []Effect{EffectDenied}
			f.Denial = &Denial{Code: 500, Message: "rejected"}
		}),
		want: []policyreport.Result{want(podWrite, UnattributedPolicy, "", "admission chain", policyreport.StatusFail, policyreport.SeverityHigh,
			"rejected", map[string]string{"code": "500", "steps": "none known"})},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reports := mappingReport(tt.finding).PolicyReports(policyreport.WGPolicy)
			got := reports[len(reports)-1]
			if diff := cmp.Diff(tt.want, got.Results); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}

// More operations than the text shows end in how many more there are.
func TestMutationMessageIsBounded(t *testing.T) {
	f := Finding{}
	for range maxPatchLines + 3 {
		f.Patch = append(f.Patch, patch.Operation{Op: "remove", Path: "/a"})
	}
	want := "mutated: remove /a; remove /a; remove /a; remove /a; remove /a; remove /a; remove /a; remove /a; and 3 more operations"
	if got := mutationMessage(&f); got != want {
		t.Errorf("mutationMessage:\n got %q\nwant %q", got, want)
	}
}
