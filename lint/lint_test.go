package lint

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/config"
)

func parse(t *testing.T, yaml string) *config.Set {
	t.Helper()
	set, err := config.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func run(t *testing.T, set *config.Set, opts Options) []Finding {
	t.Helper()
	if opts.Now == nil {
		opts.Now = fixtureNow
	}
	findings, err := Run(set, opts)
	if err != nil {
		t.Fatal(err)
	}
	return findings
}

func ruleIDs(findings []Finding) []string {
	var out []string
	for _, f := range findings {
		out = append(out, f.Rule)
	}
	return out
}

func TestRulesCatalogue(t *testing.T) {
	ids, names := map[string]bool{}, map[string]bool{}
	idPattern := regexp.MustCompile(`^[A-F][0-9]{2}$`)
	namePattern := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, r := range Rules() {
		if !idPattern.MatchString(r.ID) || !namePattern.MatchString(r.Name) {
			t.Errorf("rule %q %q: want an ID like B02 and a kebab-case name", r.ID, r.Name)
		}
		if ids[r.ID] || names[r.Name] {
			t.Errorf("rule %s %s: duplicate ID or name", r.ID, r.Name)
		}
		ids[r.ID], names[r.Name] = true, true
		if r.Severity < Info || r.Severity > Error || r.Summary == "" || r.Help == "" {
			t.Errorf("rule %s: incomplete: %+v", r.ID, r)
		}
	}
	for _, c := range checks() {
		if c.run == nil {
			t.Errorf("rule %s has no implementation", c.rule.ID)
		}
	}
	if !slices.IsSortedFunc(Rules(), func(x, y Rule) int { return strings.Compare(x.ID, y.ID) }) {
		t.Error("Rules() is not in ID order")
	}
}

// TestDocsCoverEveryRule keeps docs/lint.md in step with the rules: a section per rule with
// a bad and a good example.
func TestDocsCoverEveryRule(t *testing.T) {
	docs, err := os.ReadFile("../docs/lint.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(string(docs), "\n### ")
	for _, r := range Rules() {
		heading := r.ID + " " + r.Name
		var section string
		for _, s := range sections {
			if strings.HasPrefix(s, heading+"\n") {
				section = s
			}
		}
		if section == "" {
			t.Errorf("docs/lint.md has no section %q", "### "+heading)
			continue
		}
		if !strings.Contains(section, "Bad:") || !strings.Contains(section, "Good:") {
			t.Errorf("docs/lint.md section %s lacks a Bad: and a Good: example", r.ID)
		}
	}
}

func TestSeverity(t *testing.T) {
	for _, s := range Severities() {
		parsed, err := ParseSeverity(strings.ToUpper(s.String()))
		if err != nil || parsed != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", strings.ToUpper(s.String()), parsed, err)
		}
		text, err := s.MarshalText()
		if err != nil || string(text) != s.String() {
			t.Errorf("%v.MarshalText() = %q, %v", s, text, err)
		}
	}
	if s, err := ParseSeverity("warn"); err != nil || s != Warning {
		t.Errorf(`ParseSeverity("warn") = %v, %v`, s, err)
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error(`ParseSeverity("fatal"): want an error`)
	}
	if _, err := Severity(0).MarshalText(); err == nil {
		t.Error("the zero Severity must not encode")
	}
	var s Severity
	if err := s.UnmarshalText([]byte("error")); err != nil || s != Error {
		t.Errorf("UnmarshalText(error) = %v, %v", s, err)
	}
}

const slowConfigs = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: slow
  annotations: {admit.dev/lint-disable: "C01, match-policy-exact"}
webhooks:
- name: a.slow.example.com
  clientConfig: {url: "https://slow.example.com/a"}
  rules: [{apiGroups: [""], apiVersions: ["*"], resources: ["*"], operations: [CREATE]}]
  matchPolicy: Exact
  failurePolicy: Ignore
  timeoutSeconds: 20
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: other
webhooks:
- name: b.other.example.com
  clientConfig: {url: "https://other.example.com/b"}
  rules: [{apiGroups: [""], apiVersions: ["*"], resources: ["*"], operations: [CREATE]}]
  failurePolicy: Ignore
  timeoutSeconds: 20
  sideEffects: None
  admissionReviewVersions: [v1]
`

func TestSuppression(t *testing.T) {
	findings := run(t, parse(t, slowConfigs), Options{Disable: []string{"long-timeout"}})
	var got []string
	for _, f := range findings {
		if f.Rule == "C01" || f.Rule == "C03" || f.Rule == "D01" {
			got = append(got, f.Configuration+" "+f.Rule+" "+string(f.Suppressed))
		}
	}
	want := []string{
		"slow C01 annotation", "slow C03 annotation", "slow D01 option",
		"other C01 ", "other D01 option",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("suppressions (-want +got):\n%s", diff)
	}
	counting := AtLeast(findings, Warning)
	if diff := cmp.Diff([]string{"C01"}, ruleIDs(counting)); diff != "" {
		t.Errorf("AtLeast(Warning) (-want +got):\n%s", diff)
	}
}

func TestRunRejectsUnknownRules(t *testing.T) {
	if _, err := Run(parse(t, slowConfigs), Options{Disable: []string{"D01", "nope"}}); err == nil || !strings.Contains(err.Error(), `unknown rules "nope"`) {
		t.Errorf("Disable with an unknown rule: err = %v", err)
	}
	bad := strings.Replace(slowConfigs, `"C01, match-policy-exact"`, `"C01, C99"`, 1)
	if _, err := Run(parse(t, bad), Options{}); err == nil || !strings.Contains(err.Error(), `test.yaml:1: ValidatingWebhookConfiguration "slow": annotation admit.dev/lint-disable: unknown rules "C99"`) {
		t.Errorf("annotation with an unknown rule: err = %v", err)
	}
}

func TestRunRejectsNilSet(t *testing.T) {
	if _, err := Run(nil, Options{}); err == nil {
		t.Error("Run(nil): want an error")
	}
}

func TestRunRejectsUndecodableObjects(t *testing.T) {
	set := parse(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: webhook, namespace: example-system}
spec:
  replicas: two
`)
	_, err := Run(set, Options{})
	if err == nil || !strings.Contains(err.Error(), `test.yaml:1: Deployment "webhook"`) {
		t.Errorf("err = %v, want one naming the Deployment and its source", err)
	}
}

func TestRunlevelLabelsOption(t *testing.T) {
	set := parse(t, `apiVersion: v1
kind: Namespace
metadata:
  name: dns
  labels: {tier.example.com/level: "1"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: example}
webhooks:
- name: pods.example.com
  clientConfig: {url: "https://webhook.example.com/validate"}
  rules: [{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}]
  namespaceSelector:
    matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]
  timeoutSeconds: 2
  sideEffects: None
  admissionReviewVersions: [v1]
`)
	if got := onlyRule(run(t, set, Options{}), "B03"); len(got) != 0 {
		t.Errorf("with the default labels, the namespace has no runlevel; got %v", got)
	}
	got := onlyRule(run(t, set, Options{RunlevelLabels: []string{"tier.example.com/level"}}), "B03")
	if len(got) != 1 || !strings.Contains(got[0].Message, `"dns" (tier.example.com/level=1)`) {
		t.Errorf("with RunlevelLabels: %v", got)
	}
}

// TestCustomResourcesFromCRDs: a CRD in the input tells lint that widgets v1 and v1beta1 are
// the same resource, so two webhooks naming one version each both match a request (D02).
func TestCustomResourcesFromCRDs(t *testing.T) {
	const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
---
`
	const hooks = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: widgets}
webhooks:
- name: v1.widgets.example.com
  clientConfig: {url: "https://widgets.example.com/v1"}
  rules: [{apiGroups: [example.com], apiVersions: [v1], resources: [widgets], operations: [CREATE]}]
  failurePolicy: Ignore
  timeoutSeconds: 30
  sideEffects: None
  admissionReviewVersions: [v1]
- name: v1beta1.widgets.example.com
  clientConfig: {url: "https://widgets.example.com/v1beta1"}
  rules: [{apiGroups: [example.com], apiVersions: [v1beta1], resources: [widgets], operations: [CREATE]}]
  failurePolicy: Ignore
  timeoutSeconds: 30
  reinvocationPolicy: IfNeeded
  sideEffects: None
  admissionReviewVersions: [v1]
`
	if got := onlyRule(run(t, parse(t, hooks), Options{}), "D02"); len(got) != 0 {
		t.Errorf("without the CRD each version is its own resource: got %v", got)
	}
	got := onlyRule(run(t, parse(t, crd+hooks), Options{}), "D02")
	if len(got) != 1 || !strings.Contains(got[0].Message, "can take 90 s together") || got[0].Webhook != "v1beta1.widgets.example.com" {
		t.Errorf("with the CRD: %v", got)
	}
}

func TestRequestTimeoutOption(t *testing.T) {
	findings := run(t, parse(t, slowConfigs), Options{})
	if got := onlyRule(findings, "D02"); len(got) != 0 {
		t.Fatalf("validating webhooks only: no chain, got %v", got)
	}
	mutating := strings.ReplaceAll(slowConfigs, "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
	if got := onlyRule(run(t, parse(t, mutating), Options{}), "D02"); len(got) != 0 {
		t.Errorf("40 s within the default 60 s: got %v", got)
	}
	got := onlyRule(run(t, parse(t, mutating), Options{RequestTimeout: 30e9}), "D02")
	if len(got) != 1 || !strings.Contains(got[0].Message, "40 s together, more than the 30 s request deadline") {
		t.Errorf("40 s past a 30 s deadline: %v", got)
	}
}

func TestCompareFieldPaths(t *testing.T) {
	paths := []string{"webhooks[10].rules", "metadata.name", "webhooks[2].rules[10]", "webhooks[2].rules[9]", "webhooks[2]", ""}
	slices.SortFunc(paths, compareFieldPaths)
	want := []string{"", "metadata.name", "webhooks[2]", "webhooks[2].rules[9]", "webhooks[2].rules[10]", "webhooks[10].rules"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWriteText(t *testing.T) {
	findings := []Finding{
		{Rule: "D01", Name: "long-timeout", Severity: Warning, Kind: "ValidatingWebhookConfiguration", Configuration: "a", Webhook: "w.example.com",
			Field: "webhooks[0].timeoutSeconds", File: "hooks.yaml", Line: 9, ConfigurationLine: 3, Message: strings.Repeat("word ", 30), Hint: "lower it"},
		{Rule: "C02", Name: "broad-without-match-conditions", Severity: Info, Kind: "ValidatingWebhookConfiguration", Configuration: "a", Message: "info"},
		{Rule: "A01", Name: "invalid", Severity: Error, Kind: "MutatingWebhookConfiguration", Configuration: "b", Field: "metadata.name", Message: "bad", Suppressed: SuppressedByOption},
	}
	var out bytes.Buffer
	if err := WriteText(&out, findings, Warning); err != nil {
		t.Fatal(err)
	}
	want := `ValidatingWebhookConfiguration "a"  hooks.yaml:3
  warning D01 long-timeout: webhooks[0].timeoutSeconds (webhook "w.example.com")
          word word word word word word word word word word word word word word word word word word
          word word word word word word word word word word word word
          fix: lower it

1 warning (1 suppressed, 1 below warning)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestConfigurationGivenTwiceIsCheckedOnce lints a configuration given twice, as when two
// releases of a project are linted together: A01 says the second replaces the first, and the
// other rules see only the one the cluster would hold (D02 must not add the two copies'
// timeouts up, D01 must not report each copy).
func TestConfigurationGivenTwiceIsCheckedOnce(t *testing.T) {
	const hook = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: injector}
webhooks:
- name: pods.injector.example.com
  clientConfig: {url: "https://injector.example.com/mutate"}
  rules: [{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}]
  reinvocationPolicy: IfNeeded
  timeoutSeconds: 30
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
`
	set, err := config.Parse("releases.yaml", []byte(hook+"---\n"+hook))
	if err != nil {
		t.Fatal(err)
	}
	findings, err := Run(set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range AtLeast(findings, Warning) {
		got = append(got, fmt.Sprintf("%s line %d", f.Rule, f.ConfigurationLine))
	}
	want := []string{"A01 line 14", "D01 line 14"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestSingleReplicaNamesTheAutoscaler names the HorizontalPodAutoscaler whose floor leaves a
// fail-closed webhook's server at one replica, by its own name.
func TestSingleReplicaNamesTheAutoscaler(t *testing.T) {
	const input = `apiVersion: v1
kind: Service
metadata: {name: webhook, namespace: example-system}
spec:
  selector: {app: webhook}
  ports: [{port: 443}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: webhook, namespace: example-system}
spec:
  replicas: 3
  selector: {matchLabels: {app: webhook}}
  template:
    metadata: {labels: {app: webhook}}
    spec: {containers: [{name: webhook, image: example.com/webhook:1}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: webhook-scaler, namespace: example-system}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: webhook}
  minReplicas: 1
  maxReplicas: 4
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: example
  annotations: {cert-manager.io/inject-ca-from: example-system/serving}
webhooks:
- name: widgets.webhook.example.com
  clientConfig: {service: {name: webhook, namespace: example-system}}
  rules: [{apiGroups: [example.com], apiVersions: [v1], resources: [widgets], operations: [CREATE]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`
	set, err := config.Parse("scaled.yaml", []byte(input))
	if err != nil {
		t.Fatal(err)
	}
	findings, err := Run(set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var messages []string
	for _, f := range findings {
		if f.Rule == "B07" {
			messages = append(messages, f.Message)
		}
	}
	want := "runs as few as 1 replica (the minReplicas of HorizontalPodAutoscaler example-system/webhook-scaler)"
	if len(messages) != 1 || !strings.Contains(messages[0], want) {
		t.Errorf("B07 findings %q, want one saying %q", messages, want)
	}
}

// lint reads a Secret's tls.crt only: a template's placeholder in another key (clusterctl's
// ${AWS_B64ENCODED_CREDENTIALS}) does not stop it, one in tls.crt does.
func TestSecretsAreReadForTheirCertificateOnly(t *testing.T) {
	const secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: capa-system}\ndata:\n  %s: ${AWS_B64ENCODED_CREDENTIALS}\n"
	if _, err := Run(parse(t, fmt.Sprintf(secret, "credentials")), Options{}); err != nil {
		t.Errorf("a placeholder in credentials: %v", err)
	}
	_, err := Run(parse(t, fmt.Sprintf(secret, "tls.crt")), Options{})
	if err == nil || !strings.Contains(err.Error(), `test.yaml:1: Secret "creds": data.tls.crt is not base64`) {
		t.Errorf("a placeholder in tls.crt: %v", err)
	}
}
