package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func finding(rule, configuration, webhook, field string) Finding {
	return Finding{Rule: rule, Name: "rule-" + rule, Severity: severityWarning, Kind: "ValidatingWebhookConfiguration",
		Configuration: configuration, Webhook: webhook, Field: field, Message: "msg"}
}

func TestJudge(t *testing.T) {
	hooksA := finding("B07", "hooks", "a.example.com", "webhooks[0].clientConfig.service")
	hooksB := finding("B07", "hooks", "b.example.com", "webhooks[1].clientConfig.service")
	timeoutA := finding("D01", "hooks", "a.example.com", "webhooks[0].timeoutSeconds")
	configWide := Judgment{Rule: "B07", Configuration: "hooks", Verdict: Noise, Reason: "config"}
	webhookA := Judgment{Rule: "B07", Configuration: "hooks", Webhook: "a.example.com", Verdict: Real, Reason: "webhook a"}
	webhookAField := Judgment{Rule: "B07", Configuration: "hooks", Webhook: "a.example.com", Field: "webhooks[0].clientConfig.service", Verdict: Minor, Reason: "webhook a, field"}
	fieldOnly := Judgment{Rule: "B07", Configuration: "hooks", Field: "webhooks[1].clientConfig.service", Verdict: FalsePositive, Reason: "field"}
	webhookB := Judgment{Rule: "B07", Configuration: "hooks", Webhook: "b.example.com", Verdict: Real, Reason: "webhook b"}

	type verdict struct {
		Webhook, Rule string
		Verdict       Verdict
		Reason        string
	}
	tests := []struct {
		name      string
		judgments []Judgment
		findings  []Finding
		want      []verdict
		wantStale []Judgment
	}{{
		name:     "no judgments: everything unjudged",
		findings: []Finding{hooksA},
		want:     []verdict{{"a.example.com", "B07", Unjudged, ""}},
	}, {
		name:      "an entry without webhook covers every webhook of the configuration",
		judgments: []Judgment{configWide},
		findings:  []Finding{hooksA, hooksB, timeoutA},
		want: []verdict{
			{"a.example.com", "B07", Noise, "config"},
			{"b.example.com", "B07", Noise, "config"},
			{"a.example.com", "D01", Unjudged, ""},
		},
	}, {
		name:      "the webhook's entry beats the configuration's, whatever the order",
		judgments: []Judgment{webhookA, configWide},
		findings:  []Finding{hooksA, hooksB},
		want: []verdict{
			{"a.example.com", "B07", Real, "webhook a"},
			{"b.example.com", "B07", Noise, "config"},
		},
	}, {
		name:      "webhook and field beat webhook alone",
		judgments: []Judgment{configWide, webhookA, webhookAField},
		findings:  []Finding{hooksA},
		want:      []verdict{{"a.example.com", "B07", Minor, "webhook a, field"}},
	}, {
		name:      "webhook alone beats field alone",
		judgments: []Judgment{fieldOnly, webhookB},
		findings:  []Finding{hooksB},
		want:      []verdict{{"b.example.com", "B07", Real, "webhook b"}},
	}, {
		name:      "a field entry matches only that field",
		judgments: []Judgment{fieldOnly},
		findings:  []Finding{hooksA, hooksB},
		want: []verdict{
			{"a.example.com", "B07", Unjudged, ""},
			{"b.example.com", "B07", FalsePositive, "field"},
		},
	}, {
		name: "entries matching no finding are stale; shadowed ones that match are not",
		judgments: []Judgment{
			configWide, webhookA,
			{Rule: "B08", Configuration: "hooks", Verdict: Noise, Reason: "other rule"},
			{Rule: "B07", Configuration: "other", Verdict: Noise, Reason: "other configuration"},
			{Rule: "B07", Configuration: "hooks", Webhook: "gone.example.com", Verdict: Noise, Reason: "gone webhook"},
			{Rule: "B07", Configuration: "hooks", Field: "webhooks[9]", Verdict: Noise, Reason: "gone field"},
		},
		findings: []Finding{hooksA},
		want:     []verdict{{"a.example.com", "B07", Real, "webhook a"}},
		wantStale: []Judgment{
			{Rule: "B08", Configuration: "hooks", Verdict: Noise, Reason: "other rule"},
			{Rule: "B07", Configuration: "other", Verdict: Noise, Reason: "other configuration"},
			{Rule: "B07", Configuration: "hooks", Webhook: "gone.example.com", Verdict: Noise, Reason: "gone webhook"},
			{Rule: "B07", Configuration: "hooks", Field: "webhooks[9]", Verdict: Noise, Reason: "gone field"},
		},
	}, {
		name: "a verdict kept for a finding a change removed judges nothing and is not stale, unless the finding is back",
		judgments: []Judgment{
			{Rule: "B07", Configuration: "hooks", Webhook: "gone.example.com", Verdict: FalsePositive, Reason: "removed", GoneAfter: "#38"},
			{Rule: "B07", Configuration: "hooks", Webhook: "a.example.com", Verdict: FalsePositive, Reason: "still here", GoneAfter: "#38"},
		},
		findings: []Finding{hooksA},
		want:     []verdict{{"a.example.com", "B07", Unjudged, ""}},
		wantStale: []Judgment{
			{Rule: "B07", Configuration: "hooks", Webhook: "a.example.com", Verdict: FalsePositive, Reason: "still here", GoneAfter: "#38"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			judged, stale := judge(tt.judgments, tt.findings)
			var got []verdict
			for _, f := range judged {
				got = append(got, verdict{f.Webhook, f.Rule, f.Verdict, f.Reason})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStale, stale); diff != "" {
				t.Errorf("stale judgments (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseJudgments(t *testing.T) {
	projects := []Project{{Name: "alpha"}, {Name: "beta"}, {Name: "delta", Unseen: "#29"}}
	tests := []struct {
		name    string
		yaml    string
		want    map[string][]Judgment
		wantErr string
	}{{
		name: "a verdict given after the change, on an unseen project",
		yaml: "judgments:\n  delta:\n  - {rule: N01, configuration: hooks, verdict: real, reason: r, afterChange: true}\n",
		want: map[string][]Judgment{"delta": {{Rule: "N01", Configuration: "hooks", Verdict: Real, Reason: "r", AfterChange: true}}},
	}, {
		name:    "afterChange on a project the rules were tuned on",
		yaml:    "judgments:\n  alpha:\n  - {rule: N01, configuration: hooks, verdict: real, reason: r, afterChange: true}\n",
		wantErr: "alpha[0]: afterChange is for the projects of the corpus marked unseen",
	}, {
		name: "empty lists",
		yaml: "judgments:\n  alpha: []\n  beta: []\n",
		want: map[string][]Judgment{"alpha": {}, "beta": {}},
	}, {
		name: "an entry",
		yaml: "judgments:\n  alpha:\n  - {rule: B07, configuration: hooks, webhook: a.example.com, verdict: noise, reason: two replicas in practice}\n",
		want: map[string][]Judgment{"alpha": {{Rule: "B07", Configuration: "hooks", Webhook: "a.example.com", Verdict: Noise, Reason: "two replicas in practice"}}},
	}, {
		name:    "a project not in the corpus",
		yaml:    "judgments:\n  gamma: []\n",
		wantErr: `project "gamma" is not in the corpus`,
	}, {
		name:    "an unknown verdict",
		yaml:    "judgments:\n  alpha:\n  - {rule: B07, configuration: hooks, verdict: bad, reason: r}\n",
		wantErr: `alpha[0]: verdict "bad"`,
	}, {
		name:    "a verdict left TODO",
		yaml:    "judgments:\n  alpha:\n  - {rule: B07, configuration: hooks, verdict: TODO, reason: r}\n",
		wantErr: `verdict "TODO"`,
	}, {
		name:    "a reason left TODO",
		yaml:    "judgments:\n  alpha:\n  - {rule: B07, configuration: hooks, verdict: real, reason: TODO}\n",
		wantErr: `reason "TODO"`,
	}, {
		name:    "a reason on two lines",
		yaml:    "judgments:\n  alpha:\n  - rule: B07\n    configuration: hooks\n    verdict: real\n    reason: |\n      one\n      two\n",
		wantErr: "give one line",
	}, {
		name:    "no configuration",
		yaml:    "judgments:\n  alpha:\n  - {rule: B07, verdict: real, reason: r}\n",
		wantErr: "rule and configuration are required",
	}, {
		name:    "two entries for the same findings",
		yaml:    "judgments:\n  beta:\n  - {rule: B07, configuration: hooks, verdict: real, reason: r}\n  - {rule: B07, configuration: hooks, verdict: noise, reason: s}\n",
		wantErr: `beta[1]: a second judgment of B07 in "hooks"`,
	}, {
		name:    "a misspelt key",
		yaml:    "judgments:\n  alpha:\n  - {rule: B07, configuration: hooks, webhok: a, verdict: real, reason: r}\n",
		wantErr: "webhok",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseJudgments([]byte(tt.yaml), projects)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("judgments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnjudgedRoundTrip checks that what --print-unjudged prints, once its TODOs are filled
// in, is a judgments file that judges exactly the findings it was printed for.
func TestUnjudgedRoundTrip(t *testing.T) {
	mutating := finding("B07", "true", "a.example.com", "webhooks[0].clientConfig.service")
	mutating.Kind = "MutatingWebhookConfiguration"
	findings := []Finding{
		mutating,
		finding("B07", "true", "a.example.com", "webhooks[0].clientConfig.service"), // same entry
		finding("D01", "00-hooks", "b.example.com: odd", "webhooks[1].timeoutSeconds"),
		finding("A01", "hooks", "", "metadata.name"),
		{Rule: "C02", Severity: severityInfo, Configuration: "hooks", Webhook: "c.example.com"}, // info: not printed
	}
	projects := []Project{{Name: "alpha"}, {Name: "beta"}}
	judged, _ := judge(nil, findings)
	results := []projectResult{{Project: projects[0], Findings: judged}, {Project: projects[1]}}

	var out strings.Builder
	if err := writeUnjudged(&out, results); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "- rule:"); got != 3 {
		t.Errorf("%d entries, want 3:\n%s", got, out.String())
	}
	filled := strings.NewReplacer("verdict: TODO", "verdict: noise", "reason: TODO", "reason: checked").Replace(out.String())
	parsed, err := parseJudgments([]byte(filled), projects)
	if err != nil {
		t.Fatalf("parsing the printed entries: %v\n%s", err, filled)
	}
	rejudged, stale := judge(parsed["alpha"], findings)
	if len(stale) > 0 {
		t.Errorf("stale: %v", stale)
	}
	for _, f := range rejudged {
		want := Noise
		if !f.counts() {
			want = Unjudged
		}
		if f.Verdict != want {
			t.Errorf("%s %s %q: verdict %s, want %s", f.Severity, f.Rule, f.Configuration, f.Verdict, want)
		}
	}
}

func TestYAMLScalar(t *testing.T) {
	tests := map[string]string{
		"B07":                              "B07",
		"webhooks[0].clientConfig.service": "webhooks[0].clientConfig.service",
		"true":                             `"true"`,
		"No":                               `"No"`,
		"00-hooks":                         `"00-hooks"`,
		"a: b":                             `"a: b"`,
		"":                                 `""`,
	}
	for in, want := range tests {
		if got := yamlScalar(in); got != want {
			t.Errorf("yamlScalar(%q) = %s, want %s", in, got, want)
		}
	}
}
