package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/dispatch"
	"github.com/admitkit/admit/engine"
)

// policyOn is a ValidatingAdmissionPolicy with one expression, on CREATE of a resource.
func policyOn(group, version, resource, expression string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: "policy"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: expression}},
		},
	}
}

func TestPolicyTypeChecker(t *testing.T) {
	checker, err := NewPolicyTypeChecker([]*apiextensionsv1.CustomResourceDefinition{widgets(t)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		policy *admissionregistrationv1.ValidatingAdmissionPolicy
		// want are parts of the one warning expected, none when the expression fits.
		want []string
	}{
		{name: "a field of the kind", policy: policyOn("apps", "v1", "deployments", "object.spec.replicas <= 5")},
		{name: "a field the kind lacks", policy: policyOn("", "v1", "pods", "object.spec.replicas <= 5"),
			want: []string{"against Pod (v1): undefined field 'replicas' at line 1, column 12"}},
		// kube-controller-manager's schemas drop maps of quantities; at runtime they are there.
		{name: "a map of quantities", policy: policyOn("", "v1", "pods", "object.spec.containers.all(c, has(c.resources.requests))")},
		{name: "a quantity compared as a number", policy: policyOn("", "v1", "pods", "object.spec.containers.all(c, c.resources.limits.cpu > 1)"),
			want: []string{"no matching overload for '_>_' applied to '(string, int)'"}},
		{name: "a field of a custom resource", policy: policyOn("example.com", "v1", "widgets", "object.spec.size <= 5")},
		{name: "a field a custom resource lacks", policy: policyOn("example.com", "v1", "widgets", "object.spec.weight <= 5"),
			want: []string{"against Widget (example.com/v1): undefined field 'weight'"}},
		{name: "a part a kind guard skips", policy: policyOn("", "v1", "pods", "object.kind == 'Pod' || object.spec.replicas <= 5")},
		{name: "a part a guard by list skips", policy: policyOn("", "v1", "pods", "['Deployment', 'StatefulSet'].all(k, object.kind != k) || object.spec.replicas <= 5")},
		{name: "the branch a conditional does not take", policy: policyOn("", "v1", "pods", "object.kind == 'Deployment' ? object.spec.replicas <= 5 : true")},
		{name: "the branch a conditional takes", policy: policyOn("", "v1", "pods", "object.kind == 'Pod' ? object.spec.replicas <= 5 : true"),
			want: []string{"undefined field 'replicas'"}},
		{name: "a guard false for the kind", policy: policyOn("", "v1", "pods", "object.kind != 'Pod' || object.spec.replicas <= 5"),
			want: []string{"undefined field 'replicas'"}},
		{name: "two lists of containers joined", policy: policyOn("", "v1", "pods", "(object.spec.containers + object.spec.initContainers).all(c, c.name != '')")},
		{name: "a guard that reads more than the kind", policy: policyOn("", "v1", "pods", "object.metadata.name == 'x' || object.spec.replicas <= 5"),
			want: []string{"undefined field 'replicas'"}},
		// The apiserver's type checker does not declare it; policies have it at runtime.
		{name: "the authorizer's requestResource", policy: policyOn("", "v1", "pods", "authorizer.requestResource.check('get').allowed()")},
		// A RawExtension holds any JSON: its fields are not known, nor refused.
		{name: "a RawExtension's fields", policy: policyOn("apps", "v1", "controllerrevisions", "object.data.spec.replicas > 1")},
		{name: "a custom resource without a CRD is not checked", policy: policyOn("example.org", "v1", "gadgets", "object.spec.weight <= 5")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			warnings, err := checker.Check(tt.policy)
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.want) == 0 {
				if len(warnings) > 0 {
					t.Fatalf("warnings %+v, want none", warnings)
				}
				return
			}
			if len(warnings) != 1 {
				t.Fatalf("warnings %+v, want one", warnings)
			}
			if warnings[0].Field != "spec.validations[0].expression" {
				t.Errorf("field %q, want spec.validations[0].expression", warnings[0].Field)
			}
			for _, part := range tt.want {
				if !strings.Contains(warnings[0].String(), part) {
					t.Errorf("warning %q does not contain %q", warnings[0], part)
				}
			}
		})
	}
}

func TestPolicyErrors(t *testing.T) {
	binding := func(paramRef *admissionregistrationv1.ParamRef) runtime.Object {
		return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: "binding"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: "policy", ParamRef: paramRef,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			},
		}
	}
	tests := []struct {
		name string
		obj  runtime.Object
		want []string // the fields of the errors
	}{
		{name: "a valid policy, defaulted first", obj: policyOn("apps", "v1", "deployments", "object.spec.replicas <= 5")},
		{name: "an expression that does not compile", obj: policyOn("apps", "v1", "deployments", "object.spec.replicas <="),
			want: []string{"spec.validations[0].expression"}},
		{name: "a valid binding", obj: binding(&admissionregistrationv1.ParamRef{Name: "limits", ParameterNotFoundAction: ptrTo(admissionregistrationv1.DenyAction)})},
		{name: "a paramRef without parameterNotFoundAction", obj: binding(&admissionregistrationv1.ParamRef{Name: "limits"}),
			want: []string{"spec.paramRef.parameterNotFoundAction"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs, _, err := PolicyErrors(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error fields (-want +got):\n%s\n%v", diff, errs)
			}
		})
	}
	if _, _, err := PolicyErrors(&admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
	}); err == nil || !strings.Contains(err.Error(), "not an admission policy") {
		t.Errorf("PolicyErrors of a webhook configuration: %v, want an error", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// bindingOf binds a ValidatingAdmissionPolicy with the Deny action.
func bindingOf(policy string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: policy + "-binding"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}
}

// gadgets is a custom resource served in v1 and v2 (conversion None: only apiVersion changes).
func gadgets(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}}
  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}}}}}}}
`), &crd); err != nil {
		t.Fatal(err)
	}
	return &crd
}

// A policy matching one version of a resource applies to requests in its other served versions,
// converted to the policy's version, as kube-apiserver's matchPolicy Equivalent (the default for
// policies) does; Exact keeps it to its own version.
func TestPoliciesMatchEquivalentVersions(t *testing.T) {
	hpa := `
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 1, maxReplicas: 20, targetCPUUtilizationPercentage: 50}
`
	gadget := `
apiVersion: example.com/v2
kind: Gadget
metadata: {name: g, namespace: default}
spec: {size: 20}
`
	exact := admissionregistrationv1.Exact
	tests := []struct {
		name       string
		policy     *admissionregistrationv1.ValidatingAdmissionPolicy
		gvr        schema.GroupVersionResource
		object     string
		wantDenied bool
	}{
		// v2 has spec.metrics where v1 has targetCPUUtilizationPercentage: the policy reads the
		// request converted to v2.
		{name: "an autoscaling/v1 HPA under a policy on autoscaling/v2", wantDenied: true,
			policy: policyOn("autoscaling", "v2", "horizontalpodautoscalers", "object.spec.maxReplicas <= 10 && object.spec.metrics[0].resource.target.averageUtilization == 50"),
			gvr:    schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}, object: hpa},
		{name: "the same HPA within the policy's limit", wantDenied: false,
			policy: policyOn("autoscaling", "v2", "horizontalpodautoscalers", "object.spec.maxReplicas <= 20 && object.spec.metrics[0].resource.target.averageUtilization == 50"),
			gvr:    schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}, object: hpa},
		{name: "a custom resource's v2 under a policy on its v1", wantDenied: true,
			policy: policyOn("example.com", "v1", "gadgets", "object.apiVersion == 'example.com/v1' && object.spec.size <= 10"),
			gvr:    schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "gadgets"}, object: gadget},
		{name: "matchPolicy Exact keeps the policy to its version", wantDenied: false,
			policy: func() *admissionregistrationv1.ValidatingAdmissionPolicy {
				p := policyOn("example.com", "v1", "gadgets", "object.spec.size <= 10")
				p.Spec.MatchConstraints.MatchPolicy = &exact
				return p
			}(),
			gvr: schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "gadgets"}, object: gadget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newChain(t, Config{CRDs: []*apiextensionsv1.CustomResourceDefinition{gadgets(t)}, Objects: []runtime.Object{tt.policy, bindingOf(tt.policy.Name)}})
			d := newDispatcher(t, c, dispatch.Options{})
			res, err := d.Admit(context.Background(), request(t, tt.gvr, tt.object, ""))
			if err != nil {
				t.Fatal(err)
			}
			if denied := !res.Allowed; denied != tt.wantDenied {
				t.Fatalf("denied = %v, want %v; status %+v; rows %+v", denied, tt.wantDenied, res.Status, res.Rows)
			}
			if tt.wantDenied && (res.Status.Code != 422 || !strings.Contains(res.Status.Message, `ValidatingAdmissionPolicy 'policy' with binding 'policy-binding' denied request`)) {
				t.Errorf("status %d %q, want the policy's 422", res.Status.Code, res.Status.Message)
			}
		})
	}
}

// A policy no binding names and a binding whose policy does not exist do nothing, as in
// kube-apiserver; each still has a row saying why.
func TestInertPoliciesHaveRows(t *testing.T) {
	unbound := policyOn("", "v1", "configmaps", "false")
	unbound.Name = "unbound"
	orphan := bindingOf("absent")
	c := newChain(t, Config{Objects: []runtime.Object{unbound, orphan}})
	d := newDispatcher(t, c, dispatch.Options{})
	res, err := d.Admit(context.Background(), request(t, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	type row struct{ Name, Binding, Reason string }
	var got []row
	for _, r := range res.Rows {
		if r.Outcome == engine.OutcomeInert {
			got = append(got, row{r.Name, r.Binding, r.Reason})
		}
	}
	want := []row{
		{"absent", "absent-binding", `its policy "absent" does not exist: kube-apiserver ignores the binding`},
		{"unbound", "", "no binding names the policy: kube-apiserver evaluates a policy only through its bindings, so it never runs"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inert rows (-want +got):\n%s", diff)
	}
}

// stampPolicy is a MutatingAdmissionPolicy, and its binding, setting data.stamped on ConfigMaps
// created.
func stampPolicy(t *testing.T) []runtime.Object {
	t.Helper()
	var policy admissionregistrationv1.MutatingAdmissionPolicy
	var binding admissionregistrationv1.MutatingAdmissionPolicyBinding
	for doc, into := range map[string]any{`
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: stamp}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{data: Object.data{stamped: "yes"}}'
`: &policy, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: stamp-binding}
spec: {policyName: stamp}
`: &binding} {
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Fatal(err)
		}
	}
	return []runtime.Object{&policy, &binding}
}

// The mutating policy plugin lists the API's schemas in the background as it starts and refuses
// every mutation until it has them; the chain's first admission is one of a cluster that has
// been running, so it waits for the listing however long that takes.
func TestMutatingPolicyFirstAdmissionWaitsForSchemas(t *testing.T) {
	c := newChain(t, Config{
		Objects:             stampPolicy(t),
		beforeSchemaListing: func() { time.Sleep(300 * time.Millisecond) },
	})
	d := newDispatcher(t, c, dispatch.Options{})
	res, err := d.Admit(context.Background(), request(t, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {a: '1'}\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("rejected: %+v", res.Status)
	}
	var got struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(res.Object, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"a": "1", "stamped": "yes"}, got.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

func TestIsSchemaNotKnown(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the plugin's refusal", apierrors.NewServiceUnavailable("Resource kind /v1, Kind=ConfigMap not found. There can be a delay between when CustomResourceDefinitions are created and when they are available."), true},
		{"wrapped", fmt.Errorf("policy: %w", apierrors.NewServiceUnavailable("Resource kind apps/v1, Kind=Deployment not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.")), true},
		{"another unavailable", apierrors.NewServiceUnavailable("etcd is down"), false},
		{"the same words, another status", apierrors.NewInternalError(errors.New("Resource kind /v1, Kind=ConfigMap not found. There can be a delay between when CustomResourceDefinitions are created")), false},
		{"no error", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isSchemaNotKnown(tc.err); got != tc.want {
				t.Errorf("isSchemaNotKnown(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// refusingPlugin refuses its first refusals calls as the mutating policy plugin refuses a kind
// whose schema it has not recorded yet.
type refusingPlugin struct {
	refusals, calls int
}

func (p *refusingPlugin) Handles(admission.Operation) bool { return true }

func (p *refusingPlugin) Admit(context.Context, admission.Attributes, admission.ObjectInterfaces) error {
	p.calls++
	if p.calls <= p.refusals {
		return apierrors.NewServiceUnavailable("Resource kind /v1, Kind=ConfigMap not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.")
	}
	return nil
}

func TestMutatingBindingCallsAgainWhileSchemasSettle(t *testing.T) {
	for _, tc := range []struct {
		name      string
		listedAgo time.Duration
		wantCalls int
		wantErr   bool
	}{
		{"just listed: called until the plugin knows the schema", 0, 3, false},
		{"listed long ago: the refusal is the answer", 2 * schemaSettling, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plugin := &refusingPlugin{refusals: 2}
			b := &policyBinding{plugin: plugin, schemas: &schemaClient{listedAt: time.Now().Add(-tc.listedAgo)}}
			err := b.admit(context.Background(), nil, nil)
			if (err != nil) != tc.wantErr || plugin.calls != tc.wantCalls {
				t.Errorf("admit: error %v after %d calls, want error %v after %d calls", err, plugin.calls, tc.wantErr, tc.wantCalls)
			}
		})
	}
}
