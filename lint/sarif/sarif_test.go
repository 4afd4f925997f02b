package sarif

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/lint"
)

func lintFixture(t *testing.T, path string, opts lint.Options) []lint.Finding {
	t.Helper()
	set, err := config.Load(config.Options{}, path)
	if err != nil {
		t.Fatal(err)
	}
	opts.Now = func() time.Time { return time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC) }
	findings, err := lint.Run(set, opts)
	if err != nil {
		t.Fatal(err)
	}
	return findings
}

// requireFields checks a decoded SARIF log against what the SARIF 2.1.0 schema requires of
// the objects written here (version, runs, tool.driver.name, result.message.text, known
// levels and suppression kinds, startLine >= 1, rules referenced by id and index).
func requireFields(log map[string]any) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if log["version"] != "2.1.0" {
		fail("version = %v, want 2.1.0", log["version"])
	}
	runs, ok := log["runs"].([]any)
	if !ok || len(runs) != 1 {
		return append(problems, fmt.Sprintf("runs = %v, want one run", log["runs"]))
	}
	run := runs[0].(map[string]any)
	driver, _ := run["tool"].(map[string]any)["driver"].(map[string]any)
	if name, _ := driver["name"].(string); name == "" {
		fail("tool.driver.name is missing")
	}
	var ruleIDs []string
	rules, _ := driver["rules"].([]any)
	for i, r := range rules {
		rule := r.(map[string]any)
		id, _ := rule["id"].(string)
		if id == "" {
			fail("rules[%d].id is missing", i)
		}
		ruleIDs = append(ruleIDs, id)
		level := rule["defaultConfiguration"].(map[string]any)["level"]
		if !slices.Contains([]any{"none", "note", "warning", "error"}, level) {
			fail("rules[%d].defaultConfiguration.level = %v", i, level)
		}
	}
	results, ok := run["results"].([]any)
	if !ok {
		return append(problems, "run.results is missing")
	}
	for i, x := range results {
		res := x.(map[string]any)
		if text, _ := res["message"].(map[string]any)["text"].(string); text == "" {
			fail("results[%d].message.text is missing", i)
		}
		if !slices.Contains([]any{"none", "note", "warning", "error"}, res["level"]) {
			fail("results[%d].level = %v", i, res["level"])
		}
		index, _ := res["ruleIndex"].(float64)
		if int(index) >= len(ruleIDs) || ruleIDs[int(index)] != res["ruleId"] {
			fail("results[%d]: ruleIndex %v does not point at ruleId %v", i, res["ruleIndex"], res["ruleId"])
		}
		locations, _ := res["locations"].([]any)
		for _, l := range locations {
			physical, ok := l.(map[string]any)["physicalLocation"].(map[string]any)
			if !ok {
				continue
			}
			if uri, _ := physical["artifactLocation"].(map[string]any)["uri"].(string); uri == "" {
				fail("results[%d]: artifactLocation.uri is missing", i)
			}
			if line, _ := physical["region"].(map[string]any)["startLine"].(float64); line < 1 {
				fail("results[%d]: region.startLine = %v", i, line)
			}
		}
		suppressions, _ := res["suppressions"].([]any)
		for _, s := range suppressions {
			if kind := s.(map[string]any)["kind"]; kind != "inSource" && kind != "external" {
				fail("results[%d]: suppression kind %v", i, kind)
			}
		}
	}
	return problems
}

func TestFromFindingsRequiredFields(t *testing.T) {
	findings := lintFixture(t, "../testdata/realistic/sidecar-injector", lint.Options{Disable: []string{"D01"}})
	log, err := FromFindings(Driver{Name: "admit lint", Version: "test"}, lint.Rules(), findings)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	if problems := requireFields(decoded); len(problems) > 0 {
		t.Errorf("invalid SARIF:\n%s\n%s", data, problems)
	}
	results := decoded["runs"].([]any)[0].(map[string]any)["results"].([]any)
	if len(results) != len(findings) {
		t.Fatalf("%d results for %d findings", len(results), len(findings))
	}
	var kinds []string
	for _, r := range results {
		suppressions, _ := r.(map[string]any)["suppressions"].([]any)
		for _, s := range suppressions {
			kinds = append(kinds, s.(map[string]any)["kind"].(string))
		}
	}
	slices.Sort(kinds)
	kinds = slices.Compact(kinds)
	if diff := cmp.Diff([]string{"external", "inSource"}, kinds); diff != "" {
		t.Errorf("suppression kinds (-want +got):\n%s", diff)
	}
}

func TestFromFindingsEmpty(t *testing.T) {
	log, err := FromFindings(Driver{Name: "admit lint"}, lint.Rules(), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	if problems := requireFields(decoded); len(problems) > 0 {
		t.Errorf("invalid SARIF: %s", problems)
	}
}

func TestFromFindingsResult(t *testing.T) {
	finding := lint.Finding{
		Rule: "C03", Name: "match-policy-exact", Severity: lint.Warning,
		Kind: "ValidatingWebhookConfiguration", Configuration: "example", Webhook: "hpa.example.com",
		Field: "webhooks[0].matchPolicy", File: "/deploy/hooks.yaml", Line: 7,
		Message: "is Exact", Hint: "remove it", Suppressed: lint.SuppressedByAnnotation,
	}
	rules := []lint.Rule{{ID: "C01", Name: "a", Severity: lint.Warning}, {ID: "C03", Name: "match-policy-exact", Severity: lint.Warning, Summary: "s", Help: "h"}}
	log, err := FromFindings(Driver{Name: "admit lint"}, rules, []lint.Finding{finding})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{
		RuleID: "C03", RuleIndex: 1, Level: "warning",
		Message: Message{Text: `ValidatingWebhookConfiguration "example", webhook "hpa.example.com", webhooks[0].matchPolicy: is Exact. Fix: remove it`},
		Locations: []Location{{
			PhysicalLocation: &PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: "file:///deploy/hooks.yaml"}, Region: &Region{StartLine: 7}},
			LogicalLocations: []LogicalLocation{{Name: "example", FullyQualifiedName: "ValidatingWebhookConfiguration/example/webhooks[0].matchPolicy", Kind: "resource"}},
		}},
		Suppressions: []Suppression{{Kind: "inSource", Justification: "annotation admit.dev/lint-disable"}},
	}
	if diff := cmp.Diff(want, log.Runs[0].Results[0]); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if _, err := FromFindings(Driver{Name: "admit lint"}, rules[:1], []lint.Finding{finding}); err == nil {
		t.Error("a finding of a rule missing from the catalogue: want an error")
	}
}

func TestLevel(t *testing.T) {
	got := []string{Level(lint.Info), Level(lint.Warning), Level(lint.Error)}
	if diff := cmp.Diff([]string{"note", "warning", "error"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
