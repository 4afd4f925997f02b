package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reviewRun is one admit review through the CLI.
type reviewRun struct {
	code        int
	out, errOut string
}

func runReview(t *testing.T, stdin string, args ...string) reviewRun {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), append([]string{"review", "--color", "never"}, args...), Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return reviewRun{code: code, out: out.String(), errOut: errOut.String()}
}

// writeFiles writes name -> content into a new directory and returns the paths by name.
func writeFiles(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// The request as kubectl sends it: the requesting user (--as, --as-group), a server-side dry
// run (--dry-run=server, or --dry-run alone), and field validation (--validate, strict by
// default, as kubectl sends since Kubernetes 1.27). A policy denies by what it reads of the
// request; each flag must be what changes the decision.
func TestReviewSendsWhatKubectlSends(t *testing.T) {
	files := writeFiles(t, map[string]string{
		"policy.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: request-checks}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - {expression: "request.userInfo.username != 'alice'", message: alice may not}
  - {expression: "!('interns' in request.userInfo.groups)", message: interns may not}
  - {expression: "!request.dryRun", message: no dry runs}
  - {expression: "request.options.fieldValidation == 'Strict' || request.options.fieldValidation == 'Warn'", message: validate fields}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: request-checks}
spec: {policyName: request-checks, validationActions: [Deny]}
`,
		"cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\n",
		"unknown.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\nextra: true\n",
	})
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{name: "as the default user", args: []string{"-f", files["cm.yaml"]}, wantCode: ExitOK, want: "ADMITTED: CREATE ConfigMap settings"},
		{name: "--as", args: []string{"-f", files["cm.yaml"], "--as", "alice"}, wantCode: ExitRejected, want: "alice may not"},
		{name: "--user, the first name of --as", args: []string{"-f", files["cm.yaml"], "--user", "alice"}, wantCode: ExitRejected, want: "alice may not"},
		{name: "--as-group", args: []string{"-f", files["cm.yaml"], "--as-group", "interns"}, wantCode: ExitRejected, want: "interns may not"},
		{name: "--dry-run=server", args: []string{"-f", files["cm.yaml"], "--dry-run=server"}, wantCode: ExitRejected, want: "no dry runs"},
		{name: "--dry-run alone", args: []string{"-f", files["cm.yaml"], "--dry-run"}, wantCode: ExitRejected, want: "no dry runs"},
		{name: "--dry-run=none", args: []string{"-f", files["cm.yaml"], "--dry-run=none"}, wantCode: ExitOK, want: "ADMITTED"},
		{name: "--validate=ignore", args: []string{"-f", files["cm.yaml"], "--validate=ignore"}, wantCode: ExitRejected, want: "validate fields"},
		{name: "an unknown field under the default strict validation", args: []string{"-f", files["unknown.yaml"]}, wantCode: ExitRejected,
			want: "REJECTED: CREATE ConfigMap settings (400 BadRequest)\n  ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"extra\""},
		{name: "an unknown field under --validate=warn", args: []string{"-f", files["unknown.yaml"], "--validate=warn"}, wantCode: ExitOK, want: "unknown field \"extra\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runReview(t, "", append([]string{"--webhooks", files["policy.yaml"]}, tt.args...)...)
			if got.code != tt.wantCode || !strings.Contains(got.out, tt.want) {
				t.Errorf("exit code %d, want %d; stdout lacks %q?\n%s\nstderr: %s", got.code, tt.wantCode, tt.want, got.out, got.errOut)
			}
		})
	}
}

// Every file of a repeated --namespaces counts: a namespace enforcing PodSecurity's restricted
// level in the first file still refuses a privileged pod when a second file is given.
func TestReviewNamespacesAccumulate(t *testing.T) {
	files := writeFiles(t, map[string]string{
		"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team}\nspec: {containers: [{name: app, image: nginx, securityContext: {privileged: true}}]}\n",
		"a.yaml":   "apiVersion: v1\nkind: Namespace\nmetadata: {name: team, labels: {pod-security.kubernetes.io/enforce: restricted}}\n",
		"b.yaml":   "apiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n",
	})
	hooks := serveQuickstart(t)
	got := runReview(t, "", "--webhooks", hooks, "-f", files["pod.yaml"], "--namespaces", files["a.yaml"], "--namespaces", files["b.yaml"])
	if got.code != ExitRejected || !strings.Contains(got.out, `violates PodSecurity "restricted:latest"`) {
		t.Errorf("exit code %d, want %d and the PodSecurity denial:\n%s\n%s", got.code, ExitRejected, got.out, got.errOut)
	}
}

// Configurations without a caBundle, as cert-manager's injector leaves them in a repository: the
// CA comes from --ca-file, the configurations from standard input.
func TestReviewCAFileAndWebhooksFromStdin(t *testing.T) {
	url, ca := startQuickstart(t)
	config, err := os.ReadFile(writeQuickstartConfig(t, url, nil))
	if err != nil {
		t.Fatal(err)
	}
	files := writeFiles(t, map[string]string{
		"ca.crt":  string(ca),
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {Bad_Key: v}\n",
	})
	got := runReview(t, string(config), "--webhooks", "-", "--ca-file", files["ca.crt"], "-f", files["cm.yaml"])
	if got.code != ExitRejected || !strings.Contains(got.out, "configmap-keys.quickstart.admit.dev") {
		t.Errorf("exit code %d, want %d, denied by the quickstart's webhook:\n%s\n%s", got.code, ExitRejected, got.out, got.errOut)
	}
	got = runReview(t, string(config), "--webhooks", "-", "-f", files["cm.yaml"])
	if got.code != ExitRejected || !strings.Contains(got.out, "failed calling webhook") {
		t.Errorf("without --ca-file: exit code %d, want the calls to fail on the unknown CA:\n%s\n%s", got.code, got.out, got.errOut)
	}
}

// -o json prints one object's result as it is (the contract scripts read), a List for several,
// and a List for one with --list; --summary prints a line per object and the totals.
func TestReviewOutputShapes(t *testing.T) {
	hooks := serveQuickstart(t)
	files := writeFiles(t, map[string]string{
		"good.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\ndata: {key: x}\n",
		"bad.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {Bad_Key: x}\n",
	})
	shape := func(args ...string) map[string]any {
		t.Helper()
		got := runReview(t, "", append([]string{"--webhooks", hooks, "-o", "json"}, args...)...)
		var v map[string]any
		if err := json.Unmarshal([]byte(got.out), &v); err != nil {
			t.Fatalf("%v: %s", err, got.out)
		}
		return v
	}
	if one := shape("-f", files["good.yaml"]); one["kind"] != nil || one["allowed"] != true {
		t.Errorf("one object: want the result itself, got %v", one)
	}
	for _, args := range [][]string{{"-f", files["good.yaml"], "--list"}, {"-f", files["good.yaml"], "-f", files["bad.yaml"]}} {
		list := shape(args...)
		if list["kind"] != "List" || list["apiVersion"] != "v1" {
			t.Errorf("%v: want a v1 List, got %v", args, list)
		}
	}

	got := runReview(t, "", "--webhooks", hooks, "--summary", "-f", files["good.yaml"], "-f", files["bad.yaml"])
	table, _, _ := strings.Cut(got.out, "\nAssumed of the cluster")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	var firstWords []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 {
			firstWords = append(firstWords, f[0])
		}
	}
	if diff := cmp.Diff([]string{"DECISION", "admitted", "REJECTED", "2"}, firstWords); diff != "" || got.code != ExitRejected {
		t.Errorf("--summary: exit code %d; lines (-want +got):\n%s\n%s", got.code, diff, got.out)
	}
	if !strings.Contains(got.out, "2 objects: 1 admitted (0 with warnings), 1 rejected") {
		t.Errorf("--summary lacks the totals:\n%s", got.out)
	}
}

// kube-apiserver's options that change admission are the user's to state, with its flags' names.
func TestReviewClusterOptions(t *testing.T) {
	hooks := serveQuickstart(t)
	files := writeFiles(t, map[string]string{
		"pod.yaml":   "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: app, image: nginx:1.27}]}\n",
		"ghost.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ghost}\ndata: {k: v}\n",
		"admission.yaml": `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: restricted, enforce-version: latest}
`,
	})
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{name: "a namespace the complete state does not have", args: []string{"-f", files["ghost.yaml"], "--complete-state"}, wantCode: ExitRejected,
			want: "REJECTED: CREATE ConfigMap c (404 NotFound)\n  namespaces \"ghost\" not found"},
		{name: "the same namespace assumed", args: []string{"-f", files["ghost.yaml"]}, wantCode: ExitOK, want: "ADMITTED"},
		{name: "a plugin enabled", args: []string{"-f", files["pod.yaml"], "--enable-admission-plugins", "AlwaysPullImages", "-v"}, wantCode: ExitOK,
			want: "AlwaysPullImages"},
		{name: "PodSecurity's defaults from an admission configuration file", args: []string{"-f", files["pod.yaml"], "--admission-control-config-file", files["admission.yaml"]},
			wantCode: ExitRejected, want: `violates PodSecurity "restricted:latest"`},
		{name: "the same with PodSecurity disabled", args: []string{"-f", files["pod.yaml"], "--admission-control-config-file", files["admission.yaml"], "--disable-admission-plugins", "PodSecurity"},
			wantCode: ExitOK, want: "ADMITTED"},
		{name: "a request body limit", args: []string{"-f", files["pod.yaml"], "--max-request-body-bytes", "100"}, wantCode: ExitRejected,
			want: "REJECTED: CREATE Pod web (413 RequestEntityTooLarge)\n  Request entity too large: limit is 100"},
		{name: "an unknown plugin", args: []string{"-f", files["pod.yaml"], "--enable-admission-plugins", "Nope"}, wantCode: ExitBadInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runReview(t, "", append([]string{"--webhooks", hooks}, tt.args...)...)
			if got.code != tt.wantCode || !strings.Contains(got.out, tt.want) {
				t.Errorf("exit code %d, want %d; stdout lacks %q?\n%s\nstderr: %s", got.code, tt.wantCode, tt.want, got.out, got.errOut)
			}
		})
	}
	if got := runReview(t, "", "--webhooks", hooks, "-f", files["pod.yaml"], "--enable-admission-plugins", "Nope"); !strings.Contains(got.errOut, `enable-admission-plugins plugin "Nope" is unknown`) {
		t.Errorf("an unknown plugin: stderr %q", got.errOut)
	}
	// Kubernetes' code holds --allow-privileged process-wide; this process already allows.
	if got := runReview(t, "", "--webhooks", hooks, "-f", files["pod.yaml"], "--allow-privileged=false"); got.code != ExitBadInput || !strings.Contains(got.errOut, "already runs Kubernetes' code with --allow-privileged=true") {
		t.Errorf("--allow-privileged=false in a process that allows: exit %d, stderr %q", got.code, got.errOut)
	}
}

// Subresources take what their handlers take: a Scale (or the changed Deployment) on the
// Deployment given with --old, an Eviction or a Binding on its pod.
func TestReviewSubresources(t *testing.T) {
	hooks := serveQuickstart(t)
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {app: web}}\nspec:\n  replicas: REPLICAS\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: app, image: nginx:1.27}]}\n"
	files := writeFiles(t, map[string]string{
		"stored.yaml":   strings.Replace(deployment, "REPLICAS", "2", 1),
		"changed.yaml":  strings.Replace(deployment, "REPLICAS", "5", 1),
		"scale.yaml":    "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web}\nspec: {replicas: 5}\n",
		"negative.yaml": "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web}\nspec: {replicas: -1}\n",
		"eviction.yaml": "apiVersion: policy/v1\nkind: Eviction\nmetadata: {name: web-abcde}\n",
	})
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{name: "a Scale on the stored Deployment", args: []string{"-f", files["scale.yaml"], "--old", files["stored.yaml"], "--subresource", "scale"},
			wantCode: ExitOK, want: `"kind": "Scale"`},
		{name: "the changed Deployment stands for its Scale", args: []string{"-f", files["changed.yaml"], "--old", files["stored.yaml"], "--subresource", "scale"},
			wantCode: ExitOK, want: `"selector": "app=web"`},
		{name: "the scale handler's validation", args: []string{"-f", files["negative.yaml"], "--old", files["stored.yaml"], "--subresource", "scale"},
			wantCode: ExitRejected, want: `Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`},
		{name: "a Scale without the Deployment", args: []string{"-f", files["scale.yaml"], "--subresource", "scale"}, wantCode: ExitBadInput},
		{name: "an Eviction", args: []string{"-f", files["eviction.yaml"], "--subresource", "eviction"}, wantCode: ExitOK, want: `"kind": "Eviction"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runReview(t, "", append([]string{"--webhooks", hooks, "-o", "json"}, tt.args...)...)
			if got.code != tt.wantCode || !strings.Contains(got.out, tt.want) {
				t.Errorf("exit code %d, want %d; stdout lacks %q?\n%s\nstderr: %s", got.code, tt.wantCode, tt.want, got.out, got.errOut)
			}
		})
	}
	got := runReview(t, "", "--webhooks", hooks, "-f", files["scale.yaml"], "--subresource", "scale")
	if !strings.Contains(got.errOut, "a Scale is written to the scale subresource of the object it belongs to: give that object as stored in --old") {
		t.Errorf("a Scale without the Deployment: stderr %q", got.errOut)
	}
}

// -f takes comma-separated files, as kubectl's -f does.
func TestReviewFilenamesCommaSeparated(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+strings.TrimSuffix(filepath.Base(p), ".yaml")+", labels: {team: x}}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"review", "-f", a + "," + b, "--summary", "--color", "never"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code != ExitOK || !strings.Contains(out.String(), "2 objects: 2 admitted") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
