package audit_test

import (
	"context"
	"fmt"
	"os"

	"github.com/admitkit/admit/audit"
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
