package policyreport_test

import (
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"

	"github.com/admitkit/admit/audit/policyreport"
)

// A namespace's report with one failed result, written for kubectl apply -f.
func ExampleWrite() {
	r := policyreport.New(policyreport.OpenReports, "checks", "shop")
	r.Source = "my-checker"
	r.Results = append(r.Results, policyreport.Result{
		Policy: "replica-cap", Result: policyreport.StatusFail, Severity: policyreport.SeverityHigh, Scored: true,
		Timestamp: policyreport.Timestamp{Seconds: 1772366400},
		Resources: []corev1.ObjectReference{{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "big"}},
		Message:   "at most 5 replicas",
	})
	r.Summary.Add(policyreport.StatusFail)
	if err := policyreport.Write(os.Stdout, []policyreport.Report{r}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// apiVersion: openreports.io/v1alpha1
	// kind: Report
	// metadata:
	//   name: checks
	//   namespace: shop
	// results:
	// - message: at most 5 replicas
	//   policy: replica-cap
	//   resources:
	//   - apiVersion: apps/v1
	//     kind: Deployment
	//     name: big
	//     namespace: shop
	//   result: fail
	//   scored: true
	//   severity: high
	//   timestamp:
	//     nanos: 0
	//     seconds: 1772366400
	// source: my-checker
	// summary:
	//   error: 0
	//   fail: 1
	//   pass: 0
	//   skip: 0
	//   warn: 0
}
