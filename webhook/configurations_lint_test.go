package webhook_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/builtin"
	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/examples/operator"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/lint"
	"github.com/admitkit/admit/webhook"
)

// Every configuration admit generates lints clean, at every severity, in service and URL mode:
// the examples', the built-in webhooks', and one that uses every field of a Webhook.
func TestGeneratedConfigurationsLintClean(t *testing.T) {
	ca, err := certs.NewCA("lint-test", 365*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	registries := map[string]func(t *testing.T) *webhook.Registry{
		"quickstart": func(t *testing.T) *webhook.Registry {
			reg, err := quickstart.NewRegistry(webhook.HTTPOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return reg
		},
		"operator": func(t *testing.T) *webhook.Registry {
			reg, err := operator.NewRegistry(operator.Defaults{Image: "registry.example.com/cache:7.2"}, webhook.HTTPOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return reg
		},
		"builtin": func(t *testing.T) *webhook.Registry {
			reg := webhook.NewRegistry(webhook.HTTPOptions{})
			if err := builtin.Register(reg, builtin.DemoConfig()); err != nil {
				t.Fatal(err)
			}
			return reg
		},
		"every-field": everyField,
	}
	clients := map[string]webhook.ClientConfig{
		"service": {Service: "example-webhook", Namespace: "example-system", CABundle: ca.CertPEM()},
		"url":     {URL: "https://192.0.2.10:9443", CABundle: ca.CertPEM()},
	}
	// The CRDs a registry's custom kinds ship with, linted with its configurations as a project
	// lints its release: without them, rules on custom resources are assumptions (info).
	crds := map[string]string{"operator": filepath.Join("..", "examples", "operator", "config", "crd.yaml")}
	for name, build := range registries {
		for mode, cc := range clients {
			t.Run(name+"/"+mode, func(t *testing.T) {
				var extra []byte
				if path, ok := crds[name]; ok {
					var err error
					if extra, err = os.ReadFile(path); err != nil {
						t.Fatal(err)
					}
				}
				for _, f := range lintConfigurations(t, build(t), webhook.ConfigOptions{Name: "example-" + name, ClientConfig: cc}, extra) {
					t.Error(f)
				}
			})
		}
	}
}

// lintConfigurations runs admit lint on the configurations reg writes, read back from their
// YAML as `admit lint` reads a file, and returns the findings that count at every severity.
func lintConfigurations(t *testing.T, reg *webhook.Registry, opts webhook.ConfigOptions, extra []byte) []lint.Finding {
	t.Helper()
	manifest, err := reg.ConfigurationsYAML(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(extra) > 0 {
		manifest = append(append(extra, []byte("\n---\n")...), manifest...)
	}
	set, err := config.Parse(opts.Name+".yaml", manifest)
	if err != nil {
		t.Fatalf("%v\n%s", err, manifest)
	}
	findings, err := lint.Run(set, lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return lint.AtLeast(findings, lint.Info)
}

// everyField registers webhooks that say everything a configuration can.
func everyField(t *testing.T) *webhook.Registry {
	t.Helper()
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	allow := webhook.HandlerFunc(func(context.Context, *webhook.Request) webhook.Response { return webhook.Allowed() })
	inject := webhook.DefaulterFunc[*corev1.Pod](func(context.Context, *webhook.Request, *corev1.Pod) ([]string, error) { return nil, nil })
	for _, w := range []webhook.Webhook{
		{
			Name: "sidecars.example.com", Type: webhook.TypeMutating, Handler: webhook.DefaultingHandler[*corev1.Pod](inject),
			Operations:         []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Scope:              admissionregistrationv1.NamespacedScope,
			ObjectSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"sidecar.example.com/inject": "true"}},
			NamespaceSelector:  &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "sidecar.example.com/disabled", Operator: metav1.LabelSelectorOpDoesNotExist}}},
			MatchConditions:    []admissionregistrationv1.MatchCondition{webhook.NotMirrorPod()},
			ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
			SideEffects:        admissionregistrationv1.SideEffectClassNoneOnDryRun,
			FailurePolicy:      admissionregistrationv1.Ignore,
			TimeoutSeconds:     2,
		},
		{
			Name: "workloads.example.com", Type: webhook.TypeValidating, Handler: allow,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"},
					Resources: []string{"deployments", "statefulsets", "daemonsets"}, Scope: ptr(admissionregistrationv1.NamespacedScope)},
			}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "not-a-controller", Expression: "!request.userInfo.username.startsWith('system:')"}},
			TimeoutSeconds:  3,
		},
	} {
		if err := reg.Register(w); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

func ptr[T any](v T) *T { return &v }
