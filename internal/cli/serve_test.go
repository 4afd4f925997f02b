package cli

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

func TestServeRefusesBadSettings(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"bad mirror entry", map[string]string{"ADMIT_IMAGE_MIRRORS": "bogus"}, []string{"serve"}, `ADMIT_IMAGE_MIRRORS[bogus]: Invalid value: "bogus": want REGISTRY=MIRROR`},
		{"unknown webhook", nil, []string{"serve", "--webhooks", "nope"}, `--webhooks: unknown webhook "nope": use image-mirrors, required-labels, namespace-protection`},
		{"nothing enabled", map[string]string{"ADMIT_NAMESPACE_PROTECTION": "off"}, []string{"serve"}, `no webhook is enabled (image-mirrors: set ADMIT_IMAGE_MIRRORS; required-labels: set ADMIT_REQUIRED_LABELS or ADMIT_REQUIRED_ANNOTATIONS; namespace-protection: unset ADMIT_NAMESPACE_PROTECTION (it is "off"))`},
		{"bad TLS version", nil, []string{"serve", "--tls-min-version", "1.1", "--cert-dir", t.TempDir()}, `--tls-min-version "1.1": use 1.2 or 1.3`},
		{"bad log level", nil, []string{"serve", "--log-level", "loud"}, `--log-level "loud"`},
		{"print-config without target", nil, []string{"serve", "--print-config"}, "--print-config needs --service and --namespace, or --url"},
		{"service without namespace", nil, []string{"serve", "--print-config", "--service", "admit"}, "--service needs --namespace"},
		{"cert-secret without service", nil, []string{"serve", "--cert-secret", "admit-tls", "--namespace", "admit-system"}, "--cert-secret needs --service and --namespace"},
		{"cert-secret without a cluster", nil, []string{"serve", "--cert-secret", "admit-tls", "--service", "admit", "--namespace", "admit-system", "--kubeconfig", "/nonexistent/kubeconfig"}, "--cert-secret: reaching the cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"ADMIT_IMAGE_MIRRORS", "ADMIT_REQUIRED_LABELS", "ADMIT_REQUIRED_ANNOTATIONS", "ADMIT_NAMESPACE_PROTECTION"} {
				t.Setenv(k, tt.env[k])
				if _, set := tt.env[k]; !set {
					t.Setenv(k, "")
				}
			}
			var out, errOut bytes.Buffer
			code := Run(context.Background(), tt.args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			if code != ExitBadInput || !strings.Contains(errOut.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut.String(), ExitBadInput, tt.want)
			}
		})
	}
}

func TestServePrintConfigEnablesWhatIsChosen(t *testing.T) {
	t.Setenv("ADMIT_IMAGE_MIRRORS", "docker.io=mirror.local/hub")
	t.Setenv("ADMIT_REQUIRED_LABELS", "ConfigMap=team")
	t.Setenv("ADMIT_REQUIRED_ANNOTATIONS", "")
	t.Setenv("ADMIT_NAMESPACE_PROTECTION", "")
	var out, errOut bytes.Buffer
	args := []string{"serve", "--print-config", "--service", "admit", "--namespace", "admit-system", "--cert-dir", t.TempDir(), "--webhooks", "required-labels,namespace-protection"}
	if code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var names []string
	for _, doc := range strings.Split(out.String(), "---\n") {
		var c struct {
			Kind     string `json:"kind"`
			Webhooks []struct {
				Name string `json:"name"`
			} `json:"webhooks"`
		}
		if err := yaml.Unmarshal([]byte(doc), &c); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.Webhooks {
			names = append(names, c.Kind+"/"+w.Name)
		}
	}
	want := []string{"ValidatingWebhookConfiguration/configmaps.required-labels.admit.dev", "ValidatingWebhookConfiguration/namespace-protection.admit.dev"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("webhooks (-want +got):\n%s", diff)
	}
	// The cert dir has no ca.crt: printed, but said.
	if !strings.Contains(errOut.String(), "ca.crt: the configurations have no caBundle") {
		t.Errorf("no warning about the missing caBundle: stderr %q", errOut.String())
	}
}

// TestPrintConfigLintsClean: what admit serve --print-config prints passes admit lint.
func TestPrintConfigLintsClean(t *testing.T) {
	t.Setenv("ADMIT_IMAGE_MIRRORS", "docker.io=mirror.local/hub")
	t.Setenv("ADMIT_REQUIRED_LABELS", "ConfigMap=team")
	t.Setenv("ADMIT_REQUIRED_ANNOTATIONS", "")
	t.Setenv("ADMIT_NAMESPACE_PROTECTION", "")
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"certs", "create", "--host", "admit.admit-system.svc", "--out", dir}, Streams{Out: &out, Err: &errOut}); code != ExitOK {
		t.Fatalf("certs create: %s", errOut.String())
	}
	for _, target := range [][]string{{"--service", "admit", "--namespace", "admit-system"}, {"--url", "https://admit.admit-system.svc:9443"}} {
		out.Reset()
		args := append([]string{"serve", "--print-config", "--cert-dir", dir}, target...)
		if code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		var lintOut bytes.Buffer
		code := Run(context.Background(), []string{"lint", "-"}, Streams{In: bytes.NewReader(out.Bytes()), Out: &lintOut, Err: &errOut})
		if code != ExitOK {
			t.Fatalf("admit lint of %v output: exit %d:\n%s", target, code, lintOut.String())
		}
	}
}

func TestDisabledWebhooks(t *testing.T) {
	all := []string{"image-mirrors", "required-labels", "namespace-protection"}
	tests := []struct {
		name   string
		env    map[string]string
		chosen []string
		want   []disabledWebhook
	}{
		{name: "the defaults: namespace protection only", chosen: all, want: []disabledWebhook{
			{"image-mirrors", "set ADMIT_IMAGE_MIRRORS"},
			{"required-labels", "set ADMIT_REQUIRED_LABELS or ADMIT_REQUIRED_ANNOTATIONS"},
		}},
		{name: "everything enabled", chosen: all,
			env: map[string]string{"ADMIT_IMAGE_MIRRORS": "docker.io=mirror.local/hub", "ADMIT_REQUIRED_LABELS": "Pod=team"}},
		{name: "left out of --webhooks", chosen: []string{"image-mirrors"},
			env:  map[string]string{"ADMIT_IMAGE_MIRRORS": "docker.io=mirror.local/hub"},
			want: []disabledWebhook{{"required-labels", "add it to --webhooks"}, {"namespace-protection", "add it to --webhooks"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &serveOptions{webhooks: tt.chosen}
			cfg, err := o.builtinConfig(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, disabledWebhooks(cfg, tt.chosen), cmp.AllowUnexported(disabledWebhook{})); diff != "" {
				t.Errorf("disabled webhooks (-want +got):\n%s", diff)
			}
		})
	}
}

// A port in use is the machine's state, not a bad flag: exit 1, as the help says; an address
// that could never be bound stays bad input.
func TestServeListenFailures(t *testing.T) {
	t.Setenv("ADMIT_IMAGE_MIRRORS", "")
	t.Setenv("ADMIT_REQUIRED_LABELS", "")
	t.Setenv("ADMIT_REQUIRED_ANNOTATIONS", "")
	t.Setenv("ADMIT_NAMESPACE_PROTECTION", "")
	certDir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"certs", "create", "--ip", "127.0.0.1", "--out", certDir}, Streams{Out: &out, Err: &errOut}); code != ExitOK {
		t.Fatalf("certs create: %s", errOut.String())
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		name string
		addr string
		code int
		want string
	}{
		{name: "a port in use", addr: busy.Addr().String(), code: 1, want: "listening on " + busy.Addr().String() + ": listen tcp " + busy.Addr().String() + ": bind: address already in use"},
		{name: "no port", addr: "127.0.0.1", code: ExitBadInput, want: `--addr "127.0.0.1": want HOST:PORT or :PORT`},
		{name: "not a port", addr: "127.0.0.1:http-ish", code: ExitBadInput, want: `--addr "127.0.0.1:http-ish": "http-ish" is not a TCP port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := []string{"serve", "--addr", tt.addr, "--health-addr", "", "--cert-dir", certDir}
			code := Run(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
			if code != tt.code || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut.String(), tt.code, tt.want)
			}
		})
	}
}
