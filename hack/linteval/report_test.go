package main

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrecision(t *testing.T) {
	tests := []struct {
		name     string
		t        tally
		want     float64
		wantOK   bool
		wantText string
	}{
		{name: "nothing judged", t: tally{Unjudged: 4}, wantText: "–"},
		{name: "empty", t: tally{}, wantText: "–"},
		{name: "all real", t: tally{Real: 3}, want: 1, wantOK: true, wantText: "100% (3/3)"},
		{name: "minor counts as worth acting on", t: tally{Real: 1, Minor: 1, Noise: 1, FalsePositive: 1}, want: 0.5, wantOK: true, wantText: "50% (2/4)"},
		{name: "unjudged findings are left out", t: tally{Real: 1, Noise: 2, Unjudged: 7}, want: 1.0 / 3, wantOK: true, wantText: "33% (1/3)"},
		{name: "only noise and false positives", t: tally{Noise: 2, FalsePositive: 1}, want: 0, wantOK: true, wantText: "0% (0/3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.t.precision()
			if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("precision() = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
			if text := tt.t.precisionText(); text != tt.wantText {
				t.Errorf("precisionText() = %q, want %q", text, tt.wantText)
			}
		})
	}
}

func TestTallies(t *testing.T) {
	judged := func(rule, severity string, v Verdict) judgedFinding {
		return judgedFinding{Finding: Finding{Rule: rule, Name: "n" + rule, Severity: severity}, Verdict: v}
	}
	results := []projectResult{{Findings: []judgedFinding{
		judged("B07", severityWarning, Real),
		judged("B07", severityError, Noise),
		judged("B07", severityInfo, FalsePositive), // info: not counted
		judged("D01", severityWarning, Unjudged),
	}}, {Findings: []judgedFinding{
		judged("D01", severityWarning, Minor),
		judged("C02", severityInfo, Unjudged),
	}}}
	all, byRule := tallies(results)
	if diff := cmp.Diff(tally{Real: 1, Minor: 1, Noise: 1, Unjudged: 1}, all); diff != "" {
		t.Errorf("all (-want +got):\n%s", diff)
	}
	want := map[string]*tally{"B07 nB07": {Real: 1, Noise: 1}, "D01 nD01": {Minor: 1, Unjudged: 1}}
	if diff := cmp.Diff(want, byRule); diff != "" {
		t.Errorf("by rule (-want +got):\n%s", diff)
	}
}

// TestCorpusSets measures the unseen projects apart from those the rules were tuned on, and
// splits their verdicts by when they were given; tuned projects come first whatever the order.
func TestCorpusSets(t *testing.T) {
	judged := func(severity string, v Verdict, after bool) judgedFinding {
		return judgedFinding{Finding: Finding{Rule: "B07", Severity: severity}, Verdict: v, AfterChange: after}
	}
	results := []projectResult{
		{Project: Project{Name: "new1", Unseen: "#29"}, Findings: []judgedFinding{
			judged(severityError, Real, false), judged(severityWarning, Noise, false), judged(severityWarning, Minor, true),
			judged(severityInfo, FalsePositive, false), // info: not counted
		}},
		{Project: Project{Name: "old"}, Findings: []judgedFinding{judged(severityWarning, Minor, false)}},
		{Project: Project{Name: "new2", Unseen: "#29"}, Err: errString("not evaluated")},
		{Project: Project{Name: "later", Unseen: "#40"}, Findings: []judgedFinding{judged(severityWarning, Unjudged, false)}},
	}
	want := []corpusSet{
		{Projects: 1, All: tally{Minor: 1}},
		{Unseen: "#29", Projects: 2, All: tally{Real: 1, Minor: 1, Noise: 1}, Before: tally{Real: 1, Noise: 1}, After: tally{Minor: 1}},
		{Unseen: "#40", Projects: 1, All: tally{Unjudged: 1}, Before: tally{Unjudged: 1}},
	}
	if diff := cmp.Diff(want, corpusSets(results)); diff != "" {
		t.Errorf("corpusSets (-want +got):\n%s", diff)
	}
}

func TestFirstSentence(t *testing.T) {
	long := strings.Repeat("x", maxMessage)
	tests := map[string]string{
		"short. Not cut.":                "short. Not cut.",
		long + ". Second sentence.":      long + ".",
		long + " without a sentence end": long + " without a sentence end",
		"v1.2 is " + long + ". Then":     "v1.2 is " + long + ".",
	}
	for in, want := range tests {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteReport(t *testing.T) {
	p := Project{Name: "proj", What: "a | manifest", Repo: "o/r", Commit: strings.Repeat("a", 40), Paths: []string{"cli/install.golden"}}
	findings := []judgedFinding{
		{Finding: Finding{Rule: "D01", Name: "long-timeout", Severity: severityWarning, Kind: "MutatingWebhookConfiguration",
			Configuration: "hooks", Webhook: "a.example.com", Field: "webhooks[0].timeoutSeconds",
			File: "cli/install.golden.yaml", Line: 7, Message: "timeoutSeconds is 30"}, Verdict: Unjudged},
		{Finding: Finding{Rule: "B07", Name: "single-replica", Severity: severityError, Kind: "ValidatingWebhookConfiguration",
			Configuration: "hooks", Webhook: "a.example.com", Message: "one replica"}, Verdict: Real, Reason: "it breaks"},
	}
	sortFindings(findings)
	results := []projectResult{
		{Project: p, Findings: findings, Renamed: map[string]string{"cli/install.golden.yaml": "cli/install.golden"},
			Notes: []string{"skipped x in /machine/cache/y"}},
		{Project: Project{Name: "broken", What: "w", Repo: "o/b", Commit: strings.Repeat("b", 40), Paths: []string{"deploy"}}, Err: errString("blob absent from /machine/mirrors/o+b/repo")},
		{Project: Project{Name: "fresh", What: "f", Repo: "o/f", Commit: strings.Repeat("f", 40), Paths: []string{"deploy"}, Unseen: "#29"},
			Findings: []judgedFinding{
				{Finding: Finding{Rule: "B12", Name: "fail-closed-control-plane-writes", Severity: severityError, Kind: "ValidatingWebhookConfiguration",
					Configuration: "nodes", Message: "blocks taints"}, Verdict: Real, Reason: "dead nodes keep their pods", AfterChange: true},
				{Finding: Finding{Rule: "B07", Name: "single-replica", Severity: severityWarning, Kind: "ValidatingWebhookConfiguration",
					Configuration: "nodes", Message: "one replica"}, Verdict: Noise, Reason: "a singleton"},
			}},
	}
	var b strings.Builder
	scrub := strings.NewReplacer("/machine/cache", "<cache>", "/machine/mirrors", "<mirrors>")
	if err := writeReport(&b, results, reportOptions{Scrub: scrub}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"<!-- generated by go run ./hack/linteval; do not edit -->\n",
		"| [proj](https://github.com/o/r/tree/" + p.Commit + "/cli/install.golden) | a \\| manifest | 1 | 1 | 0 |\n",
		"| [broken](https://github.com/o/b/tree/" + strings.Repeat("b", 40) + "/deploy) | w | failed | failed | failed |\n",
		"| B07 single-replica | 2 | 1 | 0 | 1 | 0 | 0 | 50% (1/2) |\n",
		"| D01 long-timeout | 1 | 0 | 0 | 0 | 0 | 1 | – |\n",
		"| **All** | 4 | 2 | 0 | 1 | 0 | 1 | 67% (2/3) |\n",
		"| error | B07 single-replica | `hooks` (validating) › `a.example.com` | one replica | real | it breaks |\n" +
			"| warning | D01 long-timeout | `hooks` (mutating) › `a.example.com` › `webhooks[0].timeoutSeconds` " +
			"([cli/install.golden:7](https://github.com/o/r/blob/" + p.Commit + "/cli/install.golden#L7)) | timeoutSeconds is 30 | unjudged |  |\n",
		"- Note: skipped x in &lt;cache&gt;/y\n",
		"| [fresh](https://github.com/o/f/tree/" + strings.Repeat("f", 40) + "/deploy) *(unseen, #29)* | f | 1 | 1 | 0 |\n",
		"| tuned on | 2 | 2 | 1 | 0 | 0 | 0 | 1 | 100% (1/1) |\n",
		"| unseen for #29 | 1 | 2 | 1 | 0 | 1 | 0 | 0 | 50% (1/2) |\n",
		"| › verdicts given before the change |  | 1 | 0 | 0 | 1 | 0 | 0 | 0% (0/1) |\n",
		"| › findings the change made, judged after it |  | 1 | 1 | 0 | 0 | 0 | 0 | 100% (1/1) |\n",
		"Unseen for #29: judged before any rule changed for it.\n",
		"| real (after the change) | dead nodes keep their pods |\n",
		"**Not evaluated**: blob absent from &lt;mirrors&gt;/o+b/repo\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestWhereLinksFiles links a finding to its file and line in the repository, and a finding in
// a kustomize build, whose output the repository does not hold, to the kustomization.
func TestWhereLinksFiles(t *testing.T) {
	r := projectResult{Project: Project{Repo: "example/widgets", Commit: strings.Repeat("a", 40)}, Renamed: map[string]string{"out.golden.yaml": "out.golden"}}
	base := Finding{Configuration: "widgets", Kind: "ValidatingWebhookConfiguration", Webhook: "w.example.com", Line: 12}
	tests := []struct{ file, want string }{
		{"deploy/webhooks.yaml", "`widgets` (validating) › `w.example.com` ([deploy/webhooks.yaml:12](https://github.com/example/widgets/blob/" + strings.Repeat("a", 40) + "/deploy/webhooks.yaml#L12))"},
		{"out.golden.yaml", "`widgets` (validating) › `w.example.com` ([out.golden:12](https://github.com/example/widgets/blob/" + strings.Repeat("a", 40) + "/out.golden#L12))"},
		{"config/default/" + kustomizeOutput, "`widgets` (validating) › `w.example.com` ([kustomize build config/default, line 12](https://github.com/example/widgets/tree/" + strings.Repeat("a", 40) + "/config/default))"},
	}
	for _, tt := range tests {
		f := base
		f.File = tt.file
		if diff := cmp.Diff(tt.want, where(r, judgedFinding{Finding: f})); diff != "" {
			t.Errorf("where(%s) (-want +got):\n%s", tt.file, diff)
		}
	}
}
