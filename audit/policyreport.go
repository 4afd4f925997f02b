package audit

import (
	"io"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/admitkit/admit/audit/policyreport"
)

// Policy Reports of an audit: what the proposal newly does, where the dashboards that show
// Kyverno's, Kubewarden's or Trivy's findings (Policy Reporter) show it.

// PolicyReportName names an audit's reports, in each namespace and for the cluster: a scheduled
// audit's reports replace the last run's.
const PolicyReportName = "admit-audit"

// PolicyReportSource is the source the reports' results name.
const PolicyReportSource = "admit"

// Labels and annotations of an audit's reports.
const (
	// ManagedByLabel, set to PolicyReportSource, selects an audit's reports (kubectl apply
	// --prune, kubectl delete -l).
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// AnnotationPrefix begins the annotations that say what was audited: source, baseline,
	// proposal, audited (the namespace's audited writes), omitted-results, interrupted.
	AnnotationPrefix = "audit.admit.dev/"
)

// PolicyReports are the report as Policy Reports of format: one for each namespace with audited
// writes, holding the results of its listed writes, and one for the cluster, holding those of
// cluster-scoped writes — always, unless the audit was of one namespace (Options.Namespace), so
// that a report of earlier findings is replaced. The cluster's comes first, then the namespaces'
// by name.
//
// A report's results are those of the writes the report lists (Objects, at most Options.Limit
// over all namespaces, the worst first); its summary counts the results of every write with a
// new effect, listed or not, and the annotation audit.admit.dev/omitted-results how many it
// leaves out. Every result's timestamp is the run's moment (Time).
func (r *Report) PolicyReports(format policyreport.Format) []policyreport.Report {
	counts := map[string]NamespaceCount{}
	var namespaces []string
	for _, n := range r.Namespaces {
		counts[n.Namespace] = n
		if n.Namespace != "" {
			namespaces = append(namespaces, n.Namespace)
		}
	}
	slices.Sort(namespaces)
	if r.Namespace == "" {
		namespaces = append([]string{""}, namespaces...)
	}
	out := make([]policyreport.Report, len(namespaces))
	index := map[string]int{}
	for i, ns := range namespaces {
		index[ns] = i
		out[i] = r.emptyPolicyReport(format, ns, counts[ns])
	}
	changes := map[Step]string{}
	for _, c := range r.Changes {
		changes[c.Step] = c.What
	}
	for i := range r.Objects {
		f := &r.Objects[i]
		at, ok := index[f.Namespace]
		if !ok {
			continue
		}
		for _, res := range f.policyResults() {
			out[at].Results = append(out[at].Results, r.policyResult(f, res, changes))
		}
	}
	for i := range out {
		if omitted := out[i].Summary.Total() - len(out[i].Results); omitted > 0 {
			out[i].Metadata.Annotations[AnnotationPrefix+"omitted-results"] = strconv.Itoa(omitted)
		}
	}
	return out
}

// WritePolicyReports writes PolicyReports(format) as a YAML stream, for kubectl apply -f.
func (r *Report) WritePolicyReports(w io.Writer, format policyreport.Format) error {
	return policyreport.Write(w, r.PolicyReports(format))
}

// emptyPolicyReport is the report of a namespace ("" the cluster's) without its results.
func (r *Report) emptyPolicyReport(format policyreport.Format, namespace string, count NamespaceCount) policyreport.Report {
	rep := policyreport.New(format, PolicyReportName, namespace)
	rep.Metadata.Labels = map[string]string{ManagedByLabel: PolicyReportSource}
	rep.Metadata.Annotations = map[string]string{
		AnnotationPrefix + "source":   r.Source,
		AnnotationPrefix + "baseline": r.Baseline,
		AnnotationPrefix + "proposal": r.Proposal,
		AnnotationPrefix + "audited":  strconv.Itoa(count.Audited),
	}
	if !r.Complete {
		rep.Metadata.Annotations[AnnotationPrefix+"interrupted"] = "true"
	}
	if format == policyreport.OpenReports {
		rep.Source = PolicyReportSource
	}
	rep.Summary = count.Results
	return rep
}

// policyResult writes one result of write f; changes say what the proposal does to each step.
func (r *Report) policyResult(f *Finding, res policyResult, changes map[Step]string) policyreport.Result {
	out := policyreport.Result{
		Source: PolicyReportSource, Policy: UnattributedPolicy, Category: "admission chain",
		Severity: res.severity, Result: res.status, Scored: res.status != policyreport.StatusWarn,
		Timestamp: policyreport.Timestamp{Seconds: r.Time.Unix(), Nanos: int32(r.Time.Nanosecond())},
		Resources: []corev1.ObjectReference{{APIVersion: f.APIVersion, Kind: f.Kind, Namespace: f.Namespace, Name: f.Name, UID: f.UID}},
		Message:   strings.Join(res.messages, "\n"),
		Properties: map[string]string{
			"operation": f.Operation,
			"input":     f.Source,
		},
	}
	if res.step != nil {
		out.Policy, out.Rule, out.Category = res.step.reportPolicy()
		if what := changes[*res.step]; what != "" {
			out.Properties["change"] = what
		}
	} else {
		steps := "none known"
		if len(res.candidates) > 0 {
			steps = stepNames(res.candidates, "; ")
		}
		out.Properties["steps"] = steps
	}
	for k, v := range map[string]string{"subresource": f.SubResource, "origin": f.Origin} {
		if v != "" {
			out.Properties[k] = v
		}
	}
	for k, v := range res.properties {
		out.Properties[k] = v
	}
	return out
}
