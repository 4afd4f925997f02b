package webhook

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func TestRegistryConfigurations(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	for _, w := range []Webhook{
		{Name: "pods.example.com", Type: TypeMutating, Kind: podGVK, Resource: "pods", Scope: admissionregistrationv1.NamespacedScope, Handler: allowHandler},
		{Name: "deployments.example.com", Type: TypeValidating, Kind: deploymentGVK, Resource: "deployments", Handler: allowHandler,
			FailurePolicy: admissionregistrationv1.Ignore, TimeoutSeconds: 3, Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}},
	} {
		if err := r.Register(w); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("service mode", func(t *testing.T) {
		m, v, err := r.Configurations(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{Service: "admit", Namespace: "admit-system", CABundle: []byte("PEM")}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := yaml.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		want := `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: admit
webhooks:
- admissionReviewVersions:
  - v1
  - v1beta1
  clientConfig:
    caBundle: UEVN
    service:
      name: admit
      namespace: admit-system
      path: /mutate-core-v1-pod
      port: 443
  failurePolicy: Fail
  matchPolicy: Equivalent
  name: pods.example.com
  namespaceSelector:
    matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values:
      - admit-system
      - kube-system
    - key: admit.dev/runlevel
      operator: NotIn
      values:
      - "0"
      - "1"
      - "2"
  objectSelector: {}
  reinvocationPolicy: Never
  rules:
  - apiGroups:
    - ""
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - pods
    scope: Namespaced
  sideEffects: None
  timeoutSeconds: 5
`
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Fatalf("mutating configuration (-want +got):\n%s", diff)
		}
		if len(v.Webhooks) != 1 || *v.Webhooks[0].FailurePolicy != admissionregistrationv1.Ignore || *v.Webhooks[0].TimeoutSeconds != 3 ||
			*v.Webhooks[0].ClientConfig.Service.Path != "/validate-apps-v1-deployment" || *v.Webhooks[0].Rules[0].Scope != admissionregistrationv1.AllScopes {
			t.Fatalf("validating configuration = %+v", v.Webhooks)
		}
	})

	t.Run("URL mode", func(t *testing.T) {
		_, v, err := r.Configurations(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{URL: "https://127.0.0.1:9443/"}, ExemptNamespaces: []string{"cert-manager"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := *v.Webhooks[0].ClientConfig.URL; got != "https://127.0.0.1:9443/validate-apps-v1-deployment" {
			t.Fatalf("url = %q", got)
		}
		if got := v.Webhooks[0].NamespaceSelector.MatchExpressions[0].Values; !cmp.Equal(got, []string{"cert-manager", "kube-system"}) {
			t.Fatalf("exempt namespaces = %v", got)
		}
	})

	t.Run("serving the own namespace", func(t *testing.T) {
		for _, tt := range []struct {
			serveOwn bool
			want     []string
		}{
			{serveOwn: false, want: []string{"admit-system", "kube-system"}},
			{serveOwn: true, want: []string{"kube-system"}},
		} {
			_, v, err := r.Configurations(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{Service: "admit", Namespace: "admit-system"}, ServeOwnNamespace: tt.serveOwn})
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Webhooks[0].NamespaceSelector.MatchExpressions[0].Values; !cmp.Equal(got, tt.want) {
				t.Errorf("ServeOwnNamespace %v: exempt namespaces %v, want %v", tt.serveOwn, got, tt.want)
			}
		}
	})

	t.Run("bad options", func(t *testing.T) {
		for _, opts := range []ConfigOptions{
			{ClientConfig: ClientConfig{URL: "https://x"}},
			{Name: "a"},
			{Name: "a", ClientConfig: ClientConfig{URL: "https://x", Service: "s", Namespace: "n"}},
			{Name: "a", ClientConfig: ClientConfig{Service: "s"}},
			{Name: "not a name", ClientConfig: ClientConfig{URL: "https://x"}},
		} {
			if _, _, err := r.Configurations(opts); err == nil {
				t.Errorf("Configurations(%+v) succeeded, want an error", opts)
			}
		}
	})
}

func TestRegistryConfigurationsYAML(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	if err := r.Register(Webhook{Name: "pods.example.com", Type: TypeValidating, Kind: podGVK, Resource: "pods", Handler: allowHandler}); err != nil {
		t.Fatal(err)
	}
	out, err := r.ConfigurationsYAML(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{URL: "https://127.0.0.1:9443"}})
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(out), "---\n")
	if len(docs) != 1 || !strings.HasPrefix(docs[0], "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n") {
		t.Fatalf("want one validating configuration, got:\n%s", out)
	}
	var back admissionregistrationv1.ValidatingWebhookConfiguration
	if err := yaml.UnmarshalStrict(out, &back); err != nil {
		t.Fatalf("emitted YAML does not decode strictly: %v", err)
	}
	if *back.Webhooks[0].ClientConfig.URL != "https://127.0.0.1:9443/validate-core-v1-pod" {
		t.Fatalf("url = %s", *back.Webhooks[0].ClientConfig.URL)
	}
}

// Everything a webhook says reaches its configuration; its namespaceSelector narrows the
// exemptions, never replaces them.
func TestConfigurationsSayEverythingTheWebhookSays(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	err := r.Register(Webhook{
		Name: "workloads.example.com", Type: TypeMutating, Handler: allowHandler,
		Rules: []admissionregistrationv1.RuleWithOperations{
			rule(create, []string{"apps"}, []string{"v1"}, []string{"deployments", "statefulsets"}),
			rule([]admissionregistrationv1.OperationType{admissionregistrationv1.Update}, []string{"batch"}, []string{"v1"}, []string{"jobs"}),
		},
		ObjectSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"inject": "true"}},
		NamespaceSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"team": "shop"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"dev"}}}},
		MatchConditions:    []admissionregistrationv1.MatchCondition{{Name: "not-admin", Expression: "request.userInfo.username != 'admin'"}},
		MatchPolicy:        admissionregistrationv1.Exact,
		ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
		SideEffects:        admissionregistrationv1.SideEffectClassNoneOnDryRun,
		FailurePolicy:      admissionregistrationv1.Ignore,
		TimeoutSeconds:     2,
	})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := r.Configurations(ConfigOptions{Name: "admit", ClientConfig: ClientConfig{URL: "https://127.0.0.1:9443"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := yaml.Marshal(m.Webhooks[0])
	if err != nil {
		t.Fatal(err)
	}
	const want = `admissionReviewVersions:
- v1
- v1beta1
clientConfig:
  url: https://127.0.0.1:9443/mutate-workloads-example-com
failurePolicy: Ignore
matchConditions:
- expression: request.userInfo.username != 'admin'
  name: not-admin
matchPolicy: Exact
name: workloads.example.com
namespaceSelector:
  matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
    - kube-system
  - key: admit.dev/runlevel
    operator: NotIn
    values:
    - "0"
    - "1"
    - "2"
  - key: env
    operator: In
    values:
    - dev
  matchLabels:
    team: shop
objectSelector:
  matchLabels:
    inject: "true"
reinvocationPolicy: IfNeeded
rules:
- apiGroups:
  - apps
  apiVersions:
  - v1
  operations:
  - CREATE
  resources:
  - deployments
  - statefulsets
  scope: '*'
- apiGroups:
  - batch
  apiVersions:
  - v1
  operations:
  - UPDATE
  resources:
  - jobs
  scope: '*'
sideEffects: NoneOnDryRun
timeoutSeconds: 2
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("webhook (-want +got):\n%s", diff)
	}
}
