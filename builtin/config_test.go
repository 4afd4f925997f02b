package builtin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/webhook"
)

// registration is what Register decides about a webhook, without its handler.
type registration struct {
	Name, Path, Resource string
	Type                 webhook.Type
	Kind                 schema.GroupVersionKind
	Scope                admissionregistrationv1.ScopeType
	Operations           []admissionregistrationv1.OperationType
	FailurePolicy        admissionregistrationv1.FailurePolicyType
	TimeoutSeconds       int32
}

func TestRegisterDemoConfig(t *testing.T) {
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := Register(r, DemoConfig()); err != nil {
		t.Fatal(err)
	}
	var got []registration
	for _, w := range r.Webhooks() {
		got = append(got, registration{Name: w.Name, Path: w.Path, Resource: w.Resource, Type: w.Type, Kind: w.Kind, Scope: w.Scope,
			Operations: w.Operations, FailurePolicy: w.FailurePolicy, TimeoutSeconds: w.TimeoutSeconds})
	}
	createUpdate := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	mirror := func(name, path, group, kind, resource string) registration {
		return registration{Name: name, Path: path, Resource: resource, Type: webhook.TypeMutating,
			Kind: schema.GroupVersionKind{Group: group, Version: "v1", Kind: kind}, Scope: admissionregistrationv1.NamespacedScope,
			Operations: createUpdate, FailurePolicy: admissionregistrationv1.Ignore, TimeoutSeconds: 2}
	}
	ephemeral := mirror("pods-ephemeralcontainers.image-mirrors.admit.dev", "/image-mirrors/mutate-core-v1-pod-ephemeralcontainers", "", "Pod", "pods/ephemeralcontainers")
	ephemeral.Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
	want := []registration{
		mirror("pods.image-mirrors.admit.dev", "/image-mirrors/mutate-core-v1-pod", "", "Pod", "pods"),
		ephemeral,
		mirror("deployments.apps.image-mirrors.admit.dev", "/image-mirrors/mutate-apps-v1-deployment", "apps", "Deployment", "deployments"),
		mirror("statefulsets.apps.image-mirrors.admit.dev", "/image-mirrors/mutate-apps-v1-statefulset", "apps", "StatefulSet", "statefulsets"),
		mirror("daemonsets.apps.image-mirrors.admit.dev", "/image-mirrors/mutate-apps-v1-daemonset", "apps", "DaemonSet", "daemonsets"),
		mirror("replicasets.apps.image-mirrors.admit.dev", "/image-mirrors/mutate-apps-v1-replicaset", "apps", "ReplicaSet", "replicasets"),
		mirror("jobs.batch.image-mirrors.admit.dev", "/image-mirrors/mutate-batch-v1-job", "batch", "Job", "jobs"),
		mirror("cronjobs.batch.image-mirrors.admit.dev", "/image-mirrors/mutate-batch-v1-cronjob", "batch", "CronJob", "cronjobs"),
		{Name: "configmaps.required-labels.admit.dev", Path: "/required-labels/validate-core-v1-configmap", Resource: "configmaps",
			Type: webhook.TypeValidating, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Operations: createUpdate, FailurePolicy: admissionregistrationv1.Fail, TimeoutSeconds: 3},
		{Name: "namespace-protection.admit.dev", Path: "/namespace-protection/validate-core-v1-namespace", Resource: "namespaces",
			Type: webhook.TypeValidating, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Scope: admissionregistrationv1.ClusterScope,
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}, FailurePolicy: admissionregistrationv1.Fail, TimeoutSeconds: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("registrations (-want +got):\n%s", diff)
	}
}

// The configurations the registry describes are what `admit serve` installs; the apiserver
// refuses duplicate webhook names within one.
func TestDemoConfigurationsHaveUniqueNames(t *testing.T) {
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := Register(r, DemoConfig()); err != nil {
		t.Fatal(err)
	}
	m, v, err := r.Configurations(webhook.ConfigOptions{Name: "admit", ClientConfig: webhook.ClientConfig{URL: "https://127.0.0.1:9443"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range m.Webhooks {
		names = append(names, w.Name)
	}
	for _, w := range v.Webhooks {
		names = append(names, w.Name)
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			t.Errorf("webhook name %q appears twice", name)
		}
		seen[name] = true
	}
	if len(names) != 10 {
		t.Errorf("got %d webhooks (%v), want 10", len(names), names)
	}
	if got := *v.Webhooks[1].ClientConfig.URL; got != "https://127.0.0.1:9443/namespace-protection/validate-core-v1-namespace" {
		t.Errorf("namespace protection URL %q", got)
	}
}

func TestRegisterNothingForTheZeroConfig(t *testing.T) {
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := Register(r, Config{}); err != nil {
		t.Fatal(err)
	}
	if got := r.Webhooks(); len(got) != 0 {
		t.Fatalf("registered %d webhooks, want none", len(got))
	}
}

func TestRegisterReportsEveryProblemAndRegistersNothing(t *testing.T) {
	cfg := Config{
		ImageMirrors:        &MirrorSpec{Mirrors: []Mirror{{Registry: "docker.io", Mirror: "hub"}}},
		RequiredMetadata:    &RequiredMetadataSpec{Kinds: []KindRequirement{{Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Labels: []string{"team"}}}},
		NamespaceProtection: &ProtectionSpec{LabelKey: "bad key"},
	}
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	err := Register(r, cfg)
	if err == nil {
		t.Fatal("Register accepted an invalid configuration")
	}
	var fields []string
	for _, line := range strings.Split(strings.TrimPrefix(err.Error(), "built-in webhooks: "), "\n") {
		fields = append(fields, strings.SplitN(line, ":", 2)[0])
	}
	want := []string{"imageMirrors.mirrors[0].mirror", "requiredMetadata.kinds[0].resource", "namespaceProtection.labelKey"}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Fatalf("problems (-want +got):\n%s\nerror: %v", diff, err)
	}
	if got := r.Webhooks(); len(got) != 0 {
		t.Fatalf("registered %d webhooks despite the error", len(got))
	}
}

func TestRegisterLeavesTheCallersConfigAlone(t *testing.T) {
	cfg := Config{
		ImageMirrors:     &MirrorSpec{Mirrors: []Mirror{{Registry: "index.docker.io", Mirror: "mirror.local/hub/"}}},
		RequiredMetadata: &RequiredMetadataSpec{Kinds: []KindRequirement{{Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Labels: []string{" team "}}}},
	}
	before, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := Register(webhook.NewRegistry(webhook.HTTPOptions{}), cfg); err != nil {
		t.Fatal(err)
	}
	after, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Fatalf("Register changed its argument (-before +after):\n%s", diff)
	}
}

func TestRegisterTwiceInOneRegistryFails(t *testing.T) {
	r := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := Register(r, DemoConfig()); err != nil {
		t.Fatal(err)
	}
	err := Register(r, DemoConfig())
	if err == nil || !strings.Contains(err.Error(), `name: Invalid value: "pods.image-mirrors.admit.dev": a mutating webhook of that name is already registered`) {
		t.Fatalf("second Register: %v; want the first webhook's name refused as taken", err)
	}
}

func TestDemoObjects(t *testing.T) {
	objects := DemoObjects()
	for name, kind := range map[string]string{DemoDeployment: "Deployment", DemoConfigMap: "ConfigMap", DemoNamespace: "Namespace"} {
		var obj struct{ Kind string }
		if err := yaml.Unmarshal(objects[name], &obj); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if obj.Kind != kind {
			t.Errorf("%s holds a %q, want a %s", name, obj.Kind, kind)
		}
	}
	objects[DemoDeployment][0] = 'X'
	if DemoObjects()[DemoDeployment][0] == 'X' {
		t.Fatal("changing what DemoObjects returned changed the next call's result")
	}
}

// What the embedded demo shows for its other two objects: the ConfigMap denied for its missing
// label, the namespace's deletion denied.
func TestDemoObjectsAreDenied(t *testing.T) {
	hooks := registered(t, DemoConfig())
	tests := []struct {
		object, webhook string
		review          func(raw string) review
		wantCode        int32
	}{
		{DemoConfigMap, "configmaps.required-labels.admit.dev", func(raw string) review { return review{operation: "CREATE", object: raw} }, 422},
		{DemoNamespace, NamespaceProtectionWebhook, func(raw string) review { return review{operation: "DELETE", oldObject: raw} }, 403},
	}
	for _, tt := range tests {
		t.Run(tt.object, func(t *testing.T) {
			raw, err := yaml.YAMLToJSON(DemoObjects()[tt.object])
			if err != nil {
				t.Fatal(err)
			}
			resp, _ := send(t, hooks[tt.webhook], tt.review(string(raw)))
			if resp.Outcome != webhook.OutcomeDenied || resp.Status.Code != tt.wantCode {
				t.Fatalf("outcome %v, status %+v; want denied with %d", resp.Outcome, resp.Status, tt.wantCode)
			}
		})
	}
}
