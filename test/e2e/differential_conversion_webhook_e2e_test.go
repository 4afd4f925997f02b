//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/internal/loopback"
	"github.com/admitkit/admit/patch"
	"github.com/admitkit/admit/webhook"
)

// gearConversion is a CRD conversion webhook for gears: v1's spec.size is v2's spec.teeth. A
// gear's label "convert" asks it to misbehave: "fail" answers a failure, "relabel" adds a label
// naming the version converted to (kept by the apiserver), "rename" changes the name (refused).
type gearConversion struct {
	mu    sync.Mutex
	calls int
}

func (g *gearConversion) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	var review apiextensionsv1.ConversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not a ConversionReview", http.StatusBadRequest)
		return
	}
	resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	toV2 := strings.HasSuffix(review.Request.DesiredAPIVersion, "/v2")
	for _, raw := range review.Request.Objects {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch obj.GetLabels()["convert"] {
		case "fail":
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: "gears of this kind cannot be converted"}
		case "relabel":
			labels := obj.GetLabels()
			labels["converted-to"] = strings.ReplaceAll(review.Request.DesiredAPIVersion, "/", "_")
			obj.SetLabels(labels)
		case "rename":
			obj.SetName(obj.GetName() + "-renamed")
		}
		from, to := "size", "teeth"
		if !toV2 {
			from, to = to, from
		}
		if v, ok, _ := unstructured.NestedFieldCopy(obj.Object, "spec", from); ok {
			unstructured.RemoveNestedField(obj.Object, "spec", from)
			_ = unstructured.SetNestedField(obj.Object, v, "spec", to)
		}
		obj.SetAPIVersion(review.Request.DesiredAPIVersion)
		data, err := obj.MarshalJSON()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: data})
	}
	if resp.Result.Status != metav1.StatusSuccess {
		resp.ConvertedObjects = nil
	}
	review.Request, review.Response = nil, resp
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

// serveGearConversion serves a gearConversion over TLS on loopback; it returns its URL and CA.
func serveGearConversion(t *testing.T) (string, []byte, *gearConversion) {
	t.Helper()
	dir, caPEM := loopback.Certs(t, "gear-conversion")
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, certs.CertFileName), filepath.Join(dir, certs.KeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	conv := &gearConversion{}
	server := httptest.NewUnstartedServer(conv)
	server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	server.Config.ErrorLog = log.New(io.Discard, "", 0)
	server.StartTLS()
	t.Cleanup(server.Close)
	return server.URL + "/convert", caPEM, conv
}

// gearAnswer is what a client learns of a write, and what of the written object it compares.
type gearAnswer struct {
	Allowed  bool
	Code     int32
	Message  string
	Warnings []string
	// Labels and Spec are the admitted object's.
	Labels map[string]string
	Spec   map[string]any
}

// A custom resource whose CRD converts through a webhook, written through v1 while a mutating
// and a validating webhook and a ValidatingAdmissionPolicy match only v2: kube-apiserver converts the object
// through the conversion webhook for them (and for its storage version, v2), and admit review,
// admit test and admit audit must answer as it does — the decision, status code, message,
// warnings and the admitted object — for a conversion that succeeds, one that adds a label, one
// that fails and one that renames the object.
func TestDifferentialConversionWebhookMatchesAPIServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	group := "g" + rand.String(6) + ".e2e.admit.dev"
	ns, selector := newNamespace(t, "conversion")
	convURL, convCA, conv := serveGearConversion(t)

	anything := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "gears." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gears", Singular: "gear", Kind: "Gear", ListKind: "GearList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Schema: anything},
				{Name: "v2", Served: true, Storage: true, Schema: anything},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
				ConversionReviewVersions: []string{"v1"},
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &convURL, CABundle: convCA},
			}},
		},
	}
	createCRD(t, crd)

	// The validating webhook, registered for v2 only: it refuses gears of more than 5 teeth and
	// warns what it saw.
	reg := webhook.NewRegistry(webhook.HTTPOptions{})
	if err := reg.Register(webhook.Webhook{
		Name: "teeth.e2e.admit.dev", Type: webhook.TypeValidating,
		Kind: schema.GroupVersionKind{Group: group, Version: "v2", Kind: "Gear"}, Resource: "gears",
		Handler: webhook.HandlerFunc(func(_ context.Context, req *webhook.Request) webhook.Response {
			obj := &unstructured.Unstructured{}
			if err := obj.UnmarshalJSON(req.Object.Raw); err != nil {
				return webhook.Errored(err)
			}
			teeth, _, _ := unstructured.NestedInt64(obj.Object, "spec", "teeth")
			seen := fmt.Sprintf("saw %s with %d teeth, labels %v", obj.GetAPIVersion(), teeth, obj.GetLabels())
			if teeth > 5 {
				return webhook.Denied(fmt.Sprintf("%d teeth is more than 5", teeth)).WithWarnings(seen)
			}
			return webhook.Allowed().WithWarnings(seen)
		}),
	}); err != nil {
		t.Fatal(err)
	}
	// A mutating webhook, also for v2 only, labels what it saw: the apiserver converts its
	// patched object back to v1 through the conversion webhook.
	if err := reg.Register(webhook.Webhook{
		Name: "label.e2e.admit.dev", Type: webhook.TypeMutating,
		Kind: schema.GroupVersionKind{Group: group, Version: "v2", Kind: "Gear"}, Resource: "gears",
		Handler: webhook.HandlerFunc(func(_ context.Context, req *webhook.Request) webhook.Response {
			obj := &unstructured.Unstructured{}
			if err := obj.UnmarshalJSON(req.Object.Raw); err != nil {
				return webhook.Errored(err)
			}
			labels := obj.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			teeth, _, _ := unstructured.NestedInt64(obj.Object, "spec", "teeth")
			labels["mutated-at"] = fmt.Sprintf("%s.%d", strings.ReplaceAll(obj.GetAPIVersion(), "/", "_"), teeth)
			obj.SetLabels(labels)
			modified, err := obj.MarshalJSON()
			if err != nil {
				return webhook.Errored(err)
			}
			p, err := patch.Diff(req.Object.Raw, modified)
			if err != nil {
				return webhook.Errored(err)
			}
			return webhook.Patched(p)
		}),
	}); err != nil {
		t.Fatal(err)
	}
	served := serveWebhooks(t, reg)
	mutating, validating, err := reg.Configurations(webhook.ConfigOptions{Name: "gears-" + ns, ClientConfig: webhook.ClientConfig{URL: served.URL, CABundle: served.CABundle}})
	if err != nil {
		t.Fatal(err)
	}
	validating.TypeMeta = metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"}
	// A gear labelled skip=webhook (or skip=both) is not sent to the webhook, skip=policy (or
	// both) not to the policy: so that each place the apiserver converts in is reached alone.
	skip := func(what string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "skip", Operator: metav1.LabelSelectorOpNotIn, Values: []string{what, "both"}}}}
	}
	for i := range validating.Webhooks {
		validating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
		validating.Webhooks[i].ObjectSelector = skip("webhook")
	}
	mutating.TypeMeta = metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"}
	for i := range mutating.Webhooks {
		mutating.Webhooks[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
		mutating.Webhooks[i].ObjectSelector = skip("webhook")
	}
	// The policy, on v2 only: no more than 10 teeth.
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: "gears-" + ns},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: selector},
				ObjectSelector:    skip("policy"),
				MatchPolicy:       ptr.To(admissionregistrationv1.Equivalent),
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v2"}, Resources: []string{"gears"}},
				}}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.teeth <= 10", MessageExpression: "'a gear of ' + string(object.spec.teeth) + ' teeth, at most 10'"}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "gears-" + ns},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: policy.Name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	admissionregistration := env.Client.AdmissionregistrationV1()
	must(t, "creating the webhook configuration", func() error {
		_, err := admissionregistration.ValidatingWebhookConfigurations().Create(ctx, validating, metav1.CreateOptions{})
		return err
	})
	t.Cleanup(func() {
		_ = admissionregistration.ValidatingWebhookConfigurations().Delete(context.Background(), validating.Name, metav1.DeleteOptions{})
	})
	must(t, "creating the mutating webhook configuration", func() error {
		_, err := admissionregistration.MutatingWebhookConfigurations().Create(ctx, mutating, metav1.CreateOptions{})
		return err
	})
	t.Cleanup(func() {
		_ = admissionregistration.MutatingWebhookConfigurations().Delete(context.Background(), mutating.Name, metav1.DeleteOptions{})
	})
	must(t, "creating the policy", func() error {
		_, err := admissionregistration.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{})
		return err
	})
	t.Cleanup(func() {
		_ = admissionregistration.ValidatingAdmissionPolicies().Delete(context.Background(), policy.Name, metav1.DeleteOptions{})
	})
	must(t, "creating the binding", func() error {
		_, err := admissionregistration.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{})
		return err
	})
	t.Cleanup(func() {
		_ = admissionregistration.ValidatingAdmissionPolicyBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})

	var mu sync.Mutex
	var warnings []string
	cfg := rest.CopyConfig(env.RESTConfig)
	cfg.WarningHandler = warningFunc(func(text string) { mu.Lock(); warnings = append(warnings, text); mu.Unlock() })
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v1 := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gears"}
	gear := func(name string, size int64, labels map[string]string) *unstructured.Unstructured {
		g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Gear", "spec": map[string]any{"size": size}}}
		g.SetName(name)
		g.SetNamespace(ns)
		g.SetLabels(labels)
		return g
	}
	create := func(g *unstructured.Unstructured) gearAnswer {
		mu.Lock()
		warnings = nil
		mu.Unlock()
		got, err := dyn.Resource(v1).Namespace(ns).Create(ctx, g.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		var status *apierrors.StatusError
		if err != nil && !errors.As(err, &status) {
			t.Fatalf("creating gear %s: %v", g.GetName(), err)
		}
		mu.Lock()
		defer mu.Unlock()
		answer := gearAnswer{Allowed: err == nil, Warnings: warnings}
		if status != nil {
			answer.Code, answer.Message = status.ErrStatus.Code, status.ErrStatus.Message
			return answer
		}
		answer.Labels = got.GetLabels()
		answer.Spec, _, _ = unstructured.NestedMap(got.Object, "spec")
		return answer
	}
	eventually(t, "the webhook and the policy to take effect", func() error {
		if a := create(gear("marker", 7, nil)); a.Allowed {
			return errors.New("a gear of 7 teeth is still admitted")
		}
		if a := create(gear("marker", 20, nil)); !strings.Contains(a.Message, "at most 10") {
			return fmt.Errorf("a gear of 20 teeth: %q, not yet the policy's denial", a.Message)
		}
		if a := create(gear("marker", 1, nil)); a.Labels["mutated-at"] == "" {
			return fmt.Errorf("a gear of 1 tooth: labels %v, not yet the mutating webhook's", a.Labels)
		}
		return nil
	})

	gears := []*unstructured.Unstructured{
		gear("small", 3, nil),
		gear("toothy", 7, nil),
		gear("huge", 20, nil),
		gear("relabelled", 3, map[string]string{"convert": "relabel"}),
		gear("unconvertible", 3, map[string]string{"convert": "fail"}),
		gear("unconvertible-for-the-webhook", 3, map[string]string{"convert": "fail", "skip": "policy"}),
		gear("unconvertible-for-storage", 3, map[string]string{"convert": "fail", "skip": "both"}),
		gear("renamed", 3, map[string]string{"convert": "rename"}),
		gear("renamed-for-the-webhook", 3, map[string]string{"convert": "rename", "skip": "policy"}),
		gear("renamed-for-storage", 3, map[string]string{"convert": "rename", "skip": "both"}),
	}
	apiserver := map[string]gearAnswer{}
	for _, g := range gears {
		apiserver[g.GetName()] = create(g)
	}

	// The same objects, configurations and CRD, as files for admit.
	dir := t.TempDir()
	objectsDir := filepath.Join(dir, "objects")
	writeYAML := func(path string, objs ...any) {
		var buf bytes.Buffer
		for _, o := range objs {
			data, err := yaml.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			buf.WriteString("---\n")
			buf.Write(data)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	crd.ObjectMeta = metav1.ObjectMeta{Name: crd.Name}
	writeYAML(filepath.Join(dir, "crd.yaml"), crd)
	writeYAML(filepath.Join(dir, "admission.yaml"), mutating, validating, policy, binding)
	namespace := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns, "labels": toAny(selector)}}
	writeYAML(filepath.Join(dir, "namespace.yaml"), namespace)
	for _, g := range gears {
		writeYAML(filepath.Join(objectsDir, g.GetName()+".yaml"), g.Object)
	}
	common := []string{"--crds", filepath.Join(dir, "crd.yaml"), "--webhooks", filepath.Join(dir, "admission.yaml"), "--namespaces", filepath.Join(dir, "namespace.yaml")}

	t.Run("review", func(t *testing.T) {
		for _, g := range gears {
			out, stderr, code := runAdmit(t, append([]string{"review", "-f", filepath.Join(objectsDir, g.GetName()+".yaml"), "-o", "json"}, common...)...)
			var got struct {
				Allowed bool
				Status  *struct {
					Code    int32
					Message string
				}
				Warnings []string
				Object   *unstructured.Unstructured
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("gear %s: admit review -o json (exit %d): %v\n%s\n%s", g.GetName(), code, err, out, stderr)
			}
			answer := gearAnswer{Allowed: got.Allowed}
			if len(got.Warnings) > 0 {
				answer.Warnings = got.Warnings
			}
			if got.Status != nil {
				answer.Code, answer.Message = got.Status.Code, got.Status.Message
			}
			if got.Allowed && got.Object != nil {
				answer.Labels = got.Object.GetLabels()
				answer.Spec, _, _ = unstructured.NestedMap(got.Object.Object, "spec")
			}
			if diff := cmp.Diff(apiserver[g.GetName()], answer); diff != "" {
				t.Errorf("gear %s through v1 (-kube-apiserver +admit review):\n%s", g.GetName(), diff)
			}
			wantCode := 0
			if !answer.Allowed {
				wantCode = 1
			}
			if code != wantCode {
				t.Errorf("gear %s: admit review exit %d, want %d\n%s", g.GetName(), code, wantCode, stderr)
			}
		}
	})

	t.Run("test", func(t *testing.T) {
		// A suite whose every expectation is what kube-apiserver answered passes.
		var cases []map[string]any
		for _, g := range gears {
			a := apiserver[g.GetName()]
			expect := map[string]any{"allowed": a.Allowed, "warnings": nonNilStrings(a.Warnings)}
			if !a.Allowed {
				expect["code"], expect["message"] = a.Code, a.Message
			} else {
				expect["object"] = map[string]any{"metadata": map[string]any{"labels": a.Labels}, "spec": a.Spec}
			}
			// What is compared is kube-apiserver's answer, whichever step gives it (for some gears
			// the CRD's conversion webhook, which is no configuration of the file): tests: [].
			cases = append(cases, map[string]any{"name": g.GetName(), "object": "objects/" + g.GetName() + ".yaml", "tests": []string{}, "expect": expect})
		}
		writeYAML(filepath.Join(dir, "admit-test.yaml"), map[string]any{
			"apiVersion": "admit.dev/v1alpha1", "kind": "TestSuite", "name": "conversion webhooks",
			"webhooks": []string{"admission.yaml"}, "crds": []string{"crd.yaml"}, "cluster": []string{"namespace.yaml"}, "cases": cases,
		})
		code, out, report := runAdmitTest(t, filepath.Join(dir, "admit-test.yaml"))
		if code != 0 || report.Tests != len(gears) || report.Failures != 0 {
			t.Errorf("admit test with kube-apiserver's answers as expectations: exit %d, %+v\n%s", code, report, out)
		}
	})

	t.Run("audit", func(t *testing.T) {
		// The proposal over no baseline: each write the apiserver refuses through the webhook or
		// the policy is newly denied with its message; the conversions that fail refuse the write
		// under both.
		report, stderr, code := runAdmitAudit(t, "-f", objectsDir, "--crds", filepath.Join(dir, "crd.yaml"), "--cluster", filepath.Join(dir, "namespace.yaml"),
			"--webhooks", filepath.Join(dir, "admission.yaml"), "--operation", "CREATE", "--max-refused-share", "0.7")
		var want, got []string
		for _, g := range gears {
			// A conversion that fails refuses the write whatever the admission configuration.
			if a := apiserver[g.GetName()]; !a.Allowed && g.GetLabels()["convert"] == "" {
				want = append(want, g.GetName()+": "+a.Message)
			}
		}
		for _, o := range report.Objects {
			if o.Denial != nil {
				got = append(got, o.Name+": "+o.Denial.Message)
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("newly denied (-kube-apiserver +admit audit):\n%s\n%s", diff, stderr)
		}
		if report.Totals.NewlyDenied != len(want) || code != 1 {
			t.Errorf("admit audit: %d newly denied, exit %d; want %d, exit 1\n%s", report.Totals.NewlyDenied, code, len(want), stderr)
		}
	})
	if conv.callCount() == 0 {
		t.Error("the conversion webhook was never called")
	}
}

func (g *gearConversion) callCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
