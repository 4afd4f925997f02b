// Package policyreport holds Policy Reports as the tools that show policy results read them: the
// Kubernetes policy working group's wgpolicyk8s.io/v1alpha2 PolicyReport and ClusterPolicyReport
// (written by Kyverno, Kubewarden, Trivy's operator, read by Policy Reporter), and their
// successor, openreports.io/v1alpha1 Report and ClusterReport. The two formats have one shape:
// a summary of counts and a list of results, each result a policy's (and rule's) verdict on one
// or more objects; openreports.io adds the report's source. A report per namespace holds its
// objects' results, a cluster report those of cluster-scoped objects.
//
// The package knows the formats, not where results come from: package audit turns an audit's
// report into Policy Reports (audit.Report.PolicyReports). Its types are admit's own, written
// from the formats' published schemas (their CustomResourceDefinitions), so that admit links
// neither project's module; testdata holds CustomResourceDefinitions with the same schemas, which
// tests validate reports against.
//
//	report.go  Format, Report, Result, Summary, Status, Severity; Write, a YAML stream
package policyreport
