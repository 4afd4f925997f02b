package reportstore_test

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/admitkit/admit/audit"
	"github.com/admitkit/admit/audit/reportstore"
	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

// Two shards of an audit store their reports in the cluster, as the pods of an Indexed Job do;
// the merge reads them back, adds them up and stores the whole audit's report for users to
// fetch. A program passes the clientset of its cluster (kubernetes.NewForConfig); this example
// runs against client-go's fake one.
func Example() {
	ctx := context.Background()
	var client kubernetes.Interface = fake.NewClientset()
	store := &reportstore.Store{Client: client, Namespace: "admit-audit"}

	for i := range 2 {
		report, err := auditShard(ctx, audit.Shard{Index: i, Count: 2})
		if err != nil {
			fmt.Println(err)
			return
		}
		name, err := store.PutShard(ctx, "nightly", report)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("stored", name)
	}

	shards, err := store.Shards(ctx, "nightly")
	if err != nil {
		fmt.Println(err)
		return
	}
	merged, err := audit.Merge(shards)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(merged.Totals.NewlyDenied, "newly denied, verdict pass:", merged.Check(audit.DefaultThresholds()) == audit.Pass)
	if err := store.PutReport(ctx, "nightly-report", merged); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored nightly-report:", reportstore.ReportKey, reportstore.HTMLKey)
	// Output:
	// stored nightly-0-of-2
	// stored nightly-1-of-2
	// 2 newly denied, verdict pass: false
	// stored nightly-report: report.json.gz report.html.gz
}

// auditShard audits a shard of the repository's example dump: a policy's binding turned from
// Warn to Deny.
func auditShard(ctx context.Context, shard audit.Shard) (*audit.Report, error) {
	baseline, _, err := review.LoadAdmission("baseline", []string{"../../examples/audit/current"}, false, nil)
	if err != nil {
		return nil, err
	}
	changes, _, err := review.LoadAdmission("proposal", []string{"../../examples/audit/deny.yaml"}, false, nil)
	if err != nil {
		return nil, err
	}
	dump, err := manifest.Expand([]string{"../../examples/audit/dump.yaml"}, manifest.Options{})
	if err != nil {
		return nil, err
	}
	return audit.Run(ctx, &audit.Dump{Inputs: dump, Paths: []string{"dump.yaml"}}, audit.Options{
		Baseline: baseline, Proposal: audit.Overlay(baseline, changes), Shard: shard,
	})
}
