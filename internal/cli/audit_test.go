package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/audit"
	"github.com/admitkit/admit/audit/policyreport"
	"github.com/admitkit/admit/internal/webhooktest"
)

// auditFixture is a dump of a small cluster, the baseline it runs with, and a proposal whose
// webhooks a webhooktest server answers.
type auditFixture struct {
	dir, dump, baseline, proposal string
}

const auditDump = `apiVersion: v1
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop, labels: {tier: team}}
- apiVersion: v1
  kind: Namespace
  metadata: {name: ops}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop, resourceVersion: "7", uid: 9d3c0000-0000-4000-8000-000000000001}
  spec:
    containers: [{name: web, image: nginx:1.27}]
- apiVersion: v1
  kind: Pod
  metadata: {name: tools, namespace: ops, resourceVersion: "8"}
  spec:
    containers: [{name: sh, image: busybox:1.36}]
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: big, namespace: shop, resourceVersion: "9", generation: 1}
  spec:
    replicas: 9
    selector: {matchLabels: {app: big}}
    template:
      metadata: {labels: {app: big}}
      spec: {containers: [{name: big, image: nginx:1.27}]}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: small, namespace: ops, resourceVersion: "10", generation: 1}
  spec:
    replicas: 1
    selector: {matchLabels: {app: small}}
    template:
      metadata: {labels: {app: small}}
      spec: {containers: [{name: small, image: nginx:1.27}]}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, namespace: shop, resourceVersion: "11"}
  data: {a: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: legacy, namespace: ops, resourceVersion: "12"}
  data: {a: "1"}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop, resourceVersion: "13"}
  spec:
    clusterIP: 10.96.0.20
    clusterIPs: [10.96.0.20]
    ports: [{port: 80, targetPort: 8080, protocol: TCP}]
    selector: {app: web}
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingWebhookConfiguration
  metadata: {name: from-the-dump}
  webhooks: []
kind: List
metadata: {resourceVersion: ""}
`

// webhook is a webhook configuration's YAML calling path on server.
func hookYAML(server *webhooktest.Server, kind, name, path, resources, extra string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: ` + kind + `
metadata: {name: ` + name + `}
webhooks:
- name: ` + name + `.example.com
  clientConfig: {url: "` + server.URL + path + `", caBundle: ` + b64(server.CABundle) + `}
  rules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: [` + resources + `]}]
  sideEffects: None
  admissionReviewVersions: [v1]
` + extra + "---\n"
}

func newAuditFixture(t *testing.T) auditFixture {
	t.Helper()
	server := webhooktest.Start(t)
	dir := t.TempDir()
	f := auditFixture{dir: dir, dump: filepath.Join(dir, "dump.yaml"), baseline: filepath.Join(dir, "baseline.yaml"), proposal: filepath.Join(dir, "proposal.yaml")}
	// The cluster already refuses ConfigMaps in ops: refusing them again is nothing new.
	baseline := hookYAML(server, "ValidatingWebhookConfiguration", "legacy", webhooktest.Deny(webhooktest.Code(403), webhooktest.Message("no more ConfigMaps here")), "configmaps",
		"  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ops}}\n")
	proposal := baseline +
		hookYAML(server, "ValidatingWebhookConfiguration", "team-pods", webhooktest.Deny(webhooktest.Code(403), webhooktest.Message("pods need a team label")), "pods",
			"  namespaceSelector: {matchLabels: {tier: team}}\n") +
		hookYAML(server, "MutatingWebhookConfiguration", "owner", webhooktest.SetLabel("owner", "platform"), "configmaps", "") +
		hookYAML(server, "ValidatingWebhookConfiguration", "flaky", webhooktest.PathInternalError, "deployments", "  failurePolicy: Ignore\n") +
		hookYAML(server, "ValidatingWebhookConfiguration", "ports", webhooktest.Allow(webhooktest.Warning("port 80 is deprecated here")), "services", "") +
		`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-cap}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 5", message: "at most 5 replicas"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-cap}
spec: {policyName: replica-cap, validationActions: [Deny]}
`
	for path, data := range map[string]string{f.dump: auditDump, f.baseline: baseline, f.proposal: proposal} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func runAudit(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(ctx, append([]string{"audit"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return out.String(), errOut.String(), code
}

// The report says what the proposal newly does to each object, per step and per namespace.
func TestAuditDump(t *testing.T) {
	f := newAuditFixture(t)
	stdout, stderr, code := runAudit(t, context.Background(), "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "-o", "json")
	if code != ExitRejected {
		t.Fatalf("exit %d, want 1 (new denials)\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
	if !strings.Contains(stderr, "2 newly denied writes (more than 0)") || !strings.Contains(stderr, "1 write with newly failing calls (more than 0)") {
		t.Errorf("stderr does not say which thresholds are exceeded: %s", stderr)
	}
	var report audit.Report
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatal(err)
	}
	wantTotals := audit.Totals{Read: 10, Audited: 7, Unaffected: 2, Skipped: 1, NewlyDenied: 2, NewlyFailing: 1, NewlyMutated: 1, NewlyWarned: 1, RefusedByBoth: 1}
	if diff := cmp.Diff(wantTotals, report.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	type stepRow struct {
		Step                                     string
		Change                                   string
		Matched, Denied, Failed, Mutated, Warned int
	}
	var steps []stepRow
	for _, s := range report.Steps {
		steps = append(steps, stepRow{s.Step.String(), s.Change, s.Matched, s.Denied, s.Failed, s.Mutated, s.Warned})
	}
	// The policy denies shop/big before the validating webhooks run (kube-apiserver's order), so
	// flaky is called for ops/small only; owner's label on ops/legacy is no news, as the baseline
	// already refuses that ConfigMap.
	wantSteps := []stepRow{
		{"ValidatingAdmissionPolicy replica-cap", "added", 2, 1, 0, 0, 0},
		{"validating webhook flaky.example.com (ValidatingWebhookConfiguration flaky)", "added", 1, 0, 1, 0, 0},
		{"validating webhook team-pods.example.com (ValidatingWebhookConfiguration team-pods)", "added", 1, 1, 0, 0, 0},
		{"validating webhook ports.example.com (ValidatingWebhookConfiguration ports)", "added", 1, 0, 0, 0, 1},
		{"mutating webhook owner.example.com (MutatingWebhookConfiguration owner)", "added", 2, 0, 0, 1, 0},
	}
	if diff := cmp.Diff(wantSteps, steps); diff != "" {
		t.Errorf("steps, the worst first (-want +got):\n%s", diff)
	}
	var objects []string
	for _, o := range report.Objects {
		var effects []string
		for _, e := range o.Effects {
			effects = append(effects, string(e))
		}
		objects = append(objects, strings.Join(effects, ",")+" "+o.ObjectName())
	}
	// The worst first: denials, failures, warnings, mutations; each in the dump's order.
	wantObjects := []string{"denied Pod shop/web-1", "denied Deployment shop/big", "failing Deployment ops/small",
		"warned Service shop/web", "mutated ConfigMap shop/settings"}
	if diff := cmp.Diff(wantObjects, objects); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	wantNamespaces := []audit.NamespaceCount{
		{Namespace: "shop", Audited: 4, Denied: 2, Mutated: 1, Warned: 1, Results: policyreport.Summary{Fail: 2, Warn: 1, Pass: 1}},
		{Namespace: "ops", Audited: 3, Failing: 1, Results: policyreport.Summary{Error: 1}},
	}
	if diff := cmp.Diff(wantNamespaces, report.Namespaces); diff != "" {
		t.Errorf("namespaces, the worst first (-want +got):\n%s", diff)
	}
	if !strings.Contains(strings.Join(report.Notes, "\n"), "1 webhook configuration or admission policy of the dump: not audited") {
		t.Errorf("the notes do not say the dump's configuration was left out: %q", report.Notes)
	}
}

// The text report names each object's new effect and what the failure policy does.
func TestAuditText(t *testing.T) {
	f := newAuditFixture(t)
	stdout, _, code := runAudit(t, context.Background(), "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "--max-new-denials", "2", "--max-new-failures", "-1")
	if code != ExitOK {
		t.Fatalf("exit %d within the thresholds:\n%s", code, stdout)
	}
	for _, want := range []string{
		"Audit of the objects of " + f.dump + ", each written again unchanged (UPDATE)",
		"  DENIED   UPDATE Pod shop/web-1  (" + f.dump + ":9)",
		`           denied by validating webhook team-pods.example.com (ValidatingWebhookConfiguration team-pods): 403 admission webhook "team-pods.example.com" denied the request: pods need a team label`,
		"  FAILING  UPDATE Deployment ops/small",
		"(failurePolicy Ignore: admitted without it)",
		"             add /metadata/labels: {\"owner\":\"platform\"}",
		"10 writes read, 7 audited (2 unaffected by the changes, 1 skipped): 2 newly denied, 1 newly failing, 1 newly mutated, 1 newly warned, 0 newly allowed, 1 refused by both, 0 not reviewed",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the text report lacks %q:\n%s", want, stdout)
		}
	}
}

// Recreated objects lose what the apiserver sets; a CREATE-only policy now applies.
func TestAuditCreate(t *testing.T) {
	f := newAuditFixture(t)
	stdout, stderr, code := runAudit(t, context.Background(), "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "--operation", "CREATE", "-o", "json", "--max-new-denials", "-1", "--max-new-failures", "-1")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stderr, stdout)
	}
	var report audit.Report
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatal(err)
	}
	if report.Operation != "CREATE" || report.Totals.Unreviewed != 0 || report.Totals.NewlyDenied != 2 {
		t.Errorf("operation %s, totals %+v, unreviewed %+v", report.Operation, report.Totals, report.Unreviewed)
	}
}

// Flags that contradict each other, or name nothing, are bad input that says what to give.
func TestAuditBadInput(t *testing.T) {
	f := newAuditFixture(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no proposal", []string{"-f", f.dump}, "give the webhook configurations and admission policies to roll out with --webhooks"},
		{"nothing to audit", []string{"--webhooks", f.proposal}, "give a dump with -f, an audit log with --audit-log, or a cluster with --kubeconfig"},
		{"a dump and a log", []string{"-f", f.dump, "--audit-log", f.dump, "--webhooks", f.proposal}, "-f and --audit-log are two audits"},
		{"-n and -A", []string{"-f", f.dump, "--webhooks", f.proposal, "-n", "shop", "-A"}, "-n and -A contradict each other"},
		{"an operation for a log", []string{"--audit-log", f.dump, "--webhooks", f.proposal, "--operation", "CREATE"}, "an audit log says each write's own"},
		{"DELETE", []string{"-f", f.dump, "--webhooks", f.proposal, "--operation", "DELETE"}, `--operation "DELETE": admit audit writes an object as an UPDATE or a CREATE`},
		{"a proposal without configurations", []string{"-f", f.dump, "--webhooks", f.dump + ".missing"}, "--webhooks: stat " + f.dump + ".missing: no such file or directory"},
		{"a dump that is not one", []string{"-f", f.proposal + "x", "--webhooks", f.proposal}, "no such file"},
		{"a log that is not one", []string{"--audit-log", f.dump, "--webhooks", f.proposal}, f.dump + ":1: not an audit event"},
		{"an unknown output", []string{"-f", f.dump, "--webhooks", f.proposal, "-o", "html"}, `unknown output format "html": use text, json, yaml, markdown, policyreport or openreports`},
		// --dry-run reads as admit review's, as kubectl's.
		{"a client dry run", []string{"-f", f.dump, "--webhooks", f.proposal, "--dry-run=client"}, "--dry-run=client: a client-side dry run sends nothing to the apiserver, so no admission runs"},
		{"an unknown dry run", []string{"-f", f.dump, "--webhooks", f.proposal, "--dry-run=all"}, `--dry-run "all": must be "none", "server" or "client"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runAudit(t, context.Background(), tt.args...)
			if code != ExitBadInput || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// Writes that cannot be reviewed are bad input beyond --max-unreviewed, and say why.
func TestAuditUnreviewed(t *testing.T) {
	f := newAuditFixture(t)
	dump := filepath.Join(f.dir, "custom.yaml")
	if err := os.WriteFile(dump, []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runAudit(t, context.Background(), "-f", dump, "--webhooks", f.proposal)
	if code != ExitBadInput || !strings.Contains(stderr, "1 write could not be reviewed (more than 0, --max-unreviewed)") ||
		!strings.Contains(stdout, `1× no resource for kind "Widget" in group "example.com" version "v1"`) {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if _, _, code := runAudit(t, context.Background(), "-f", dump, "--webhooks", f.proposal, "--max-unreviewed", "1"); code != ExitOK {
		t.Errorf("exit %d within --max-unreviewed", code)
	}
}

// interruptAfter is a context whose Err says canceled once it has been asked n times: Ctrl-C
// pressed while the audit reads.
type interruptAfter struct {
	context.Context
	n atomic.Int64
}

func (c *interruptAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// Ctrl-C stops the reading; the writes audited until then are reported, and the exit code says
// the report is partial.
func TestAuditInterrupted(t *testing.T) {
	f := newAuditFixture(t)
	ctx := &interruptAfter{Context: context.Background()}
	ctx.n.Store(6)
	stdout, _, code := runAudit(t, ctx, "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "--batch-size", "2",
		"--max-new-denials", "-1", "--max-new-failures", "-1")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, stdout)
	}
	if !strings.Contains(stdout, "INTERRUPTED") || !strings.Contains(stdout, "4 writes read") {
		t.Errorf("the partial report:\n%s", stdout)
	}
}

// Reading a cluster needs a cluster: the e2e suite has one (test/e2e/audit_e2e_test.go). Here:
// the kubeconfig is checked before anything is read.
func TestAuditKubeconfigErrors(t *testing.T) {
	f := newAuditFixture(t)
	_, stderr, code := runAudit(t, context.Background(), "--kubeconfig", filepath.Join(f.dir, "missing"), "--webhooks", f.proposal)
	if code != ExitBadInput || !strings.Contains(stderr, "--kubeconfig "+filepath.Join(f.dir, "missing")) {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// -n audits one namespace's objects, as kubectl get -n reads them.
func TestAuditNamespace(t *testing.T) {
	f := newAuditFixture(t)
	stdout, stderr, _ := runAudit(t, context.Background(), "-f", f.dump, "--webhooks", f.proposal, "--baseline", f.baseline, "-n", "ops", "-o", "json")
	var report audit.Report
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var namespaces []string
	for _, n := range report.Namespaces {
		namespaces = append(namespaces, n.Namespace)
	}
	if diff := cmp.Diff([]string{"ops"}, namespaces); diff != "" || report.Totals.Read != 4 {
		t.Errorf("namespaces (-want +got):\n%s\ntotals %+v", diff, report.Totals)
	}
}

// Flag values complete in the shell.
func TestAuditCompletion(t *testing.T) {
	tests := []struct {
		flag []string
		want []string
	}{
		{[]string{"--operation", ""}, []string{"UPDATE", "CREATE"}},
		// --dry-run alone means server, as kubectl's: its values complete after "=".
		{[]string{"--dry-run="}, []string{"server", "none"}},
		{[]string{"-o", ""}, []string{"text", "json", "yaml", "markdown", "policyreport", "openreports"}},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		Run(context.Background(), append([]string{"__complete", "audit"}, tt.flag...), Streams{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}})
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if diff := cmp.Diff(tt.want, lines[:len(lines)-1]); diff != "" {
			t.Errorf("completions of %s (-want +got):\n%s", tt.flag, diff)
		}
	}
}

// A dump cut off, empty, or an empty pipe is bad input, as admit review says of the same file:
// an audit of nothing must not pass for an audit of everything.
func TestAuditRefusesIncompleteDumps(t *testing.T) {
	f := newAuditFixture(t)
	write := func(name, data string) string {
		path := filepath.Join(f.dir, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cut := write("cut.yaml", auditDump[:strings.Index(auditDump, "- apiVersion: apps/v1")])
	cutMidLine := write("cut-mid-line.yaml", auditDump[:600])
	empty := write("empty.yaml", "")
	for _, tt := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"a dump cut off between items", "", []string{"-f", cut}, cut + ":1: a List without its kind: the input looks cut off"},
		{"a dump cut off in a line (head -c)", "", []string{"-f", cutMidLine}, cutMidLine + ":21: yaml: did not find expected ',' or '}'"},
		{"an empty dump", "", []string{"-f", empty}, empty + " holds no objects"},
		{"an empty pipe", "", []string{"-f", "-"}, "<stdin> holds no objects (did the command before the pipe fail?)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append(append([]string{"audit"}, tt.args...), "--webhooks", f.proposal, "--baseline", f.baseline)
			code := Run(context.Background(), args, Streams{In: strings.NewReader(tt.stdin), Out: &out, Err: &errOut})
			if code != ExitBadInput || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), tt.want)
			}
			if out.Len() > 0 {
				t.Errorf("a report of an incomplete input:\n%s", out.String())
			}
			// admit review says the same of the same input.
			var rout, rerr bytes.Buffer
			if rcode := Run(context.Background(), append([]string{"review"}, tt.args...), Streams{In: strings.NewReader(tt.stdin), Out: &rout, Err: &rerr}); rcode != ExitBadInput || !strings.Contains(rerr.String(), tt.want) {
				t.Errorf("admit review: exit %d, stderr %q; want 2 and %q", rcode, rerr.String(), tt.want)
			}
		})
	}
}

// Writes that the baseline refuses as well as the proposal say nothing of the proposal: created
// again from a dump without their ServiceAccounts (kubectl get pods -A), pods are refused under
// both. The report says how many and why, and a large share of them is not a pass.
func TestAuditRefusedByBoth(t *testing.T) {
	f := newAuditFixture(t)
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {tier: team}}\n")
	for _, name := range []string{"a", "b", "c"} {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: shop}\nspec: {serviceAccountName: builder, containers: [{name: c, image: nginx}]}\n", name)
	}
	dump := filepath.Join(f.dir, "pods.yaml")
	if err := os.WriteFile(dump, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runAudit(t, context.Background(), "-f", dump, "--webhooks", f.proposal, "--operation", "CREATE")
	if code != ExitBadInput {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"Refused under both (admission stops before the proposal: its answer is unknown):",
		`3× admission plugin ServiceAccount: pods "<name>" is forbidden: error looking up service account shop/builder: serviceaccount "builder" not found`,
		"3 refused by both",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if want := "3 of 3 audited writes (100%) are refused under both the baseline and the proposal"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	// Told to accept them, the audit passes: nothing it could see is new.
	if _, _, code := runAudit(t, context.Background(), "-f", dump, "--webhooks", f.proposal, "--operation", "CREATE", "--max-refused-share", "-1"); code != ExitOK {
		t.Errorf("--max-refused-share -1: exit %d, want 0", code)
	}
	// With the ServiceAccount given, the proposal's answer is known: its webhook denies.
	account := filepath.Join(f.dir, "account.yaml")
	if err := os.WriteFile(account, []byte("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: builder, namespace: shop}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if stdout, _, code := runAudit(t, context.Background(), "-f", dump, "--webhooks", f.proposal, "--operation", "CREATE", "--cluster", account); code != ExitRejected || !strings.Contains(stdout, "3 newly denied") {
		t.Errorf("with the ServiceAccount: exit %d, want 1 and 3 newly denied\n%s", code, stdout)
	}
}

// A proposal that changes only a policy's binding says which binding changed, and what it does
// to the writes under it.
func TestAuditBindingChange(t *testing.T) {
	dir := t.TempDir()
	policy := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 5"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-binding}
spec: {policyName: replicas, validationActions: [Warn]}
`
	writeTree(t, dir, map[string]string{
		"baseline/policy.yaml": policy,
		"proposal/policy.yaml": strings.Replace(policy, "[Warn]", "[Deny]", 1),
		"dump.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n" +
			"spec: {replicas: 9, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: nginx}]}}}\n",
	})
	stdout, stderr, code := runAudit(t, context.Background(), "-f", filepath.Join(dir, "dump.yaml"),
		"--baseline", filepath.Join(dir, "baseline"), "--webhooks", filepath.Join(dir, "proposal"), "--operation", "CREATE")
	if code != ExitRejected {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"changed  ValidatingAdmissionPolicy replicas (binding replicas-binding changed)", "1 newly denied"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// A proposed policy whose expression errors under failurePolicy Ignore enforces nothing: the
// audit counts the writes it fails open on as newly failing, with the error.
func TestAuditCountsPoliciesThatFailOpen(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"proposal/policy.yaml": failOpenPolicy,
		"dump.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n" +
			"spec: {replicas: 9, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: nginx}]}}}\n",
	})
	stdout, stderr, code := runAudit(t, context.Background(), "-f", filepath.Join(dir, "dump.yaml"), "--webhooks", filepath.Join(dir, "proposal"), "--operation", "CREATE")
	if code != ExitRejected {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"1 newly failing", "no such key: replicaz"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
