package chain

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubeoptions "k8s.io/kubernetes/pkg/kubeapiserver/options"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
)

// The plugins, their order and their defaults are kube-apiserver's own, less those the chain
// places itself (the policies), leaves to the dispatcher (the webhooks) or does not run
// (AlwaysDeny).
func TestPluginsAreKubeAPIServers(t *testing.T) {
	placedElsewhere := map[string]bool{mutatingPolicyPluginName: true, validatingPolicyPluginName: true,
		mutatingWebhookPluginName: true, validatingWebhookPlugin: true, denyPluginName: true}
	var want []string
	for _, name := range kubeoptions.AllOrderedPlugins {
		if !placedElsewhere[name] {
			want = append(want, name)
		}
	}
	if diff := cmp.Diff(want, orderedPlugins()); diff != "" {
		t.Errorf("plugins in order (-kube-apiserver +chain):\n%s", diff)
	}
	wantOff := sortedKeys(toSet(kubeoptions.DefaultOffAdmissionPlugins().UnsortedList()))
	if diff := cmp.Diff(wantOff, sortedKeys(defaultOffPlugins())); diff != "" {
		t.Errorf("plugins off by default (-kube-apiserver +chain):\n%s", diff)
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestSelectPlugins(t *testing.T) {
	tests := []struct {
		name            string
		enable, disable []string
		wantIn, wantOut []string
		wantPolicies    bool
		wantErr         string
	}{
		{name: "defaults", wantIn: []string{"NamespaceLifecycle", "PodSecurity", "ResourceQuota"}, wantOut: []string{"AlwaysPullImages", "NodeRestriction"}, wantPolicies: true},
		{name: "one enabled, one disabled", enable: []string{"AlwaysPullImages"}, disable: []string{"PodSecurity"},
			wantIn: []string{"AlwaysPullImages", "LimitRanger"}, wantOut: []string{"PodSecurity"}, wantPolicies: true},
		{name: "policies disabled", disable: []string{"ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"}, wantIn: []string{"LimitRanger"}},
		{name: "unknown", enable: []string{"Nope"}, disable: []string{"Neither"},
			wantErr: "enable-admission-plugins plugin \"Nope\" is unknown\ndisable-admission-plugins plugin \"Neither\" is unknown"},
		{name: "both", enable: []string{"PodSecurity"}, disable: []string{"PodSecurity"}, wantErr: "[PodSecurity] in enable-admission-plugins and disable-admission-plugins overlapped"},
		{name: "the webhooks off", disable: []string{"ValidatingAdmissionWebhook"}, wantErr: "disable-admission-plugins ValidatingAdmissionWebhook: admit reviews the webhooks it is given; give none instead"},
		{name: "AlwaysDeny", enable: []string{"AlwaysDeny"}, wantErr: "enable-admission-plugins AlwaysDeny: it denies every request; admit does not run it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := selectPlugins(tt.enable, tt.disable)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			enabled := toSet(got.enabled)
			for _, name := range tt.wantIn {
				if !enabled[name] {
					t.Errorf("%s does not run", name)
				}
			}
			for _, name := range tt.wantOut {
				if enabled[name] {
					t.Errorf("%s runs", name)
				}
			}
			if got.validatingPolicies != tt.wantPolicies || got.mutatingPolicies != tt.wantPolicies {
				t.Errorf("policies run: %v and %v, want %v", got.validatingPolicies, got.mutatingPolicies, tt.wantPolicies)
			}
		})
	}
}

// The cluster's options change admission as they change kube-apiserver's: a plugin enabled
// (AlwaysPullImages), and PodSecurity's cluster-wide default from an admission configuration
// file, with its exemptions.
func TestClusterOptions(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "admission.yaml")
	if err := os.WriteFile(config, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: restricted, enforce-version: latest}
    exemptions: {namespaces: [exempt]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	pod := func(namespace string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: " + namespace + "}\nspec: {containers: [{name: app, image: nginx:1.27}]}\n"
	}
	admit := func(t *testing.T, cfg Config, namespace string) *engine.Result {
		t.Helper()
		cfg.Namespaces = []string{namespace}
		d := newDispatcher(t, newChain(t, cfg), dispatch.Options{})
		req := request(t, pods, pod(namespace), "")
		req.Namespace = namespace
		res, err := d.Admit(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := admit(t, Config{EnableAdmissionPlugins: []string{"AlwaysPullImages"}}, "default")
	if !res.Allowed || member(t, res.Object, "spec", "containers").([]any)[0].(map[string]any)["imagePullPolicy"] != "Always" {
		t.Errorf("AlwaysPullImages: allowed %v, containers %v", res.Allowed, member(t, res.Object, "spec", "containers"))
	}
	if res := admit(t, Config{}, "default"); member(t, res.Object, "spec", "containers").([]any)[0].(map[string]any)["imagePullPolicy"] != "IfNotPresent" {
		t.Errorf("without AlwaysPullImages the tagged image's policy is IfNotPresent: %v", member(t, res.Object, "spec", "containers"))
	}

	res = admit(t, Config{AdmissionControlConfigFile: config}, "default")
	if res.Allowed || res.Status.Code != 403 || !strings.Contains(res.Status.Message, `violates PodSecurity "restricted:latest"`) {
		t.Errorf("PodSecurity's default from the configuration file: %+v", res.Status)
	}
	if res := admit(t, Config{AdmissionControlConfigFile: config}, "exempt"); !res.Allowed {
		t.Errorf("an exempt namespace: %+v", res.Status)
	}
	if _, err := New(context.Background(), Config{AdmissionControlConfigFile: filepath.Join(dir, "missing.yaml")}); err == nil || !strings.Contains(err.Error(), "--admission-control-config-file") {
		t.Errorf("a missing file: %v", err)
	}
}

// kube-apiserver's --allow-privileged lives process-wide in Kubernetes' code: a Chain that asks
// for the other setting than the process already has is refused, not silently given the first.
func TestAllowPrivilegedIsProcessWide(t *testing.T) {
	newChain(t, Config{}) // the process now allows privileged containers
	_, err := New(context.Background(), Config{DisallowPrivileged: true})
	if err == nil || !strings.Contains(err.Error(), "already runs Kubernetes' code with --allow-privileged=true") {
		t.Fatalf("err = %v, want the conflict named", err)
	}
}
