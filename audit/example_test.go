package audit_test

import (
	"context"
	"fmt"
	"os"

	"github.com/admitkit/admit/audit"
	"github.com/admitkit/admit/audit/policyreport"
	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

// Before turning a policy's binding from Warn to Deny, audit what it would deny among a
// cluster's objects: a dump, the policy as the cluster has it (the baseline), and the binding
// rolled out over it (the proposal).
func Example() {
	baseline, _, err := review.LoadAdmission("baseline", []string{"../examples/audit/current"}, false, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	changes, _, err := review.LoadAdmission("proposal", []string{"../examples/audit/deny.yaml"}, false, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	dump, err := manifest.Expand([]string{"../examples/audit/dump.yaml"}, manifest.Options{Stdin: os.Stdin})
	if err != nil {
		fmt.Println(err)
		return
	}
	report, err := audit.Run(context.Background(), &audit.Dump{Inputs: dump, Paths: []string{"dump.yaml"}}, audit.Options{
		Baseline: baseline, Proposal: audit.Overlay(baseline, changes),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.Totals.NewlyDenied, "newly denied:")
	for _, f := range report.Objects {
		fmt.Println(f.Effects[0], f.ObjectName(), "by", f.Denial.Step)
	}
	fmt.Println("verdict:", report.Check(audit.DefaultThresholds()) == audit.Pass)
	// Output:
	// 2 newly denied:
	// denied Deployment shop/api by ValidatingAdmissionPolicy replica-limit
	// denied Deployment batch/workers by ValidatingAdmissionPolicy replica-limit
	// verdict: false
}

// The same audit as Policy Reports, for the dashboards that show policy results: a report per
// namespace audited and the cluster's, each result a step's verdict on one write.
func ExampleReport_PolicyReports() {
	baseline, _, err := review.LoadAdmission("baseline", []string{"../examples/audit/current"}, false, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	changes, _, err := review.LoadAdmission("proposal", []string{"../examples/audit/deny.yaml"}, false, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	dump, err := manifest.Expand([]string{"../examples/audit/dump.yaml"}, manifest.Options{Stdin: os.Stdin})
	if err != nil {
		fmt.Println(err)
		return
	}
	report, err := audit.Run(context.Background(), &audit.Dump{Inputs: dump, Paths: []string{"dump.yaml"}}, audit.Options{
		Baseline: baseline, Proposal: audit.Overlay(baseline, changes),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range report.PolicyReports(policyreport.WGPolicy) {
		fmt.Printf("%s %q: %d fail\n", r.Kind, r.Metadata.Namespace, r.Summary.Fail)
		for _, res := range r.Results {
			fmt.Printf("  %s %s %s/%s\n", res.Result, res.Policy, res.Resources[0].Kind, res.Resources[0].Name)
		}
	}
	// Output:
	// ClusterPolicyReport "": 0 fail
	// PolicyReport "batch": 1 fail
	//   fail replica-limit Deployment/workers
	// PolicyReport "kube-system": 0 fail
	// PolicyReport "shop": 1 fail
	//   fail replica-limit Deployment/api
}
