package audit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/admitkit/admit/audit/policyreport"
)

// reportOf is a report of two namespaces and cluster-scoped writes, whose list (the limit) left
// out one of shop's writes.
func reportOf() *Report {
	ns := Finding{Source: "dump.yaml:3", Operation: "UPDATE", APIVersion: "v1", Kind: "Namespace", Name: "ops", Effects: []Effect{EffectWarned},
		Warnings: []Warning{{Steps: []Step{teamPods}, Text: "a team label is expected"}}}
	big := with(deploymentWrite, func(f *Finding) {
		f.Effects, f.Denial = []Effect{EffectDenied}, &Denial{Step: replicaCap, Code: 422, Message: "at most 5 replicas"}
	})
	return &Report{Source: "dump.yaml", Baseline: "current/", Proposal: "proposal.yaml", Time: testedAt, Complete: true,
		Changes: []Change{{Step: replicaCap, What: "changed"}, {Step: teamPods, What: "added"}},
		Namespaces: []NamespaceCount{
			{Namespace: "shop", Audited: 5, Denied: 2, Results: policyreport.Summary{Fail: 2}},
			{Namespace: "", Audited: 2, Warned: 1, Results: policyreport.Summary{Warn: 1}},
			{Namespace: "ops", Audited: 1},
		},
		Objects: []Finding{big, ns}, OmittedObjects: 1,
	}
}

func metadata(namespace, audited string, more map[string]string) policyreport.Metadata {
	annotations := map[string]string{"audit.admit.dev/source": "dump.yaml", "audit.admit.dev/baseline": "current/",
		"audit.admit.dev/proposal": "proposal.yaml", "audit.admit.dev/audited": audited}
	for k, v := range more {
		annotations[k] = v
	}
	return policyreport.Metadata{Name: "admit-audit", Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "admit"}, Annotations: annotations}
}

// A report per namespace audited and the cluster's, in that order; the summaries count every
// result, and the reports that hold fewer say how many they leave out.
func TestPolicyReports(t *testing.T) {
	r := reportOf()
	onlyResults := cmpopts.IgnoreFields(policyreport.Result{}, "Source", "Severity", "Timestamp", "Scored", "Resources", "Message", "Properties", "Category", "Rule")
	for _, format := range policyreport.Formats() {
		t.Run(string(format), func(t *testing.T) {
			source := ""
			if format == policyreport.OpenReports {
				source = "admit"
			}
			kind := map[bool]string{true: format.Kind(true), false: format.Kind(false)}
			want := []policyreport.Report{
				{APIVersion: string(format), Kind: kind[true], Metadata: metadata("", "2", nil), Source: source, Summary: policyreport.Summary{Warn: 1},
					Results: []policyreport.Result{{Policy: "team-pods", Result: policyreport.StatusWarn}}},
				{APIVersion: string(format), Kind: kind[false], Metadata: metadata("ops", "1", nil), Source: source},
				{APIVersion: string(format), Kind: kind[false], Metadata: metadata("shop", "5", map[string]string{"audit.admit.dev/omitted-results": "1"}),
					Source: source, Summary: policyreport.Summary{Fail: 2}, Results: []policyreport.Result{{Policy: "replica-cap", Result: policyreport.StatusFail}}},
			}
			if diff := cmp.Diff(want, r.PolicyReports(format), onlyResults); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
		})
	}
	if got := map[bool]string{true: policyreport.OpenReports.Kind(true), false: policyreport.WGPolicy.Kind(true)}; got[true] != "ClusterReport" || got[false] != "ClusterPolicyReport" {
		t.Errorf("cluster kinds %v", got)
	}
}

// An audit of one namespace writes its report alone: an empty cluster report would replace the
// findings of an audit of every namespace. An interrupted audit says so.
func TestPolicyReportsOfOneNamespace(t *testing.T) {
	r := reportOf()
	r.Namespace, r.Complete = "shop", false
	r.Namespaces, r.Objects = r.Namespaces[:1], r.Objects[:1]
	reports := r.PolicyReports(policyreport.WGPolicy)
	if len(reports) != 1 || reports[0].Metadata.Namespace != "shop" {
		t.Fatalf("reports %+v, want shop's alone", reports)
	}
	if got := reports[0].Metadata.Annotations["audit.admit.dev/interrupted"]; got != "true" {
		t.Errorf("interrupted annotation %q, want true", got)
	}
}
