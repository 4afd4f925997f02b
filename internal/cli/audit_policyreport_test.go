package cli

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/audit/policyreport"
)

// readPolicyReports reads -o policyreport's or -o openreports' YAML stream, strictly: a field
// the report types do not have fails.
func readPolicyReports(t *testing.T, stream string) []policyreport.Report {
	t.Helper()
	var reports []policyreport.Report
	for _, doc := range strings.Split(stream, "---\n") {
		var r policyreport.Report
		if err := yaml.UnmarshalStrict([]byte(doc), &r); err != nil {
			t.Fatalf("a report of the stream: %v\n%s", err, doc)
		}
		reports = append(reports, r)
	}
	return reports
}

// reportLine is a report of the stream as the tests compare it: where it is, its summary, its
// results' verdicts, what it leaves out.
type reportLine struct {
	APIVersion, Kind, Namespace string
	Summary                     policyreport.Summary
	Results                     []string
	Omitted                     string
}

func reportLines(reports []policyreport.Report) []reportLine {
	var out []reportLine
	for _, r := range reports {
		line := reportLine{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Metadata.Namespace, Summary: r.Summary,
			Omitted: r.Metadata.Annotations["audit.admit.dev/omitted-results"]}
		for _, res := range r.Results {
			line.Results = append(line.Results, string(res.Result)+" "+res.Policy+" "+res.Resources[0].Kind+" "+res.Resources[0].Name)
		}
		out = append(out, line)
	}
	return out
}

// -o policyreport and -o openreports write the audit as a report per namespace and the
// cluster's, exit as the thresholds say, and write the same bytes for the same input but for
// the run's moment.
func TestAuditPolicyReports(t *testing.T) {
	f := newAuditFixture(t)
	for output, format := range map[string]policyreport.Format{"policyreport": policyreport.WGPolicy, "openreports": policyreport.OpenReports} {
		t.Run(output, func(t *testing.T) {
			args := []string{"-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "-o", output}
			stdout, stderr, code := runAudit(t, context.Background(), args...)
			if code != ExitRejected || !strings.Contains(stderr, "2 newly denied writes (more than 0)") {
				t.Fatalf("exit %d, want %d (new denials)\nstderr: %s", code, ExitRejected, stderr)
			}
			ns := func(kind, namespace string, summary policyreport.Summary, results ...string) reportLine {
				return reportLine{APIVersion: string(format), Kind: kind, Namespace: namespace, Summary: summary, Results: results}
			}
			want := []reportLine{
				ns(format.Kind(true), "", policyreport.Summary{}),
				ns(format.Kind(false), "ops", policyreport.Summary{Error: 1}, "error flaky Deployment small"),
				ns(format.Kind(false), "shop", policyreport.Summary{Fail: 2, Warn: 1, Pass: 1},
					"fail team-pods Pod web-1", "fail replica-cap Deployment big", "warn ports Service web", "pass owner ConfigMap settings"),
			}
			if diff := cmp.Diff(want, reportLines(readPolicyReports(t, stdout))); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
			again, _, _ := runAudit(t, context.Background(), args...)
			moment := regexp.MustCompile(`(?m)^(\s+seconds:) [0-9]+$`)
			if a, b := moment.ReplaceAllString(stdout, "$1 N"), moment.ReplaceAllString(again, "$1 N"); a != b {
				t.Errorf("two runs differ:\n%s", cmp.Diff(a, b))
			}
		})
	}
}

// What --limit leaves out of the list is counted in the summaries, and each report says how many
// of its results it leaves out.
func TestAuditPolicyReportsBounded(t *testing.T) {
	f := newAuditFixture(t)
	stdout, stderr, code := runAudit(t, context.Background(), "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "-o", "policyreport", "--limit", "2")
	if code != ExitRejected {
		t.Fatalf("exit %d, want %d\nstderr: %s", code, ExitRejected, stderr)
	}
	want := []reportLine{
		{APIVersion: string(policyreport.WGPolicy), Kind: "ClusterPolicyReport"},
		{APIVersion: string(policyreport.WGPolicy), Kind: "PolicyReport", Namespace: "ops", Summary: policyreport.Summary{Error: 1}, Omitted: "1"},
		{APIVersion: string(policyreport.WGPolicy), Kind: "PolicyReport", Namespace: "shop", Summary: policyreport.Summary{Fail: 2, Warn: 1, Pass: 1},
			Results: []string{"fail team-pods Pod web-1", "fail replica-cap Deployment big"}, Omitted: "2"},
	}
	if diff := cmp.Diff(want, reportLines(readPolicyReports(t, stdout))); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

// docs/audit.md's Policy Reports section shows what the command it shows writes.
func TestAuditPolicyReportsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/audit.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "$ admit audit -f examples/audit/dump.yaml --baseline examples/audit/current --webhooks examples/audit/deny.yaml -o policyreport\n") {
		t.Error("docs/audit.md shows no -o policyreport example (TestDocs runs it)")
	}
}
