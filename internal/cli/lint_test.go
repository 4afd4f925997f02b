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
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/lint/sarif"
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

// slowWebhook is a configuration whose only problem at warning level is its 30 s timeout on pods
// (D01).
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
  - {apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}
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
			wantStdout: []string{`MutatingWebhookConfiguration "cert-manager-webhook"`, "warning B07 single-replica", "2 warnings (6 below warning)"}},
		{name: "nothing at or above error", args: []string{"--severity", "error", fixture("realistic", "cert-manager")}, want: ExitOK,
			wantStdout: []string{"no findings (8 below error)"}},
		{name: "info shows everything", args: []string{"--severity", "info", fixture("realistic", "cert-manager")}, want: ExitRejected,
			wantStdout: []string{"info    C02 broad-without-match-conditions", "info    D01 long-timeout", "info    C05 unserved-resource", "2 warnings, 6 infos"}},
		{name: "rules disabled by flag, by ID and name", args: []string{"--disable", "B07,no-disruption-budget", "--disable", "D01", "--disable", "wildcard-rule", fixture("realistic", "cert-manager")},
			want: ExitOK, wantStdout: []string{"no findings (5 suppressed, 3 below warning)"}},
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
	wantSummary := map[string]int{"errors": 0, "warnings": 1, "infos": 0, "suppressed": 1, "belowThreshold": 6}
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
	// As in the set's golden report: 2 errors and 5 warnings, the two C01 among them kept as
	// suppressed results, the infos below the threshold left out.
	if diff := cmp.Diff(map[string]int{"error": 2, "warning": 5}, levels); diff != "" {
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
	if code, stdout, stderr := runLint(t, "", dir); code != ExitBadInput || stdout != "" || !strings.Contains(stderr, "no *.yaml, *.yml or *.json files in it; its subdirectories are read with -R") {
		t.Errorf("without -R: exit code %d, stdout %q, stderr %q; want 2, nothing linted and -R suggested", code, stdout, stderr)
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
	for _, want := range []string{"a-template.yaml:", "looks like a template", "helm template", "the inputs above were not linted; the others were"} {
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

// lint never passes on nothing: an input that does not read, or holds no object, exits 2 and
// prints no report that reads as clean; the others are still linted.
func TestLintNeverPassesOnNothing(t *testing.T) {
	dir := t.TempDir()
	writeLintInput(t, filepath.Join(dir, "broken.yaml"), "apiVersion: v1\nkind: [\n")
	writeLintInput(t, filepath.Join(dir, "duplicate.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n")
	writeLintInput(t, filepath.Join(dir, "empty.yaml"), "# nothing yet\n---\n")
	clean := strings.Replace(slowWebhookYAML(""), "timeoutSeconds: 30", "timeoutSeconds: 2", 1)
	writeLintInput(t, filepath.Join(dir, "clean.yaml"), clean)
	noManifests := filepath.Join(dir, "nested")
	if err := os.MkdirAll(filepath.Join(noManifests, "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantStdout string
		wantStderr []string
	}{
		{name: "empty standard input (a failed kustomize build in a pipe)", args: []string{"-"},
			wantStderr: []string{"admit: <stdin> holds no objects (did the command before the pipe fail?)"}},
		{name: "standard input with comments only", stdin: "# generated\n---\n", args: []string{"-"},
			wantStderr: []string{"admit: <stdin> holds no objects"}},
		{name: "a file that does not parse, its line named once", args: []string{in("broken.yaml")},
			wantStderr: []string{"admit: " + in("broken.yaml") + ":2: yaml: did not find expected node content\n"}},
		{name: "a duplicate key, its line named once", args: []string{in("duplicate.yaml")},
			wantStderr: []string{"admit: " + in("duplicate.yaml") + `:5: yaml: key "name" already set in map` + "\n"}},
		{name: "a file without objects", args: []string{in("empty.yaml")},
			wantStderr: []string{"admit: " + in("empty.yaml") + " holds no objects\n"}},
		{name: "a directory without manifests", args: []string{noManifests},
			wantStderr: []string{"admit: " + noManifests + ": no *.yaml, *.yml or *.json files in it; its subdirectories are read with -R"}},
		{name: "a clean file beside a broken one: no clean summary", args: []string{in("clean.yaml"), in("broken.yaml")},
			wantStderr: []string{"broken.yaml:2:", "admit: the inputs above were not linted; the others were"}},
		{name: "standard input given twice", stdin: clean, args: []string{"-", "-"},
			wantStderr: []string{`admit: "-" (standard input) is given more than once: one input can read it`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runLint(t, tt.stdin, tt.args...)
			if code != ExitBadInput {
				t.Errorf("exit code %d, want 2", code)
			}
			if stdout != tt.wantStdout {
				t.Errorf("stdout %q, want %q", stdout, tt.wantStdout)
			}
			for _, want := range tt.wantStderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if !strings.HasPrefix(line, "admit: ") && !strings.HasPrefix(line, "  ") {
					t.Errorf("stderr line without the admit: prefix: %q", line)
				}
			}
		})
	}

	// A structured report of a partial run lists what was not read.
	code, stdout, _ := runLint(t, "", "-o", "json", in("clean.yaml"), in("broken.yaml"))
	var report lintReport
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || code != ExitBadInput {
		t.Fatalf("-o json: exit %d, %v\n%s", code, err, stdout)
	}
	if len(report.Errors) != 1 || !strings.Contains(report.Errors[0], "broken.yaml:2: yaml: did not find expected node content") {
		t.Errorf("-o json errors: %q", report.Errors)
	}
	code, stdout, _ = runLint(t, "", "-o", "sarif", in("clean.yaml"), in("broken.yaml"))
	var log sarif.Log
	if err := json.Unmarshal([]byte(stdout), &log); err != nil || code != ExitBadInput {
		t.Fatalf("-o sarif: exit %d, %v\n%s", code, err, stdout)
	}
	if inv := log.Runs[0].Invocations; len(inv) != 1 || inv[0].ExecutionSuccessful || len(inv[0].ToolExecutionNotifications) != 1 {
		t.Errorf("-o sarif of a partial run: invocations %+v, want one, unsuccessful, with the unread input", inv)
	}
}

// --stdin-filename names standard input where code scanning shows it, and every rule of a
// SARIF log links to its section of docs/lint.md.
func TestLintSARIFForCodeScanning(t *testing.T) {
	const name = "deploy/overlays/prod/kustomization.yaml"
	code, stdout, stderr := runLint(t, slowWebhookYAML(""), "-o", "sarif", "--stdin-filename", name, "-")
	if code != ExitRejected {
		t.Fatalf("exit %d, want 1; stderr: %s", code, stderr)
	}
	var log sarif.Log
	if err := json.Unmarshal([]byte(stdout), &log); err != nil {
		t.Fatal(err)
	}
	results := log.Runs[0].Results
	if len(results) != 1 || results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != name {
		t.Errorf("results %+v, want one at %s", results, name)
	}
	if inv := log.Runs[0].Invocations; len(inv) != 0 {
		t.Errorf("a complete run reports invocations %+v", inv)
	}
	anchors := docAnchors(t, filepath.Join("..", "..", "docs", "lint.md"))
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		page, anchor, ok := strings.Cut(r.HelpURI, "#")
		if !ok || page != "https://github.com/admitkit/admit/blob/main/docs/lint.md" || !anchors[anchor] {
			t.Errorf("rule %s: helpUri %q is not a section of docs/lint.md", r.ID, r.HelpURI)
		}
	}
	if _, stdout, _ := runLint(t, slowWebhookYAML(""), "--stdin-filename", name, "-"); !strings.Contains(stdout, name+":1") {
		t.Errorf("the text report does not name standard input %s:\n%s", name, stdout)
	}
	if code, _, stderr := runLint(t, "", "--stdin-filename", name, fixture("realistic", "cert-manager")); code != ExitBadInput || !strings.Contains(stderr, `--stdin-filename names standard input, which is read only when "-" is among the paths`) {
		t.Errorf("--stdin-filename without -: exit %d, stderr %q", code, stderr)
	}
}

// docAnchors are the anchors GitHub gives the headings of a Markdown page: lower case, spaces
// as dashes, punctuation but dashes and underscores dropped.
func docAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors[b.String()] = true
	}
	return anchors
}

// The help names every rule group there is.
func TestLintHelpNamesEveryRuleGroup(t *testing.T) {
	help := newLintCommand(Streams{}).Long
	for _, r := range lint.Rules() {
		if group := "(" + r.ID[:1] + ")"; !strings.Contains(help, group) {
			t.Errorf("admit lint --help does not describe rule group %s (rule %s)", group, r.ID)
		}
	}
}

// kubebuilderWebhooks is a controller-gen config/webhook/manifests.yaml: a fail-closed pod
// webhook calling the placeholder Service system/webhook-service, which config/default's
// namespace and name prefix replace.
const kubebuilderWebhooks = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /mutate-v1-pod}
  failurePolicy: Fail
  name: mpod-v1.kb.io
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  sideEffects: None
`

// A kustomize base is not what is applied: when its build changes what lint would read, lint
// says to lint the build instead of reporting the base's placeholders as installed.
func TestLintRefusesUnbuiltKustomizeBases(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) string {
		t.Helper()
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeLintInput(t, path, content)
		return path
	}
	// kubebuilder's layout.
	write("kb/config/webhook/kustomization.yaml", "resources:\n- manifests.yaml\n")
	manifests := write("kb/config/webhook/manifests.yaml", kubebuilderWebhooks)
	write("kb/config/default/kustomization.yaml", "namespace: project-system\nnamePrefix: project-\nresources:\n- ../webhook\n")
	// A base whose build renames its objects.
	write("prefixed/kustomization.yaml", "namePrefix: team-\nresources: [hooks.yaml]\n")
	write("prefixed/hooks.yaml", slowWebhookYAML(""))
	// A base whose build moves its objects to another namespace.
	write("moved/kustomization.yaml", "namespace: hooks\nresources: [hooks.yaml, service.yaml]\n")
	write("moved/hooks.yaml", slowWebhookYAML(""))
	write("moved/service.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: slow}\nspec: {ports: [{port: 443}]}\n")
	// A kustomization that only lists its files: its build is the files.
	write("plain/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [hooks.yaml]\nimages: [{name: x, newTag: v1}]\n")
	write("plain/hooks.yaml", slowWebhookYAML(""))
	// A build's output written beside its kustomization.
	write("built/kustomization.yaml", "namePrefix: team-\nresources: [../prefixed]\n")
	write("built/output.yaml", strings.Replace(slowWebhookYAML(""), "name: slow", "name: team-slow", 1))

	tests := []struct {
		name       string
		args       []string
		want       int
		wantStderr string
	}{
		{name: "kubebuilder's config/webhook", args: []string{filepath.Join(root, "kb/config/webhook")}, want: ExitBadInput,
			wantStderr: "admit: " + filepath.Join(root, "kb/config/webhook") + " holds kustomize's input, not what is applied: " + manifests +
				`:1: MutatingWebhookConfiguration "mutating-webhook-configuration" calls a Service in namespace "system", the placeholder an overlay replaces (with a name prefix); ` +
				"give what kustomize builds from the overlay you apply: kustomize build " + filepath.Join(root, "kb/config/default") + " | admit lint -\n"},
		{name: "one of its files", args: []string{manifests}, want: ExitBadInput, wantStderr: "the placeholder an overlay replaces"},
		{name: "the whole tree", args: []string{"-R", filepath.Join(root, "kb")}, want: ExitBadInput, wantStderr: "the placeholder an overlay replaces"},
		{name: "a name prefix", args: []string{filepath.Join(root, "prefixed")}, want: ExitBadInput,
			wantStderr: `kustomize build renames the objects (namePrefix "team-", nameSuffix ""); give what kustomize builds from the overlay you apply: kustomize build OVERLAY | admit lint -`},
		{name: "another namespace", args: []string{filepath.Join(root, "moved")}, want: ExitBadInput,
			wantStderr: `kustomize build puts its objects in namespace "hooks" (` + filepath.Join(root, "moved/service.yaml") + `:1: Service "slow" names no namespace)`},
		{name: "several bases", args: []string{filepath.Join(root, "prefixed"), filepath.Join(root, "moved")}, want: ExitBadInput,
			wantStderr: "admit: these directories hold kustomize's input, not what is applied; give what kustomize builds from the overlay you apply: kustomize build OVERLAY | admit lint -\n  " + filepath.Join(root, "prefixed") + ": kustomize build renames"},
		{name: "a kustomization file", args: []string{filepath.Join(root, "plain/kustomization.yaml")}, want: ExitBadInput,
			wantStderr: "kustomization.yaml is a kustomization, not the objects it builds: give its build: kustomize build " + filepath.Join(root, "plain") + " | admit lint -"},
		{name: "a kustomization that only lists its files is linted", args: []string{filepath.Join(root, "plain")}, want: ExitRejected},
		{name: "a build's output beside its kustomization is linted", args: []string{filepath.Join(root, "built/output.yaml")}, want: ExitRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runLint(t, "", tt.args...)
			if code != tt.want {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
			if tt.want == ExitBadInput && stdout != "" {
				t.Errorf("a refused base printed a report:\n%s", stdout)
			}
			if tt.want == ExitRejected && !strings.Contains(stdout, "D01 long-timeout") {
				t.Errorf("not linted:\n%s\nstderr:\n%s", stdout, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, stderr)
			}
		})
	}
}

// A folder of ordinary objects holds nothing to lint: bad input, not "No findings" — pointed at
// the wrong folder, a clean report would pass a CI job.
func TestLintRefusesNothingToLint(t *testing.T) {
	dir := t.TempDir()
	writeLintInput(t, filepath.Join(dir, "app.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b}\n")
	for _, output := range []string{"text", "sarif"} {
		code, stdout, stderr := runLint(t, "", "-o", output, dir)
		want := "admit: nothing to lint: " + dir + " hold no webhook configuration or admission policy among 2 objects"
		if code != ExitBadInput || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("-o %s: exit %d, stdout %q, stderr %q; want 2, nothing, and %q", output, code, stdout, stderr, want)
		}
	}
}
