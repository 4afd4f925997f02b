package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/internal/loopback"
	"github.com/admitkit/admit/webhook"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files")

// serveQuickstart serves the quickstart webhooks on loopback and writes their configurations to a
// file, for reviews against real webhooks.
func serveQuickstart(t *testing.T) string {
	t.Helper()
	url, ca := startQuickstart(t)
	return writeQuickstartConfig(t, url, ca)
}

// startQuickstart serves the quickstart's webhooks over TLS on loopback until the test ends, and
// returns their base URL and the CA that signed the server's certificate.
func startQuickstart(t *testing.T) (url string, caPEM []byte) {
	t.Helper()
	dir, caPEM := loopback.Certs(t, "review-test")
	registry, err := quickstart.NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	server, err := webhook.NewServer(webhook.ServerOptions{Addr: "127.0.0.1:0", Handler: registry,
		CertFile: filepath.Join(dir, certs.CertFileName), KeyFile: filepath.Join(dir, certs.KeyFileName)})
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return "https://" + server.Addr().String(), caPEM
}

// writeQuickstartConfig writes the quickstart's configurations calling url, with caBundle (none
// when nil), and returns the file.
func writeQuickstartConfig(t *testing.T, url string, caBundle []byte) string {
	t.Helper()
	registry, err := quickstart.NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := registry.ConfigurationsYAML(webhook.ConfigOptions{Name: "quickstart", ClientConfig: webhook.ClientConfig{URL: url, CABundle: caBundle}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "webhooks.yaml")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// durations vary between runs; golden files hold a placeholder.
var (
	jsonDuration = regexp.MustCompile(`"durationSeconds": [0-9.e-]+`)
	yamlDuration = regexp.MustCompile(`durationSeconds: [0-9.e-]+`)
	// In the table the DURATION column is as wide as its header (8) plus 2 of padding.
	textDuration = regexp.MustCompile(`  [0-9.]+(µs|ms|s) +`)
)

// What the chain chooses anew for every admission: uids, creation times, the service account
// token volume's random name.
var (
	uids        = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timestamps  = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`)
	tokenVolume = regexp.MustCompile(`kube-api-access-[a-z0-9]{5}`)
)

func normalize(s string) string {
	s = uids.ReplaceAllString(s, "<uid>")
	s = timestamps.ReplaceAllString(s, "<time>")
	s = tokenVolume.ReplaceAllString(s, "kube-api-access-<random>")
	s = jsonDuration.ReplaceAllString(s, `"durationSeconds": 0`)
	s = yamlDuration.ReplaceAllString(s, `durationSeconds: 0`)
	return textDuration.ReplaceAllString(s, "  <dur>     ")
}

func TestReviewGolden(t *testing.T) {
	hooks := serveQuickstart(t)
	pod := filepath.Join("..", "..", "examples", "quickstart", "cmd", "demo", "pod.yaml")
	configMap := filepath.Join("..", "..", "examples", "quickstart", "cmd", "demo", "configmap.yaml")
	tests := []struct {
		golden   string
		args     []string
		wantCode int
	}{
		{"pod.txt", []string{"review", "-f", pod, "--webhooks", hooks, "--color", "never"}, ExitOK},
		{"pod.json", []string{"review", "-f", pod, "--webhooks", hooks, "-o", "json"}, ExitOK},
		{"pod.yaml", []string{"review", "-f", pod, "--webhooks", hooks, "-o", "yaml"}, ExitOK},
		{"configmap.txt", []string{"review", "-f", configMap, "--webhooks", hooks, "--color", "never"}, ExitRejected},
		{"configmap.json", []string{"review", "-f", configMap, "--webhooks", hooks, "-o", "json"}, ExitRejected},
		{"configmap-delete.txt", []string{"review", "-f", configMap, "--webhooks", hooks, "--operation", "DELETE", "--color", "never"}, ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(context.Background(), tt.args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tt.wantCode, errOut.String())
			}
			got := normalize(out.String())
			file := filepath.Join("testdata", "review", tt.golden)
			if *updateGolden {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/cli -run TestReviewGolden -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Fatalf("%s (-want +got):\n%s", file, diff)
			}
		})
	}
}

func TestReviewBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pod := write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n")
	if err := os.MkdirAll(filepath.Join(dir, "hooks", "nested"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join("hooks", "nested", "policies.yaml"), "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: p, validationActions: [Deny]}\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"review", "-f", filepath.Join(dir, "nope.yaml")}, "no such file or directory"},
		{"bad YAML", []string{"review", "-f", write("bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata: [\n")}, "bad.yaml:"},
		{"unknown kind", []string{"review", "-f", write("foo.yaml", "apiVersion: v1\nkind: Foo\nmetadata: {name: x}\n")}, `no resource for kind "Foo" in group "" version "v1"` + "\n"},
		{"no objects", []string{"review", "-f", write("empty.yaml", "# nothing\n")}, "empty.yaml holds no objects"},
		{"no files", []string{"review"}, "nothing to review"},
		{"empty directory", []string{"review", "-f", t.TempDir()}, ": no *.yaml, *.yml or *.json files in it\n"},
		{"old without its object", []string{"review", "-f", pod, "--old", write("other.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: other}\n")}, "other.yaml:1: Pod default/other is in --old but not among the objects to review"},
		{"old twice", []string{"review", "-f", pod, "--old", write("twice.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")}, "twice.yaml:5: Pod default/p is in --old twice (first at "},
		{"old for DELETE", []string{"review", "-f", pod, "--operation", "DELETE", "--old", pod}, "--old: for an UPDATE only, not DELETE"},
		{"no name", []string{"review", "-f", write("noname.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {}\n")}, "the object needs metadata.name or metadata.generateName"},
		{"a field of the wrong type", []string{"review", "-f", write("deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: \"3\"}\n")},
			`deploy.yaml:1: Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{"an old object of the wrong type", []string{"review", "-f", pod, "--old", write("old.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: [a]}\n")},
			`old.yaml:1: Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string`},
		{"update without old", []string{"review", "-f", pod, "--operation", "UPDATE"}, "an UPDATE needs the existing object: give --old"},
		{"bad operation", []string{"review", "-f", pod, "--operation", "PATCH"}, `operation "PATCH": use CREATE, UPDATE, DELETE or CONNECT`},
		{"bad subresource", []string{"review", "-f", pod, "--subresource", "nope"}, `subresource "nope": pods has no such subresource`},
		{"invalid configuration", []string{"review", "-f", pod, "--webhooks", write("hooks.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v}
webhooks:
- name: a.b.c
  timeoutSeconds: 31
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://127.0.0.1:1/x"}
`)}, "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"},
		{"policies with --webhooks-only", []string{"review", "-f", pod, "--webhooks-only", "--webhooks", filepath.Join("..", "..", "examples", "policies", "policies.yaml")},
			"webhooks-only calls webhooks alone, but the input has 4 admission policies and bindings (the first at ../../examples/policies/policies.yaml:3)"},
		{"an invalid policy", []string{"review", "-f", pod, "--webhooks", write("policy.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  failurePolicy: Sometimes
  validations: [{expression: "true"}]
`)}, `policy.yaml:1: ValidatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: [spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore", spec.matchConstraints: Required value]`},
		{"a policy of a version not served", []string{"review", "-f", pod, "--webhooks", write("beta.yaml", "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\n")},
			`beta.yaml:1: no matches for kind "ValidatingAdmissionPolicyBinding" in version "admissionregistration.k8s.io/v1beta1"`},
		{"a service without --resolve", []string{"review", "-f", pod, "--resolve", "other/svc=127.0.0.1:1", "--webhooks", write("service.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v}
webhooks:
- name: a.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {service: {name: webhook, namespace: example-system}}
`)}, `webhook "a.example.com" of ValidatingWebhookConfiguration "v" calls service example-system/webhook: give --resolve example-system/webhook=HOST:PORT`},
		{"bad output", []string{"review", "-f", pod, "-o", "xml"}, `unknown output format "xml"`},
		{"webhooks in subdirectories without -R", []string{"review", "-f", pod, "--webhooks", filepath.Join(dir, "hooks")}, "--webhooks: " + filepath.Join(dir, "hooks") + ": no *.yaml, *.yml or *.json files in it; its subdirectories are read with -R"},
		{"webhooks from a file of ordinary objects", []string{"review", "-f", pod, "--webhooks", pod}, "--webhooks " + pod + ": no webhook configuration or admission policy among its 1 object"},
		{"webhooks from an empty directory", []string{"review", "-f", pod, "--webhooks", t.TempDir()}, ": no *.yaml, *.yml or *.json files in it\n"},
		{"a client-side dry run", []string{"review", "-f", pod, "--dry-run=client"}, "--dry-run=client: a client-side dry run sends nothing to the apiserver"},
		{"a dry run of another kind", []string{"review", "-f", pod, "--dry-run=maybe"}, `--dry-run "maybe": must be "none", "server" or "client"`},
		{"a validation of another kind", []string{"review", "-f", pod, "--validate=loose"}, `--validate "loose": must be "strict" (or "true"), "warn" or "ignore" (or "false")`},
		{"--as and --user", []string{"review", "-f", pod, "--as", "a", "--user", "b"}, "--as and --user are one flag: give one of them"},
		{"--kubeconfig twice", []string{"review", "-f", pod, "--kubeconfig", "a", "--kubeconfig", "b"}, `given twice ("a", then "b"): it takes one value`},
		{"--list without a structured output", []string{"review", "-f", pod, "--list"}, "--list prints a List of -o json or yaml"},
		{"standard input twice", []string{"review", "-f", "-", "--webhooks", "-"}, `"-" (standard input) is given more than once`},
		{"a private key as the CA", []string{"review", "-f", pod, "--ca-file", write("key.pem", "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"), "--webhooks", filepath.Join("..", "..", "examples", "policies", "policies.yaml")},
			"a private key must never be part of a CA bundle"},
		{"bad resolve", []string{"review", "-f", pod, "--resolve", "nonsense"}, `--resolve "nonsense": want NAMESPACE/SERVICE=HOST:PORT`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(context.Background(), tt.args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			if code != ExitBadInput {
				t.Fatalf("exit code %d, want %d; stdout %s stderr %s", code, ExitBadInput, out.String(), errOut.String())
			}
			if !strings.Contains(errOut.String(), tt.want) {
				t.Fatalf("stderr %q does not contain %q", errOut.String(), tt.want)
			}
		})
	}
}

// TestReadmeFirstCommand runs the README's first command: the built-in webhooks, in-process, on
// the demo Deployment.
func TestReadmeFirstCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"review", "-f", filepath.Join("..", "..", "builtin", "demo", "deployment.yaml"), "--color", "never"}
	if code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != ExitOK {
		t.Fatalf("exit code %d; stderr %s", code, errOut.String())
	}
	for _, want := range []string{"deployments.apps.image-mirrors.admit.dev", "patched", "ADMITTED: CREATE Deployment web", "+      - image: mirror.local/hub/library/nginx:1.27"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	args[2] = filepath.Join("..", "..", "builtin", "demo", "configmap.yaml")
	out.Reset()
	if code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != ExitRejected {
		t.Fatalf("demo ConfigMap: exit code %d, want %d", code, ExitRejected)
	}
}

// TestReviewManyObjects: every object given is reviewed in its own admission, in input order,
// and the exit code is the worst outcome — a rejected object is never hidden by an admitted one.
func TestReviewManyObjects(t *testing.T) {
	hooks := serveQuickstart(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const (
		rejectedConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {Bad_Key: x}\n"
		goodConfigMap     = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\ndata: {key: x}\n"
		pod               = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: app, image: nginx}]}\n"
	)
	rejected := write("rejected.yaml", rejectedConfigMap)
	good := write("good.yaml", goodConfigMap)
	write("tree/a.yaml", pod)
	write("tree/sub/b.yaml", goodConfigMap)
	write("tree/notes.txt", "not a manifest")
	list := write("list.yaml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: one}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: two, namespace: other}\n")
	unknown := write("unknown.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")

	type entry struct {
		Source    string `json:"source"`
		Operation string `json:"operation"`
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Allowed   *bool  `json:"allowed"`
		Error     string `json:"error"`
	}
	allowed, denied := true, false
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		want     []entry
	}{
		{"two files, the first rejected", []string{"-f", rejected, "-f", good}, "", ExitRejected, []entry{
			{Source: rejected + ":1", Operation: "CREATE", Kind: "ConfigMap", Namespace: "default", Name: "bad", Allowed: &denied},
			{Source: good + ":1", Operation: "CREATE", Kind: "ConfigMap", Namespace: "default", Name: "good", Allowed: &allowed},
		}},
		{"multi-document stdin, as from kustomize build", []string{"-f", "-"}, goodConfigMap + "---\n" + rejectedConfigMap, ExitRejected, []entry{
			{Source: "<stdin>:1", Operation: "CREATE", Kind: "ConfigMap", Namespace: "default", Name: "good", Allowed: &allowed},
			{Source: "<stdin>:6", Operation: "CREATE", Kind: "ConfigMap", Namespace: "default", Name: "bad", Allowed: &denied},
		}},
		{"a directory, recursively, and positional arguments", []string{"-R", filepath.Join(dir, "tree"), list}, "", ExitOK, []entry{
			{Source: filepath.Join(dir, "tree", "a.yaml") + ":1", Operation: "CREATE", Kind: "Pod", Namespace: "default", Name: "web", Allowed: &allowed},
			{Source: filepath.Join(dir, "tree", "sub", "b.yaml") + ":1", Operation: "CREATE", Kind: "ConfigMap", Namespace: "default", Name: "good", Allowed: &allowed},
			{Source: list + ":4", Operation: "CREATE", Kind: "ConfigMap", Namespace: "default", Name: "one", Allowed: &allowed},
			{Source: list + ":7", Operation: "CREATE", Kind: "ConfigMap", Namespace: "other", Name: "two", Allowed: &allowed},
		}},
		{"-n names the namespace of objects without one; another namespace is an error, as in kubectl", []string{"-n", "team", "-f", good, "-f", list}, "", ExitBadInput, []entry{
			{Source: good + ":1", Operation: "CREATE", Kind: "ConfigMap", Namespace: "team", Name: "good", Allowed: &allowed},
			{Source: list + ":4", Operation: "CREATE", Kind: "ConfigMap", Namespace: "team", Name: "one", Allowed: &allowed},
			{Source: list + ":7", Kind: "ConfigMap", Namespace: "other", Name: "two",
				Error: list + `:7: the namespace from the provided object "other" does not match the namespace "team". You must pass '--namespace=other' to perform this operation.`},
		}},
		{"an object that cannot be reviewed does not stop the others", []string{"-f", unknown, "-f", rejected}, "", ExitBadInput, []entry{
			{Source: unknown + ":1", Kind: "Widget", Name: "w", Error: unknown + `:1: no resource for kind "Widget" in group "example.com" version "v1" (custom kinds need --crds)`},
			{Source: rejected + ":1", Operation: "CREATE", Kind: "ConfigMap", Namespace: "default", Name: "bad", Allowed: &denied},
		}},
		{"old objects pair by kind, namespace and name", []string{"-f", good, "-f", rejected, "--old", write("old/good.yaml", goodConfigMap)}, "", ExitRejected, []entry{
			{Source: good + ":1", Operation: "UPDATE", Kind: "ConfigMap", Namespace: "default", Name: "good", Allowed: &allowed},
			{Source: rejected + ":1", Operation: "CREATE", Kind: "ConfigMap", Namespace: "default", Name: "bad", Allowed: &denied},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"review", "--webhooks", hooks, "-o", "json"}, tt.args...)
			code := Run(context.Background(), args, Streams{In: strings.NewReader(tt.stdin), Out: &out, Err: &errOut})
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tt.wantCode, errOut.String())
			}
			var got struct {
				APIVersion string  `json:"apiVersion"`
				Kind       string  `json:"kind"`
				Items      []entry `json:"items"`
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Kind != "List" || got.APIVersion != "v1" {
				t.Fatalf("output is not a v1 List (%v):\n%s", err, out.String())
			}
			if diff := cmp.Diff(tt.want, got.Items); diff != "" {
				t.Errorf("reviews (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("text output has a block per object and a summary", func(t *testing.T) {
		var out, errOut bytes.Buffer
		args := []string{"review", "--webhooks", hooks, "--color", "never", "-f", rejected, "-f", good, "-f", unknown}
		if code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != ExitBadInput {
			t.Fatalf("exit code %d, want %d", code, ExitBadInput)
		}
		for _, want := range []string{
			"=== CREATE ConfigMap default/bad (" + rejected + ":1)\n",
			"REJECTED: CREATE ConfigMap bad (422 Invalid)",
			"=== CREATE ConfigMap default/good (" + good + ":1)\n",
			"ADMITTED: CREATE ConfigMap good",
			"=== " + unknown + ":1\nNOT REVIEWED: ",
			"\n3 objects: 1 admitted, 1 rejected, 1 not reviewed\n",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
		if !strings.Contains(errOut.String(), `no resource for kind "Widget"`) {
			t.Errorf("stderr does not say why an object was not reviewed: %q", errOut.String())
		}
	})
}

// TestReviewChain: the admission around the webhooks — defaults, the built-in plugins reading
// the --cluster state, custom resources of CRDs in the same input — and --webhooks-only
// without it.
func TestReviewChain(t *testing.T) {
	hooks := serveQuickstart(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pod := write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team}\nspec: {containers: [{name: app, image: nginx}]}\n")
	state := write("state.yaml", `apiVersion: v1
kind: Namespace
metadata: {name: team, labels: {env: prod}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team}
spec: {limits: [{type: Container, defaultRequest: {cpu: 250m}}]}
`)
	build := write("build.yaml", `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, default: 1}}}}}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {}
`)
	review := func(args ...string) map[string]any {
		t.Helper()
		var out, errOut bytes.Buffer
		code := Run(context.Background(), append([]string{"review", "--webhooks", hooks, "-o", "json"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
		if code != ExitOK {
			t.Fatalf("exit code %d; stderr %s", code, errOut.String())
		}
		var res map[string]any
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		if items, ok := res["items"].([]any); ok && res["kind"] == "List" {
			return items[len(items)-1].(map[string]any)
		}
		return res
	}
	container := func(res map[string]any) map[string]any {
		return res["object"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	}

	got := review("-f", pod, "--cluster", state)
	if cpu := container(got)["resources"].(map[string]any)["requests"].(map[string]any)["cpu"]; cpu != "250m" {
		t.Errorf("the LimitRange of --cluster gave cpu request %v, want 250m", cpu)
	}
	if container(got)["imagePullPolicy"] != "Always" {
		t.Errorf("imagePullPolicy %v, want the default for an untagged image", container(got)["imagePullPolicy"])
	}
	for _, a := range got["assumed"].([]any) {
		if line := a.(string); strings.HasPrefix(line, "namespaces ") && strings.Contains(line, "team") {
			t.Errorf("the namespace --cluster gives is said to be assumed: %s", line)
		}
	}

	got = review("-f", pod, "--webhooks-only")
	if _, ok := container(got)["imagePullPolicy"]; ok {
		t.Errorf("--webhooks-only defaulted the pod: %v", container(got))
	}

	got = review("-f", build)
	if size := got["object"].(map[string]any)["spec"].(map[string]any)["size"]; size != float64(1) {
		t.Errorf("the custom resource's schema default: size %v, want 1", size)
	}
}

// TestReviewPoliciesAmongObjects: policies given with -f are reviewed as objects, and a note says
// they were not applied to the others.
func TestReviewPoliciesAmongObjects(t *testing.T) {
	policies := filepath.Join("..", "..", "examples", "policies", "policies.yaml")
	batch := filepath.Join("..", "..", "examples", "policies", "batch.yaml")
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"review", "-f", policies, "-f", batch, "-o", "json"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code != ExitOK {
		t.Fatalf("exit code %d, want %d (the built-in webhooks admit all five objects)\nstderr: %s", code, ExitOK, errOut.String())
	}
	if want := "note: the objects include 4 admission policies and bindings, reviewed as objects"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q does not contain %q", errOut.String(), want)
	}
}

// --summary says which objects were admitted without a webhook's answer: a webhook that fails
// open leaves the object admitted, and its one line must not read as a clean admission.
func TestReviewSummaryShowsFailedOpen(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.yaml")
	// Nothing listens on port 1 of loopback: every call fails, and failurePolicy Ignore admits.
	if err := os.WriteFile(hooks, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: down}
webhooks:
- name: down.example.com
  clientConfig: {url: "https://127.0.0.1:1/validate"}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  failurePolicy: Ignore
  sideEffects: None
  admissionReviewVersions: [v1]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	object := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(object, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"review", "-f", object, "--webhooks", hooks, "--summary", "--color", "never"}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"1 webhook failed open: down.example.com: failed calling webhook", "1 object: 1 admitted (0 with warnings, 1 with webhooks or policies that failed open), 0 rejected"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out.String())
		}
	}
}

// A kustomize base is kustomize's input, not what is applied: admit review refuses its files
// with the command that builds them, as lint and audit do, instead of reviewing placeholders.
func TestReviewRefusesKustomizeBases(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"base/kustomization.yaml": "namespace: shop\nnamePrefix: prod-\nresources: [settings.yaml]\n",
		"base/settings.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"review", "-R", "-f", dir}, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	want := filepath.Join(dir, "base") + ` holds kustomize's input, not what is applied: kustomize build renames the objects (namePrefix "prod-", nameSuffix ""); give what kustomize builds from the overlay you apply: kustomize build OVERLAY | admit review -f -`
	if code != ExitBadInput || !strings.Contains(errOut.String(), want) || out.Len() > 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out.String(), errOut.String(), want)
	}
}

// A kind nothing serves gets what is likely said: a typo's near kind, a removed version's
// served one, a custom kind's CRD. --skip-missing-crds skips custom kinds without their CRD,
// counted and listed, as kubeconform skips kinds without a schema; typos stay errors.
func TestReviewUnknownKinds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	typo := write("typo.yaml", "apiVersion: v1\nkind: ConfigMapp\nmetadata: {name: a}\n")
	removed := write("removed.yaml", "apiVersion: apps/v2\nkind: Deployment\nmetadata: {name: b}\n")
	custom := write("custom.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: c}\n")
	good := write("good.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, labels: {team: a}}\n")
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), append([]string{"review", "--color", "never"}, args...), Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
		return code, out.String(), errOut.String()
	}
	for _, tt := range []struct{ file, want string }{
		{typo, typo + `:1: no resource for kind "ConfigMapp" in group "" version "v1" (did you mean ConfigMap (v1)?)`},
		{removed, removed + `:1: no resource for kind "Deployment" in group "apps" version "v2" (served in version v1)`},
		{custom, custom + `:1: no resource for kind "Widget" in group "example.com" version "v1" (custom kinds need --crds)`},
	} {
		if code, _, stderr := run("-f", tt.file); code != ExitBadInput || !strings.Contains(stderr, tt.want) {
			t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
		}
	}
	code, stdout, _ := run("-f", custom, "-f", good, "--skip-missing-crds", "--summary")
	if code != ExitOK || !strings.Contains(stdout, "skipped") || !strings.Contains(stdout, "2 objects: 1 admitted (0 with warnings), 0 rejected, 1 skipped") {
		t.Errorf("--skip-missing-crds: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := run("-f", typo, "--skip-missing-crds"); code != ExitBadInput || !strings.Contains(stderr, "did you mean ConfigMap") {
		t.Errorf("--skip-missing-crds on a typo: exit %d, stderr %q; want 2", code, stderr)
	}
}
