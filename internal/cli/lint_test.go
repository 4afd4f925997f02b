package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/lint"
)

// runLint runs `admit lint args...` with stdin and returns the exit code and outputs. Until the
// root command registers lint, it is added here and run as Run would.
func runLint(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut}
	args = append([]string{"lint"}, args...)
	root := NewRootCommand(streams)
	if found, _, err := root.Find(args); err == nil && found.Name() == "lint" {
		return Run(context.Background(), args, streams), out.String(), errOut.String()
	}
	root.AddCommand(newLintCommand(streams))
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	var ee *exitError
	switch {
	case err == nil:
		code = ExitOK
	case errors.As(err, &ee):
		code = ee.code
		if ee.err.Error() != "" {
			errOut.WriteString("admit: " + ee.err.Error() + "\n")
		}
	default:
		code = ExitBadInput
		errOut.WriteString("admit: " + err.Error() + "\n")
	}
	return code, out.String(), errOut.String()
}

func fixture(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "lint", "testdata"}, parts...)...)
}

// slowWebhook is a configuration whose only problem at warning level is its 30 s timeout (D01).
const slowWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: slow
%s
webhooks:
- name: pods.slow.example.com
  clientConfig:
    url: https://slow.example.com/validate
  rules:
  - {apiGroups: [""], apiVersions: [v1], resources: [configmaps], operations: [CREATE]}
  failurePolicy: Ignore
  timeoutSeconds: 30
  sideEffects: None
  admissionReviewVersions: [v1]
`

func slowWebhookYAML(annotations string) string {
	return strings.Replace(slowWebhook, "%s\n", annotations, 1)
}

func TestLintExitCodes(t *testing.T) {
	tests := []struct {
		name       string
		stdin      string
		args       []string
		want       int
		wantStdout []string
		wantStderr string
	}{
		{name: "findings at the default threshold", args: []string{fixture("realistic", "cert-manager")}, want: ExitRejected,
			wantStdout: []string{`MutatingWebhookConfiguration "cert-manager-webhook"`, "warning B07 single-replica", "2 warnings (4 below warning)"}},
		{name: "nothing at or above error", args: []string{"--severity", "error", fixture("realistic", "cert-manager")}, want: ExitOK,
			wantStdout: []string{"no findings (6 below error)"}},
		{name: "info shows everything", args: []string{"--severity", "info", fixture("realistic", "cert-manager")}, want: ExitRejected,
			wantStdout: []string{"info    C02 broad-without-match-conditions", "info    D01 long-timeout", "2 warnings, 4 infos"}},
		{name: "rules disabled by flag, by ID and name", args: []string{"--disable", "B07,no-disruption-budget", "--disable", "D01", "--disable", "wildcard-rule", fixture("realistic", "cert-manager")},
			want: ExitOK, wantStdout: []string{"no findings (5 suppressed, 1 below warning)"}},
		{name: "standard input", stdin: slowWebhookYAML(""), args: []string{"-"}, want: ExitRejected,
			wantStdout: []string{`ValidatingWebhookConfiguration "slow"  <stdin>:1`, "warning D01 long-timeout: webhooks[0].timeoutSeconds"}},
		{name: "rule disabled by annotation", stdin: slowWebhookYAML("  annotations: {admit.dev/lint-disable: long-timeout}\n"), args: []string{"-"}, want: ExitOK,
			wantStdout: []string{"no findings (1 suppressed)"}},
		{name: "clean", stdin: strings.Replace(slowWebhookYAML(""), "timeoutSeconds: 30", "timeoutSeconds: 2", 1), args: []string{"-"}, want: ExitOK,
			wantStdout: []string{"no findings"}},
		{name: "list rules", args: []string{"--list-rules"}, want: ExitOK,
			wantStdout: []string{"ID   NAME", "B04  dependency-cycle", "E05  empty-ca-bundle"}},

		{name: "no input", want: ExitBadInput, wantStderr: "nothing to lint"},
		{name: "missing file", args: []string{"no-such-file.yaml"}, want: ExitBadInput, wantStderr: "no-such-file.yaml"},
		{name: "files and a cluster", args: []string{"--kubeconfig", "kubeconfig", "hooks.yaml"}, want: ExitBadInput, wantStderr: "not both"},
		{name: "unreadable kubeconfig", args: []string{"--kubeconfig", filepath.Join(t.TempDir(), "missing")}, want: ExitBadInput, wantStderr: "--kubeconfig"},
		{name: "unknown severity", args: []string{"--severity", "fatal", "-"}, want: ExitBadInput, wantStderr: `unknown severity "fatal"`},
		{name: "unknown output", args: []string{"-o", "xml", "-"}, want: ExitBadInput, wantStderr: `unknown output format "xml"`},
		{name: "unknown rule", args: []string{"--disable", "B99", fixture("realistic", "cert-manager")}, want: ExitBadInput, wantStderr: `unknown rules "B99"`},
		{name: "unknown rule in an annotation", stdin: slowWebhookYAML("  annotations: {admit.dev/lint-disable: D1}\n"), args: []string{"-"}, want: ExitBadInput,
			wantStderr: `<stdin>:1: ValidatingWebhookConfiguration "slow": annotation admit.dev/lint-disable: unknown rules "D1"`},
		{name: "misspelt field", stdin: strings.Replace(slowWebhookYAML(""), "failurePolicy", "failurPolicy", 1), args: []string{"-"}, want: ExitBadInput,
			wantStderr: `failurPolicy`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runLint(t, tc.stdin, tc.args...)
			if code != tc.want {
				t.Errorf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, stdout, stderr)
			}
			for _, want := range tc.wantStdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if tc.wantStderr != "" && !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, stderr)
			}
		})
	}
}

func TestLintJSON(t *testing.T) {
	code, stdout, stderr := runLint(t, "", "-o", "json", "--disable", "B08", fixture("realistic", "cert-manager"))
	if code != ExitRejected {
		t.Fatalf("exit code = %d, want 1; stderr: %s", code, stderr)
	}
	var report struct {
		Threshold string         `json:"threshold"`
		Findings  []lint.Finding `json:"findings"`
		Summary   map[string]int `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("decoding %s: %v", stdout, err)
	}
	var rules []string
	for _, f := range report.Findings {
		rules = append(rules, f.Rule+" "+f.Severity.String()+" "+f.Webhook+" "+f.Field)
	}
	want := []string{
		"B07 warning webhook.cert-manager.io webhooks[0].clientConfig.service",
	}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	wantSummary := map[string]int{"errors": 0, "warnings": 1, "infos": 0, "suppressed": 1, "belowThreshold": 4}
	if diff := cmp.Diff(wantSummary, report.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if report.Threshold != "warning" {
		t.Errorf("threshold = %q, want warning", report.Threshold)
	}
	first := report.Findings[0]
	if first.Kind != "MutatingWebhookConfiguration" || first.Configuration != "cert-manager-webhook" || first.Line == 0 ||
		first.Column == 0 || first.ConfigurationLine == 0 || first.Line <= first.ConfigurationLine ||
		!strings.HasSuffix(first.File, "webhook.yaml") || first.Message == "" || first.Hint == "" {
		t.Errorf("first finding lacks context: %+v", first)
	}
}

func TestLintJSONWithoutFindings(t *testing.T) {
	code, stdout, _ := runLint(t, "", "-o", "json", "--severity", "error", fixture("realistic", "cert-manager"))
	if code != ExitOK {
		t.Fatalf("exit code = %d, want 0", code)
	}
	if !strings.Contains(stdout, `"findings": []`) {
		t.Errorf("want an empty findings list, got:\n%s", stdout)
	}
}

func TestLintSARIF(t *testing.T) {
	// The policy engine's certificates are valid until 2045: the real clock does not matter.
	code, stdout, stderr := runLint(t, "", "-o", "sarif", "--disable", "C01", fixture("realistic", "policy-engine"))
	if code != ExitRejected {
		t.Fatalf("exit code = %d, want 1; stderr: %s", code, stderr)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID       string `json:"ruleId"`
				Level        string `json:"level"`
				Suppressions []struct {
					Kind string `json:"kind"`
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &log); err != nil {
		t.Fatalf("decoding %s: %v", stdout, err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "admit lint" || len(log.Runs[0].Tool.Driver.Rules) != len(lint.Rules()) {
		t.Fatalf("unexpected SARIF envelope: %s", stdout)
	}
	levels := map[string]int{}
	suppressed := 0
	for _, r := range log.Runs[0].Results {
		levels[r.Level]++
		if len(r.Suppressions) > 0 && r.Suppressions[0].Kind == "external" {
			suppressed++
		}
	}
	// As in the set's golden report: 1 error and 5 warnings, the two C01 among them kept as
	// suppressed results, the infos below the threshold left out.
	if diff := cmp.Diff(map[string]int{"error": 1, "warning": 5}, levels); diff != "" {
		t.Errorf("levels (-want +got):\n%s", diff)
	}
	if suppressed != 2 {
		t.Errorf("%d suppressed results, want 2", suppressed)
	}
}

func TestLintListRulesJSON(t *testing.T) {
	code, stdout, _ := runLint(t, "", "--list-rules", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit code = %d", code)
	}
	var rules []struct{ ID, Name, Severity, Summary string }
	if err := json.Unmarshal([]byte(stdout), &rules); err != nil {
		t.Fatal(err)
	}
	if len(rules) != len(lint.Rules()) || rules[0].ID != "A01" || rules[0].Severity != "error" || rules[0].Summary == "" {
		t.Errorf("rules = %+v", rules)
	}
}

func TestLintRecursive(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "nested")
	if err := os.Mkdir(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nested, "slow.yaml"), []byte(slowWebhookYAML("")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runLint(t, "", dir); code != ExitOK || !strings.Contains(stderr, "no webhook configurations or admission policies found") {
		t.Errorf("without -R: exit code %d, stderr %q; want 0 and a warning that nothing was found", code, stderr)
	}
	if code, stdout, _ := runLint(t, "", "-R", dir); code != ExitRejected || !strings.Contains(stdout, "D01") {
		t.Errorf("with -R: exit code %d, stdout %q; want 1 and D01", code, stdout)
	}
}

// TestLintGoesOnAfterABadFile lints a directory where one file does not read (a Helm
// template): the file is reported with the hint to render it, the others are linted, and the
// exit code says bad input.
func TestLintGoesOnAfterABadFile(t *testing.T) {
	dir := t.TempDir()
	writeLintInput(t, filepath.Join(dir, "a-template.yaml"), "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n    {{- include \"labels\" . | nindent 4 }}\n")
	writeLintInput(t, filepath.Join(dir, "b-slow.yaml"), slowWebhookYAML(""))
	code, stdout, stderr := runLint(t, "", dir)
	if code != ExitBadInput {
		t.Errorf("exit code = %d, want %d (bad input)", code, ExitBadInput)
	}
	for _, want := range []string{"a-template.yaml:", "looks like a template", "helm template", "the files above were not linted; the others were"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "warning D01 long-timeout") {
		t.Errorf("the readable file was not linted; stdout:\n%s", stdout)
	}
}

func writeLintInput(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
