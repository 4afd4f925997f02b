package builtin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// env is a fake environment for ConfigFromEnv.
type env map[string]string

func (e env) lookup(name string) (string, bool) {
	value, ok := e[name]
	return value, ok
}

func defaultProtection() *ProtectionSpec {
	return &ProtectionSpec{LabelKey: "admit.dev/protected", LabelValue: "true"}
}

func TestConfigFromEnv(t *testing.T) {
	configMap := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	tests := []struct {
		name string
		env  env
		want Config
	}{
		{"nothing set: namespace protection only", env{}, Config{NamespaceProtection: defaultProtection()}},
		{"empty values are unset", env{EnvImageMirrors: " ", EnvRequiredLabels: "", EnvNamespaceProtection: ""}, Config{NamespaceProtection: defaultProtection()}},
		{
			name: "mirrors, with spaces, a folded line and a trailing comma",
			env:  env{EnvImageMirrors: "docker.io=mirror.local/hub,\n  quay.io = mirror.local/quay/ ,", EnvNamespaceProtection: "off"},
			want: Config{ImageMirrors: &MirrorSpec{Mirrors: []Mirror{{"docker.io", "mirror.local/hub"}, {"quay.io", "mirror.local/quay"}}}},
		},
		{
			name: "docker hub under another name",
			env:  env{EnvImageMirrors: "index.docker.io=mirror.local:5000", EnvNamespaceProtection: "false"},
			want: Config{ImageMirrors: &MirrorSpec{Mirrors: []Mirror{{"docker.io", "mirror.local:5000"}}}},
		},
		{
			name: "labels and annotations merge per kind",
			env: env{
				EnvRequiredLabels:      "ConfigMap=team, Deployment=team;app.kubernetes.io/name;",
				EnvRequiredAnnotations: "Deployment.apps=owner,Widget.v1.example.com/widgets=owner;example.com/cost-center",
			},
			want: Config{
				RequiredMetadata: &RequiredMetadataSpec{Kinds: []KindRequirement{
					{Kind: configMap, Resource: "configmaps", Labels: []string{"team"}},
					{Kind: deployment, Resource: "deployments", Labels: []string{"team", "app.kubernetes.io/name"}, Annotations: []string{"owner"}},
					{Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Resource: "widgets", Annotations: []string{"owner", "example.com/cost-center"}},
				}},
				NamespaceProtection: defaultProtection(),
			},
		},
		{
			name: "kinds in their preferred version, and a kind two groups serve",
			env:  env{EnvRequiredLabels: "HorizontalPodAutoscaler=team,Event.core=team,Event.events.k8s.io=team,Namespace=team", EnvNamespaceProtection: "on"},
			want: Config{
				RequiredMetadata: &RequiredMetadataSpec{Kinds: []KindRequirement{
					{Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, Resource: "horizontalpodautoscalers", Labels: []string{"team"}},
					{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Event"}, Resource: "events", Labels: []string{"team"}},
					{Kind: schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}, Resource: "events", Labels: []string{"team"}},
					{Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Resource: "namespaces", Labels: []string{"team"}},
				}},
				NamespaceProtection: defaultProtection(),
			},
		},
		{
			name: "a custom protection label",
			env:  env{EnvNamespaceProtection: "example.com/keep=yes"},
			want: Config{NamespaceProtection: &ProtectionSpec{LabelKey: "example.com/keep", LabelValue: "yes"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigFromEnv(tt.env.lookup)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigFromEnvErrors(t *testing.T) {
	tests := []struct {
		name string
		env  env
		want []string // the lines after the first, in order
	}{
		{"an entry without =", env{EnvImageMirrors: "docker.io"}, []string{
			`ADMIT_IMAGE_MIRRORS[docker.io]: Invalid value: "docker.io": want REGISTRY=MIRROR, e.g. docker.io=mirror.local/hub`,
		}},
		{"bad mirrors, all reported", env{EnvImageMirrors: "docker.io=hub, quay.io=mirror.local/quay:5000"}, []string{
			`ADMIT_IMAGE_MIRRORS[docker.io=hub].mirror: Invalid value: "hub": must start with a registry host (a name with a "." or a ":", or "localhost"), e.g. mirror.local/hub`,
			`ADMIT_IMAGE_MIRRORS[quay.io=mirror.local/quay:5000].mirror: Invalid value: "mirror.local/quay:5000": path component "quay:5000" must be lower-case letters and digits, separated by '.', '_', '__' or dashes (a mirror has no tag or digest)`,
		}},
		{"a registry twice", env{EnvImageMirrors: "docker.io=mirror.local/a,index.docker.io=mirror.local/b"}, []string{
			`ADMIT_IMAGE_MIRRORS[index.docker.io=mirror.local/b].registry: Invalid value: "docker.io": is listed twice: ADMIT_IMAGE_MIRRORS[docker.io=mirror.local/a] mirrors it already`,
		}},
		{"a chain of mirrors", env{EnvImageMirrors: "docker.io=quay.io/hub,quay.io=mirror.local/quay"}, []string{
			`ADMIT_IMAGE_MIRRORS[docker.io=quay.io/hub].mirror: Invalid value: "quay.io/hub": is on registry quay.io, which is itself mirrored by ADMIT_IMAGE_MIRRORS[quay.io=mirror.local/quay]: images would be rewritten twice`,
		}},
		{"separators only", env{EnvImageMirrors: " , ,"}, []string{
			`ADMIT_IMAGE_MIRRORS: Required value: at least one registry and its mirror, e.g. docker.io=mirror.local/hub`,
		}},
		{"kinds and keys", env{EnvRequiredLabels: "Deploymnet=team,configmap=team,Event=x,ConfigMap=team,ConfigMap=owner,Secret=,Pod=bad key,Service,Widget.v1/widgets=x,Widget.v1.example.com/Widgets=x,9Widget.v1.example.com/widgets=x"}, []string{
			`ADMIT_REQUIRED_LABELS[Deploymnet=team]: Invalid value: "Deploymnet": no kind Deploymnet in Kubernetes v1.36.3; a custom kind is written Kind.version.group/resource, e.g. Widget.v1.example.com/widgets`,
			`ADMIT_REQUIRED_LABELS[configmap=team]: Invalid value: "configmap": no kind configmap (kinds are case-sensitive): did you mean ConfigMap?`,
			`ADMIT_REQUIRED_LABELS[Event=x]: Invalid value: "Event": kind Event is served by several groups: name one of Event.core, Event.events.k8s.io`,
			`ADMIT_REQUIRED_LABELS[ConfigMap=owner]: Invalid value: "ConfigMap": is listed already, in ADMIT_REQUIRED_LABELS[ConfigMap=team]: put all its label keys in one entry, separated by ';'`,
			`ADMIT_REQUIRED_LABELS[Secret=]: Required value: at least one label key after '='`,
			`ADMIT_REQUIRED_LABELS[Pod=bad key]: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			`ADMIT_REQUIRED_LABELS[Service]: Invalid value: "Service": want KIND=KEY[;KEY]..., e.g. ConfigMap=team;app.kubernetes.io/name`,
			`ADMIT_REQUIRED_LABELS[Widget.v1/widgets=x]: Invalid value: "Widget.v1/widgets": want Kind.version.group/resource, e.g. Widget.v1.example.com/widgets`,
			`ADMIT_REQUIRED_LABELS[Widget.v1.example.com/Widgets=x]: Invalid value: "Widget.v1.example.com/Widgets": resource "Widgets": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			`ADMIT_REQUIRED_LABELS[9Widget.v1.example.com/widgets=x]: Invalid value: "9Widget.v1.example.com/widgets": kind "9Widget" must be a letter followed by letters and digits, e.g. Widget`,
		}},
		{"annotations: separators only", env{EnvRequiredAnnotations: ",,"}, []string{
			`ADMIT_REQUIRED_ANNOTATIONS: Required value: at least one KIND=KEY entry`,
		}},
		{"a kind twice in annotations", env{EnvRequiredAnnotations: "ConfigMap=a,ConfigMap=b"}, []string{
			`ADMIT_REQUIRED_ANNOTATIONS[ConfigMap=b]: Invalid value: "ConfigMap": is listed already, in ADMIT_REQUIRED_ANNOTATIONS[ConfigMap=a]: put all its annotation keys in one entry, separated by ';'`,
		}},
		{"one resource in two versions: the checks Register makes", env{EnvRequiredLabels: "Widget.v1.example.com/widgets=a,Widget.v2.example.com/widgets=b"}, []string{
			`requiredMetadata.kinds[1].resource: Invalid value: "widgets": is listed twice: requiredMetadata.kinds[0] requires it already`,
		}},
		{"protection: not a label", env{EnvNamespaceProtection: "yes-please"}, []string{
			`ADMIT_NAMESPACE_PROTECTION: Invalid value: "yes-please": want KEY=VALUE (e.g. admit.dev/protected=true), "on" or "off"`,
		}},
		{"protection: no value", env{EnvNamespaceProtection: "example.com/keep="}, []string{
			`ADMIT_NAMESPACE_PROTECTION: Invalid value: "example.com/keep=": want KEY=VALUE (e.g. admit.dev/protected=true), "on" or "off"`,
		}},
		{"protection: bad value", env{EnvNamespaceProtection: "a/b=not ok"}, []string{
			`ADMIT_NAMESPACE_PROTECTION.labelValue: Invalid value: "not ok": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		}},
		{"every variable wrong at once", env{EnvImageMirrors: "docker.io", EnvRequiredLabels: "Nope=x", EnvNamespaceProtection: "maybe"}, []string{
			`ADMIT_IMAGE_MIRRORS[docker.io]: Invalid value: "docker.io": want REGISTRY=MIRROR, e.g. docker.io=mirror.local/hub`,
			`ADMIT_REQUIRED_LABELS[Nope=x]: Invalid value: "Nope": no kind Nope in Kubernetes v1.36.3; a custom kind is written Kind.version.group/resource, e.g. Widget.v1.example.com/widgets`,
			`ADMIT_NAMESPACE_PROTECTION: Invalid value: "maybe": want KEY=VALUE (e.g. admit.dev/protected=true), "on" or "off"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ConfigFromEnv(tt.env.lookup)
			if err == nil {
				t.Fatalf("got %+v, want an error", cfg)
			}
			lines := strings.Split(err.Error(), "\n")
			if lines[0] != "invalid built-in webhook settings in the environment:" {
				t.Errorf("first line %q", lines[0])
			}
			if diff := cmp.Diff(tt.want, lines[1:]); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigFromEnvWithoutLookup(t *testing.T) {
	if _, err := ConfigFromEnv(nil); err == nil || !strings.Contains(err.Error(), "no environment lookup function") {
		t.Fatalf("ConfigFromEnv(nil) = %v, want an error", err)
	}
}

// What ConfigFromEnv returns registers as it is.
func TestConfigFromEnvRegisters(t *testing.T) {
	cfg, err := ConfigFromEnv(env{
		EnvImageMirrors:        "docker.io=mirror.local/hub",
		EnvRequiredLabels:      "ConfigMap=team",
		EnvRequiredAnnotations: "Widget.v1.example.com/widgets=owner",
	}.lookup)
	if err != nil {
		t.Fatal(err)
	}
	hooks := registered(t, cfg)
	for _, name := range []string{"pods.image-mirrors.admit.dev", "configmaps.required-labels.admit.dev", "widgets.example.com.required-labels.admit.dev", NamespaceProtectionWebhook} {
		if _, ok := hooks[name]; !ok {
			t.Errorf("webhook %q is not registered", name)
		}
	}
}
