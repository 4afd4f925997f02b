package extension_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/extension"
)

func validExtension(name string) extension.Extension {
	return extension.Extension{
		Name:         name,
		Hook:         upgradeHook(),
		ClientConfig: extension.ClientConfig{URL: "https://127.0.0.1:9443/upgrade"},
	}
}

func TestRegisterValidation(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*extension.Extension)
		want   string // the whole error after "registering extensions: "
	}{{
		name:   "bad name",
		modify: func(e *extension.Extension) { e.Name = "Upgrade_Hook" },
		want:   `extensions[0].name: Invalid value: "Upgrade_Hook": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
	}, {
		name:   "incomplete hook",
		modify: func(e *extension.Extension) { e.Hook = extension.Hook{Name: "BeforeUpgrade"} },
		want:   `extensions[0].hook.group: Required value: a hook belongs to an API group; extensions[0].hook.version: Required value: a hook has an API version`,
	}, {
		name: "hook parts not safe in a URL path",
		modify: func(e *extension.Extension) {
			e.Hook = extension.Hook{Group: "hooks.io", Version: "V 1", Name: "Before-Upgrade"}
		},
		want: `extensions[0].hook.version: Invalid value: "V 1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'); ` +
			`extensions[0].hook.name: Invalid value: "Before-Upgrade": must be letters and digits, starting with a letter (e.g. BeforeClusterUpgrade)`,
	}, {
		name:   "no client config",
		modify: func(e *extension.Extension) { e.ClientConfig = extension.ClientConfig{} },
		want:   `extensions[0].clientConfig: Required value: exactly one of url and service is required`,
	}, {
		name: "url and service",
		modify: func(e *extension.Extension) {
			e.ClientConfig.Service = &extension.ServiceReference{Namespace: "hooks", Name: "upgrader"}
		},
		want: `extensions[0].clientConfig: Invalid value: "url and service": exactly one of url and service may be set`,
	}, {
		name:   "http url",
		modify: func(e *extension.Extension) { e.ClientConfig.URL = "http://127.0.0.1/x" },
		want:   `extensions[0].clientConfig.url: Invalid value: "http://127.0.0.1/x": scheme must be https, got "http"`,
	}, {
		name:   "url with user, query and fragment",
		modify: func(e *extension.Extension) { e.ClientConfig.URL = "https://me@127.0.0.1/x?a=b#top" },
		want: `extensions[0].clientConfig.url: Invalid value: "https://me@127.0.0.1/x?a=b#top": user information is not allowed; ` +
			`extensions[0].clientConfig.url: Invalid value: "https://me@127.0.0.1/x?a=b#top": query parameters are not allowed; ` +
			`extensions[0].clientConfig.url: Invalid value: "https://me@127.0.0.1/x?a=b#top": fragments are not allowed`,
	}, {
		name:   "bad CA bundle",
		modify: func(e *extension.Extension) { e.ClientConfig.CABundle = []byte("not PEM") },
		want:   `extensions[0].clientConfig.caBundle: Invalid value: "<PEM bytes>": contains no PEM-encoded certificate`,
	}, {
		name: "bad service",
		modify: func(e *extension.Extension) {
			e.ClientConfig = extension.ClientConfig{Service: &extension.ServiceReference{Namespace: "Hooks", Name: "upgrader", Path: "upgrade", Port: 70000}}
		},
		want: `extensions[0].clientConfig.service.namespace: Invalid value: "Hooks": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'); ` +
			`extensions[0].clientConfig.service.port: Invalid value: 70000: must be between 1 and 65535, inclusive; ` +
			`extensions[0].clientConfig.service.path: Invalid value: "upgrade": must start with "/"`,
	}, {
		name:   "timeout above 30s",
		modify: func(e *extension.Extension) { e.Timeout = 31 * time.Second },
		want:   `extensions[0].timeout: Invalid value: "31s": must be between 0 and 30s`,
	}, {
		name:   "negative timeout",
		modify: func(e *extension.Extension) { e.Timeout = -time.Second },
		want:   `extensions[0].timeout: Invalid value: "-1s": must be between 0 and 30s`,
	}, {
		name:   "unknown failure policy",
		modify: func(e *extension.Extension) { e.FailurePolicy = "Retry" },
		want:   `extensions[0].failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"`,
	}, {
		name: "bad selector",
		modify: func(e *extension.Extension) {
			e.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}
		},
		want: `extensions[0].namespaceSelector: Invalid value: "{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"Near\"}]}": "Near" is not a valid label selector operator`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := validExtension("upgrader")
			tt.modify(&e)
			registry := extension.NewRegistry()
			err := registry.Register(e)
			if err == nil {
				t.Fatal("Register accepted an invalid extension")
			}
			if diff := cmp.Diff("registering extensions: "+tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if _, ok := registry.Get(e.Name); ok {
				t.Errorf("the invalid extension was registered")
			}
		})
	}
}

func TestRegisterIsAllOrNothing(t *testing.T) {
	registry := extension.NewRegistry()
	bad := validExtension("b")
	bad.FailurePolicy = "Sometimes"
	err := registry.Register(validExtension("a"), bad, validExtension("a"))
	if err == nil {
		t.Fatal("Register accepted a batch with an invalid extension and a duplicate name")
	}
	for _, want := range []string{`extensions[1].failurePolicy: Unsupported value: "Sometimes"`, `extensions[2].name: Duplicate value: "a"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want it to contain %q", err, want)
		}
	}
	if got := registry.List(upgradeHook()); len(got) != 0 {
		t.Errorf("after a failed Register the registry holds %d extensions, want 0", len(got))
	}
}

func TestRegistryListGetReplaceUnregister(t *testing.T) {
	registry := extension.NewRegistry()
	other := validExtension("other-hook")
	other.Hook.Name = "AfterUpgrade"
	if err := registry.Register(validExtension("zeta"), validExtension("alpha"), other, validExtension("mid")); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		var out []string
		for _, e := range registry.List(upgradeHook()) {
			out = append(out, e.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"alpha", "mid", "zeta"}, names()); diff != "" {
		t.Errorf("List is not sorted by name or mixes hooks (-want +got):\n%s", diff)
	}

	replacement := validExtension("mid")
	replacement.FailurePolicy = extension.FailurePolicyIgnore
	if err := registry.Register(replacement); err != nil {
		t.Fatal(err)
	}
	if got, _ := registry.Get("mid"); got.FailurePolicy != extension.FailurePolicyIgnore {
		t.Errorf("Register did not replace mid: failurePolicy %q", got.FailurePolicy)
	}

	registry.Unregister("zeta", "never-registered")
	if diff := cmp.Diff([]string{"alpha", "mid"}, names()); diff != "" {
		t.Errorf("after Unregister (-want +got):\n%s", diff)
	}
	if _, ok := registry.Get("zeta"); ok {
		t.Errorf("Get found an unregistered extension")
	}
}
