package audit

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/audit/policyreport"
	"github.com/admitkit/admit/internal/webhooktest"
	"github.com/admitkit/admit/manifest"
	"github.com/admitkit/admit/review"
)

// reportsDump is a small cluster whose writes the proposal newly denies, fails, warns about,
// mutates and admits, in two namespaces and at the cluster's scope.
const reportsDump = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {tier: team}, uid: 5e7a0000-0000-4000-8000-000000000001}}
- {apiVersion: v1, kind: Namespace, metadata: {name: ops, uid: 5e7a0000-0000-4000-8000-000000000002}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: big, namespace: shop, uid: 5e7a0000-0000-4000-8000-000000000003, resourceVersion: "9", generation: 1}
  spec:
    replicas: 9
    selector: {matchLabels: {app: big}}
    template: {metadata: {labels: {app: big}}, spec: {containers: [{name: big, image: nginx:1.27}]}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: small, namespace: ops, resourceVersion: "10", generation: 1}
  spec:
    replicas: 1
    selector: {matchLabels: {app: small}}
    template: {metadata: {labels: {app: small}}, spec: {containers: [{name: small, image: nginx:1.27}]}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: shop, resourceVersion: "11"}, data: {a: "1"}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: legacy, namespace: ops, resourceVersion: "12"}, data: {a: "1"}}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop, resourceVersion: "13"}
  spec: {clusterIP: 10.96.0.20, clusterIPs: [10.96.0.20], ports: [{port: 80, targetPort: 8080, protocol: TCP}], selector: {app: web}}
`

// reportsHook is a webhook configuration calling path on server.
func reportsHook(server *webhooktest.Server, kind, name, path, resources, extra string) string {
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

// reportsAudit audits reportsDump: the baseline refuses ops' ConfigMaps, the proposal does not
// any more, and adds a replica cap, a namespace label policy that warns, a label-setting
// webhook, a failing webhook and a warning one.
func reportsAudit(t *testing.T) *Report {
	t.Helper()
	server := webhooktest.Start(t)
	legacyHook := reportsHook(server, "ValidatingWebhookConfiguration", "legacy", webhooktest.Deny(webhooktest.Code(403), webhooktest.Message("no more ConfigMaps here")), "configmaps",
		"  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ops}}\n")
	proposal := reportsHook(server, "MutatingWebhookConfiguration", "owner", webhooktest.SetLabel("owner", "platform"), "configmaps", "") +
		reportsHook(server, "ValidatingWebhookConfiguration", "flaky", webhooktest.PathInternalError, "deployments", "  failurePolicy: Ignore\n") +
		reportsHook(server, "ValidatingWebhookConfiguration", "ports", webhooktest.Allow(webhooktest.Warning("port 80 is deprecated here")), "services", "") +
		`apiVersion: admissionregistration.k8s.io/v1
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
metadata: {name: team-label}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [namespaces]}]}
  validations: [{expression: "has(object.metadata.labels) && 'tier' in object.metadata.labels", message: "a namespace needs a tier label"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label}
spec: {policyName: team-label, validationActions: [Warn]}
`
	dump := filepath.Join(t.TempDir(), "dump.yaml")
	if err := os.WriteFile(dump, []byte(reportsDump), 0o600); err != nil {
		t.Fatal(err)
	}
	inputs, err := manifest.Expand([]string{dump}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), &Dump{Inputs: inputs, Paths: []string{"dump.yaml"}}, Options{
		Baseline: mustSet(t, legacyHook), Proposal: mustSet(t, proposal),
		Config: review.Config{Now: func() time.Time { return testedAt }},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// crdSession reviews objects with the formats' CustomResourceDefinitions (testdata), as the
// apiserver validates a custom resource against its schema.
func crdSession(t *testing.T) *review.Session {
	t.Helper()
	var cfg review.Config
	crds := []string{"policyreport/testdata/wgpolicyk8s.io.yaml", "policyreport/testdata/openreports.io.yaml"}
	if err := (review.Paths{CRDs: crds}).LoadState(&cfg); err != nil {
		t.Fatal(err)
	}
	session, err := review.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return session
}

// An audit's reports, in both formats, are what the formats' CRD schemas accept: created with
// strict field validation (an unknown field refused, not pruned), each is admitted unchanged
// but for what the apiserver sets.
func TestPolicyReportsValidateAgainstTheCRDs(t *testing.T) {
	r := reportsAudit(t)
	checkResultStatuses(t, r)
	session := crdSession(t)
	for _, format := range policyreport.Formats() {
		t.Run(string(format), func(t *testing.T) {
			var stream bytes.Buffer
			if err := r.WritePolicyReports(&stream, format); err != nil {
				t.Fatal(err)
			}
			inputs, err := review.Parse("reports.yaml", stream.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(inputs) != 3 {
				t.Fatalf("%d reports, want the cluster's, ops' and shop's:\n%s", len(inputs), stream.String())
			}
			outcomes, err := session.Review(context.Background(), review.Write{Operation: admissionv1.Create, FieldValidation: "Strict"}, inputs, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range outcomes {
				checkAdmittedUnchanged(t, o)
			}
		})
	}
}

// checkAdmittedUnchanged fails unless the report was admitted, without warnings, and stored as
// written.
func checkAdmittedUnchanged(t *testing.T, o *review.Outcome) {
	t.Helper()
	name := o.Object.GetKind() + " " + o.Object.GetNamespace() + "/" + o.Object.GetName()
	if o.Err != nil || o.Result == nil || !o.Result.Allowed || len(o.Result.Warnings) > 0 {
		status := ""
		if o.Result != nil && o.Result.Status != nil {
			status = o.Result.Status.Message
		}
		t.Fatalf("%s: not admitted as it is: %v %s %v", name, o.Err, status, o.Result.Warnings)
	}
	var stored unstructured.Unstructured
	if err := stored.UnmarshalJSON(o.Result.Object); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"creationTimestamp", "generation", "uid", "resourceVersion", "managedFields"} {
		unstructured.RemoveNestedField(stored.Object, "metadata", field)
	}
	if diff := cmp.Diff(o.Object.Object, stored.Object); diff != "" {
		t.Errorf("%s is stored otherwise than written (-written +stored):\n%s", name, diff)
	}
}

// checkResultStatuses checks the audit's results: every status the mapping gives, where the
// writes are, and the summaries counting them.
func checkResultStatuses(t *testing.T, r *Report) {
	t.Helper()
	got := map[string][]string{}
	for _, rep := range r.PolicyReports(policyreport.WGPolicy) {
		var total policyreport.Summary
		for _, res := range rep.Results {
			ref := res.Resources[0]
			got[rep.Metadata.Namespace] = append(got[rep.Metadata.Namespace], string(res.Result)+" "+res.Policy+" "+ref.Kind+" "+ref.Name)
			total.Add(res.Result)
		}
		if total != rep.Summary {
			t.Errorf("%s %s: summary %+v, its results count %+v", rep.Kind, rep.Metadata.Namespace, rep.Summary, total)
		}
	}
	want := map[string][]string{
		"":    {"warn team-label Namespace ops"},
		"ops": {"error flaky Deployment small", "pass legacy ConfigMap legacy"},
		// The policy denies shop/big before the webhooks are called.
		"shop": {"fail replica-cap Deployment big", "warn ports Service web", "pass owner ConfigMap settings"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results by namespace (-want +got):\n%s", diff)
	}
	for _, f := range r.Objects {
		if f.Kind == "Deployment" && f.Name == "big" && (f.APIVersion != "apps/v1" || !strings.HasPrefix(string(f.UID), "5e7a")) {
			t.Errorf("shop/big's reference: apiVersion %q, uid %q", f.APIVersion, f.UID)
		}
	}
}

// The validation the reports pass is the schemas': a result's unknown status, a field neither
// format has, a result without its policy are refused.
func TestTheCRDsRefuseWhatTheirSchemasDoNot(t *testing.T) {
	session := crdSession(t)
	for name, doc := range map[string]string{
		"unknown status": `{apiVersion: wgpolicyk8s.io/v1alpha2, kind: PolicyReport, metadata: {name: r, namespace: shop}, results: [{policy: p, result: denied}]}`,
		"unknown field":  `{apiVersion: wgpolicyk8s.io/v1alpha2, kind: ClusterPolicyReport, metadata: {name: r}, source: admit}`,
		"no policy":      `{apiVersion: openreports.io/v1alpha1, kind: Report, metadata: {name: r, namespace: shop}, results: [{result: pass}]}`,
		"bad severity":   `{apiVersion: openreports.io/v1alpha1, kind: ClusterReport, metadata: {name: r}, results: [{policy: p, severity: severe}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			inputs, err := review.Parse("report.yaml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			outcomes, err := session.Review(context.Background(), review.Write{Operation: admissionv1.Create, FieldValidation: "Strict"}, inputs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if o := outcomes[0]; o.Err == nil && o.Result.Allowed {
				t.Errorf("admitted: %s", doc)
			}
		})
	}
}
