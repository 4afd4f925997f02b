//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/internal/webhooktest"
)

// reportResources are the resources of the Policy Reports' kinds.
var reportResources = map[string]string{
	"PolicyReport": "policyreports", "ClusterPolicyReport": "clusterpolicyreports",
	"Report": "reports", "ClusterReport": "clusterreports",
}

// TestAuditPolicyReports: admit audit's Policy Reports, in the working group's format and in
// openreports.io's, are what the formats' CustomResourceDefinitions accept in a kube-apiserver:
// each report is created with strict field validation (a field the schema does not have is
// refused, not pruned) and reads back as written; kubectl apply --server-side takes the stream
// as a scheduled audit pipes it.
func TestAuditPolicyReports(t *testing.T) {
	ctx := context.Background()
	for _, file := range []string{"wgpolicyk8s.io.yaml", "openreports.io.yaml"} {
		for _, crd := range readCRDs(t, filepath.Join("..", "..", "audit", "policyreport", "testdata", file)) {
			createCRD(t, crd)
		}
	}
	for _, ns := range []string{"polr-shop", "polr-ops"} {
		must(t, "creating namespace "+ns, func() error {
			_, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			return err
		})
	}
	dump, baseline, proposal := writePolicyReportAudit(t, webhooktest.Start(t))
	client, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, output := range []string{"policyreport", "openreports"} {
		t.Run(output, func(t *testing.T) {
			stdout, stderr, code := runAdmit(t, "audit", "-f", dump, "--baseline", baseline, "--webhooks", proposal, "-o", output)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (new denials)\n%s", code, stderr)
			}
			reports := splitReports(t, stdout)
			var kinds []string
			for _, report := range reports {
				kinds = append(kinds, report.GetKind()+" "+report.GetNamespace())
				createAndReadBack(t, client, report)
			}
			want := map[string][]string{
				"policyreport": {"ClusterPolicyReport ", "PolicyReport polr-ops", "PolicyReport polr-shop"},
				"openreports":  {"ClusterReport ", "Report polr-ops", "Report polr-shop"},
			}[output]
			if diff := cmp.Diff(want, kinds); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
			wantResults := []string{
				": warn tier-label Namespace polr-ops",
				"polr-ops: error flaky Deployment small", "polr-ops: pass legacy ConfigMap legacy",
				"polr-shop: fail replica-cap Deployment big", "polr-shop: pass owner ConfigMap settings",
			}
			if diff := cmp.Diff(wantResults, reportResults(t, reports)); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if out, errOut, err := env.Kubectl(ctx, []byte(stdout), "apply", "--server-side", "-f", "-"); err != nil {
				t.Errorf("kubectl apply --server-side -f -: %v\n%s%s", err, out, errOut)
			}
		})
	}
}

// writePolicyReportAudit writes a dump of two namespaces' objects, a baseline that refuses
// polr-ops' ConfigMaps, and a proposal that does not any more, and newly denies, fails, warns
// and mutates, at the cluster's scope too.
func writePolicyReportAudit(t *testing.T, server *webhooktest.Server) (dump, baseline, proposal string) {
	t.Helper()
	hook := func(kind, name, path, resources, extra string) string {
		return `apiVersion: admissionregistration.k8s.io/v1
kind: ` + kind + `
metadata: {name: ` + name + `}
webhooks:
- name: ` + name + `.example.com
  clientConfig: {url: "` + server.URL + path + `", caBundle: ` + base64.StdEncoding.EncodeToString(server.CABundle) + `}
  rules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: [` + resources + `]}]
  sideEffects: None
  admissionReviewVersions: [v1]
` + extra + "---\n"
	}
	files := map[string]string{
		"dump.yaml": `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: polr-shop, labels: {tier: team}}}
- {apiVersion: v1, kind: Namespace, metadata: {name: polr-ops}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: big, namespace: polr-shop, uid: 6a1d0000-0000-4000-8000-000000000001, resourceVersion: "9", generation: 1}
  spec:
    replicas: 9
    selector: {matchLabels: {app: big}}
    template: {metadata: {labels: {app: big}}, spec: {containers: [{name: big, image: nginx:1.27}]}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: small, namespace: polr-ops, resourceVersion: "10", generation: 1}
  spec:
    replicas: 1
    selector: {matchLabels: {app: small}}
    template: {metadata: {labels: {app: small}}, spec: {containers: [{name: small, image: nginx:1.27}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: polr-shop, resourceVersion: "11"}, data: {a: "1"}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: legacy, namespace: polr-ops, resourceVersion: "12"}, data: {a: "1"}}
`,
		"baseline.yaml": hook("ValidatingWebhookConfiguration", "legacy", webhooktest.Deny(webhooktest.Code(403), webhooktest.Message("no more ConfigMaps here")), "configmaps",
			"  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: polr-ops}}\n"),
		"proposal.yaml": hook("MutatingWebhookConfiguration", "owner", webhooktest.SetLabel("owner", "platform"), "configmaps", "") +
			hook("ValidatingWebhookConfiguration", "flaky", webhooktest.PathInternalError, "deployments", "  failurePolicy: Ignore\n") +
			hook("ValidatingWebhookConfiguration", "legacy", webhooktest.PathAllow, "configmaps", "") + `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-cap}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [deployments]}]}
  validations: [{expression: "object.spec.replicas <= 5", message: "at most 5 replicas"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-cap}
spec: {policyName: replica-cap, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: tier-label}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [namespaces]}]}
  validations: [{expression: "has(object.metadata.labels) && 'tier' in object.metadata.labels", message: "a namespace needs a tier label"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: tier-label}
spec: {policyName: tier-label, validationActions: [Warn]}
`,
	}
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "dump.yaml"), filepath.Join(dir, "baseline.yaml"), filepath.Join(dir, "proposal.yaml")
}

// readCRDs reads the CustomResourceDefinitions of a multi-document file.
func readCRDs(t *testing.T, path string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, doc := range strings.Split(string(data), "\n---\n") {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		crds = append(crds, crd)
	}
	return crds
}

// splitReports reads the YAML stream admit audit writes.
func splitReports(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(stream, "---\n") {
		obj := &unstructured.Unstructured{}
		data, err := yaml.YAMLToJSON([]byte(doc))
		if err == nil {
			err = obj.UnmarshalJSON(data)
		}
		if err != nil {
			t.Fatalf("a report of the stream: %v\n%s", err, doc)
		}
		out = append(out, obj)
	}
	return out
}

// createAndReadBack creates report with strict field validation, reads it back, and compares
// what was written with what was stored, the apiserver's own metadata aside; the report is
// deleted when the test ends.
func createAndReadBack(t *testing.T, client dynamic.Interface, report *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	gv, err := schema.ParseGroupVersion(report.GetAPIVersion())
	if err != nil {
		t.Fatal(err)
	}
	resource := client.Resource(gv.WithResource(reportResources[report.GetKind()])).Namespace(report.GetNamespace())
	name := report.GetKind() + " " + report.GetNamespace() + "/" + report.GetName()
	if _, err := resource.Create(ctx, report, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict}); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	t.Cleanup(func() { _ = resource.Delete(context.Background(), report.GetName(), metav1.DeleteOptions{}) })
	stored, err := resource.Get(ctx, report.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading %s back: %v", name, err)
	}
	for _, field := range []string{"creationTimestamp", "generation", "uid", "resourceVersion", "managedFields"} {
		unstructured.RemoveNestedField(stored.Object, "metadata", field)
	}
	if diff := cmp.Diff(report.Object, stored.Object); diff != "" {
		t.Errorf("%s reads back otherwise than written (-written +stored):\n%s", name, diff)
	}
}

// reportResults are the results of reports as "namespace: result policy kind name".
func reportResults(t *testing.T, reports []*unstructured.Unstructured) []string {
	t.Helper()
	var out []string
	for _, report := range reports {
		results, _, err := unstructured.NestedSlice(report.Object, "results")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			res := r.(map[string]any)
			subject := res["resources"].([]any)[0].(map[string]any)
			out = append(out, report.GetNamespace()+": "+res["result"].(string)+" "+res["policy"].(string)+" "+subject["kind"].(string)+" "+subject["name"].(string))
		}
	}
	return out
}
