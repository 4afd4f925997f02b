//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	wt "github.com/admitkit/admit/internal/webhooktest"
)

// The policy scenarios: ValidatingAdmissionPolicies and MutatingAdmissionPolicies in the chain
// with webhooks, through the real kube-apiserver and through the dispatcher with package chain.
// Every scenario records the whole object at a mutating and a validating webhook (so that the
// policies' changes and the order of the chain show), and compares the decision, the status,
// the warnings, the admitted object and every webhook call.

var (
	validatingPolicyGVR  = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}
	validatingBindingGVR = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}
	mutatingPolicyGVR    = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicies"}
	mutatingBindingGVR   = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings"}
)

// policyResource is the resource of a policy object of the scenario, and whether it is a policy
// or binding (cluster-scoped, named after the scenario) rather than a parameter.
func policyResource(obj map[string]any) (schema.GroupVersionResource, bool) {
	switch obj["kind"] {
	case "ValidatingAdmissionPolicy":
		return validatingPolicyGVR, true
	case "ValidatingAdmissionPolicyBinding":
		return validatingBindingGVR, true
	case "MutatingAdmissionPolicy":
		return mutatingPolicyGVR, true
	case "MutatingAdmissionPolicyBinding":
		return mutatingBindingGVR, true
	case "ConfigMap":
		return schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, false
	case "Role":
		return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, false
	case "RoleBinding":
		return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, false
	}
	panic(fmt.Sprintf("the harness cannot create a %v", obj["kind"]))
}

// createPolicies creates the scenario's policies, bindings and parameters. Policies are named
// <scenario>-<name> and match only the scenario's namespace; bindings are named likewise and
// name their policy so; parameters live in the scenario's namespace.
func (r *scenarioRun) createPolicies(t *testing.T) {
	t.Helper()
	if len(r.sc.policies) == 0 {
		return
	}
	ctx := context.Background()
	for _, template := range r.sc.policies {
		obj := &unstructured.Unstructured{Object: deepCopyMap(template)}
		gvr, clusterScoped := policyResource(obj.Object)
		var resource = r.suite.dynamic.Resource(gvr).Namespace(r.namespace)
		if clusterScoped {
			obj.SetName(r.id + "-" + obj.GetName())
			switch obj.GetKind() {
			case "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
				_ = unstructured.SetNestedStringMap(obj.Object, map[string]string{r.scopeKey: r.id}, "spec", "matchConstraints", "namespaceSelector", "matchLabels")
			default:
				policy, _, _ := unstructured.NestedString(obj.Object, "spec", "policyName")
				_ = unstructured.SetNestedField(obj.Object, r.id+"-"+policy, "spec", "policyName")
				if _, ok, _ := unstructured.NestedMap(obj.Object, "spec", "paramRef"); ok {
					_ = unstructured.SetNestedField(obj.Object, r.namespace, "spec", "paramRef", "namespace")
				}
			}
			created, err := r.suite.dynamic.Resource(gvr).Create(ctx, obj, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
			}
			t.Cleanup(func() {
				_ = r.suite.dynamic.Resource(gvr).Delete(context.Background(), created.GetName(), metav1.DeleteOptions{})
			})
			r.policyObjects = append(r.policyObjects, created)
			continue
		}
		obj.SetNamespace(r.namespace)
		rbac := obj.GetKind() == "Role" || obj.GetKind() == "RoleBinding"
		if obj.GetKind() == "RoleBinding" {
			// Its subjects are the scenario's namespace's ServiceAccounts.
			subjects, _, _ := unstructured.NestedSlice(obj.Object, "subjects")
			for _, s := range subjects {
				if subject, ok := s.(map[string]any); ok && subject["kind"] == "ServiceAccount" {
					subject["namespace"] = r.namespace
				}
			}
			_ = unstructured.SetNestedSlice(obj.Object, subjects, "subjects")
		}
		created, err := resource.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
		if !rbac {
			// RBAC objects reach the chain with the namespace's state, read from the cluster.
			r.policyObjects = append(r.policyObjects, created)
		}
	}
	r.createPolicyMarkers(t)
}

// createPolicyMarkers adds a readiness marker for each kind of policy the scenario has: a
// validating policy denying, and a mutating policy labelling, ConfigMaps labelled with the
// scenario in the markers namespace. Once a marker takes effect, so have the policies created
// before it (the apiserver rebuilds a plugin's policies from all it has read).
func (r *scenarioRun) createPolicyMarkers(t *testing.T) {
	t.Helper()
	validating, mutating := false, false
	for _, obj := range r.sc.policies {
		switch obj["kind"] {
		case "ValidatingAdmissionPolicy":
			validating = true
		case "MutatingAdmissionPolicy":
			mutating = true
		}
	}
	constraints := func(label string) map[string]any {
		return map[string]any{
			"resourceRules":     []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}},
			"namespaceSelector": map[string]any{"matchLabels": toAny(r.suite.markersLabel)},
			"objectSelector":    map[string]any{"matchLabels": map[string]any{"policy-marker": label}},
		}
	}
	var markers []map[string]any
	if validating {
		markers = append(markers,
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": r.id + "-marker"},
				"spec": map[string]any{"matchConstraints": constraints(r.id + "-v"), "validations": []any{map[string]any{"expression": "false", "message": "marker " + r.id}}}},
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": r.id + "-marker"},
				"spec": map[string]any{"policyName": r.id + "-marker", "validationActions": []any{"Deny"}}})
	}
	if mutating {
		markers = append(markers,
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy", "metadata": map[string]any{"name": r.id + "-marker"},
				"spec": map[string]any{"matchConstraints": constraints(r.id + "-m"), "reinvocationPolicy": "Never", "mutations": []any{map[string]any{"patchType": "JSONPatch",
					"jsonPatch": map[string]any{"expression": `[JSONPatch{op: "add", path: "/data", value: {"marker": "` + r.id + `"}}]`}}}}},
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": map[string]any{"name": r.id + "-marker"},
				"spec": map[string]any{"policyName": r.id + "-marker"}})
	}
	if r.configMapParams() {
		// The apiserver reads parameters through an informer of their kind, started with the
		// first policy that needs it: a marker whose parameter is created after the scenario's
		// proves the informer has them too (it sees objects in the order they were written).
		param := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: r.id + "-param-marker"}}
		if _, err := env.Client.CoreV1().ConfigMaps(r.suite.markersNamespace).Create(context.Background(), param, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating the parameter marker: %v", err)
		}
		t.Cleanup(func() {
			_ = env.Client.CoreV1().ConfigMaps(r.suite.markersNamespace).Delete(context.Background(), param.Name, metav1.DeleteOptions{})
		})
		markers = append(markers,
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": r.id + "-param-marker"},
				"spec": map[string]any{"matchConstraints": constraints(r.id + "-p"), "paramKind": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
					"validations": []any{map[string]any{"expression": "false", "messageExpression": "'param marker ' + params.metadata.name"}}}},
			map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": r.id + "-param-marker"},
				"spec": map[string]any{"policyName": r.id + "-param-marker", "validationActions": []any{"Deny"},
					"paramRef": map[string]any{"name": param.Name, "namespace": r.suite.markersNamespace, "parameterNotFoundAction": "Deny"}}})
	}
	for _, m := range markers {
		obj := &unstructured.Unstructured{Object: m}
		gvr, _ := policyResource(m)
		if _, err := r.suite.dynamic.Resource(gvr).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating the policy marker %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
		t.Cleanup(func() {
			_ = r.suite.dynamic.Resource(gvr).Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{})
		})
	}
}

// awaitPolicies waits until the policy markers take effect.
func (r *scenarioRun) awaitPolicies(t *testing.T) {
	t.Helper()
	configmaps := env.Client.CoreV1().ConfigMaps(r.suite.markersNamespace)
	marker := func(label string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "policy-marker", Labels: map[string]string{"policy-marker": label}}}
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	kinds := map[any]bool{}
	for _, obj := range r.sc.policies {
		if kinds[obj["kind"]] {
			continue
		}
		kinds[obj["kind"]] = true
		switch obj["kind"] {
		case "ValidatingAdmissionPolicy":
			eventually(t, "the validating policies to take effect", func() error {
				_, err := configmaps.Create(context.Background(), marker(r.id+"-v"), dryRun)
				if err == nil || !strings.Contains(err.Error(), "marker "+r.id) {
					return fmt.Errorf("marker not denied yet: %v", err)
				}
				return nil
			})
		case "MutatingAdmissionPolicy":
			eventually(t, "the mutating policies to take effect", func() error {
				created, err := configmaps.Create(context.Background(), marker(r.id+"-m"), dryRun)
				if err != nil || created.Data["marker"] != r.id {
					return fmt.Errorf("marker not mutated yet: %v", err)
				}
				return nil
			})
		}
	}
	if r.configMapParams() {
		eventually(t, "the policies' parameters to reach the apiserver's informer", func() error {
			_, err := configmaps.Create(context.Background(), marker(r.id+"-p"), dryRun)
			if err == nil || !strings.Contains(err.Error(), "param marker "+r.id) {
				return fmt.Errorf("parameter marker not denied with its parameter yet: %v", err)
			}
			return nil
		})
	}
}

// configMapParams reports a validating policy of the scenario whose parameters are ConfigMaps.
func (r *scenarioRun) configMapParams() bool {
	for _, obj := range r.sc.policies {
		kind, _, _ := unstructured.NestedString(obj, "spec", "paramKind", "kind")
		if obj["kind"] == "ValidatingAdmissionPolicy" && kind == "ConfigMap" {
			return true
		}
	}
	return false
}

func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// policy builds a policy of kind on CREATE of ConfigMaps (or rules) with spec fields.
func policy(kind, name string, spec map[string]any) map[string]any {
	if _, ok := spec["matchConstraints"]; !ok {
		spec["matchConstraints"] = map[string]any{"resourceRules": []any{map[string]any{
			"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE", "UPDATE"}, "resources": []any{"configmaps"}}}}
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": name}, "spec": spec}
}

func binding(kind, name, policyName string, spec map[string]any) map[string]any {
	if spec == nil {
		spec = map[string]any{}
	}
	spec["policyName"] = policyName
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": name}, "spec": spec}
}

func validatingPolicy(name string, spec map[string]any) map[string]any {
	return policy("ValidatingAdmissionPolicy", name, spec)
}

func validatingBinding(name, policyName string, actions ...string) map[string]any {
	var a []any
	for _, x := range actions {
		a = append(a, x)
	}
	return binding("ValidatingAdmissionPolicyBinding", name, policyName, map[string]any{"validationActions": a})
}

func mutatingPolicy(name string, spec map[string]any) map[string]any {
	return policy("MutatingAdmissionPolicy", name, spec)
}

func mutatingBinding(name, policyName string) map[string]any {
	return binding("MutatingAdmissionPolicyBinding", name, policyName, nil)
}

func validation(expression, message string) map[string]any {
	v := map[string]any{"expression": expression}
	if message != "" {
		v["message"] = message
	}
	return v
}

func applyConfiguration(expression string) map[string]any {
	return map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": expression}}
}

func jsonPatchMutation(expression string) map[string]any {
	return map[string]any{"patchType": "JSONPatch", "jsonPatch": map[string]any{"expression": expression}}
}

// policyScenario is a ConfigMap CREATE through recorders and the given policies.
func policyScenario(name string, data map[string]any, policies ...map[string]any) differential {
	m, v := recorders("", "v1", "configmaps", false)
	return differential{name: name, mutating: m, validating: v, policies: policies,
		write: write{op: admissionv1.Create, gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			object: obj("v1", "ConfigMap", "settings", map[string]any{"data": data})}}
}

// deployerMayUpdate asks RBAC whether the namespace's deployer ServiceAccount may update
// Deployments there; deployRole and deployerBinding let it.
const deployerMayUpdate = "authorizer.serviceAccount(request.namespace, 'deployer').group('apps').resource('deployments').namespace(request.namespace).check('update').allowed()"

var (
	deployRole = map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": map[string]any{"name": "deploy"},
		"rules": []any{map[string]any{"apiGroups": []any{"apps"}, "resources": []any{"deployments"}, "verbs": []any{"update"}}}}
	deployerBinding = map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": map[string]any{"name": "deployer"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deploy"},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "deployer"}}}
)

func policyScenarios() []differential {
	withParams := func(name string, paramRef map[string]any) map[string]any {
		return binding("ValidatingAdmissionPolicyBinding", name, "limits", map[string]any{"validationActions": []any{"Deny"}, "paramRef": paramRef})
	}
	limits := validatingPolicy("limits", map[string]any{
		"paramKind":   map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
		"validations": []any{validation("size(object.data) <= int(params.data.max)", "too many keys")},
	})
	param := func(name, max string, labels map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "labels": labels}, "data": map[string]any{"max": max}}
	}
	two := map[string]any{"a": "1", "b": "2"}

	scenarios := []differential{
		policyScenario("a validating policy denies", two,
			validatingPolicy("small", map[string]any{"validations": []any{validation("size(object.data) < 2", "at most one key")}}),
			validatingBinding("small", "small", "Deny")),
		policyScenario("a validating policy warns", two,
			validatingPolicy("small", map[string]any{"validations": []any{validation("size(object.data) < 2", "at most one key")}}),
			validatingBinding("small", "small", "Warn")),
		policyScenario("a validating policy audits: admitted", two,
			validatingPolicy("small", map[string]any{"validations": []any{validation("size(object.data) < 2", "at most one key")}}),
			validatingBinding("small", "small", "Audit")),
		policyScenario("one policy, a Deny binding and a Warn binding", two,
			validatingPolicy("small", map[string]any{"validations": []any{validation("size(object.data) < 2", "at most one key")}}),
			validatingBinding("small-deny", "small", "Deny"), validatingBinding("small-warn", "small", "Warn")),
		policyScenario("messageExpression", two,
			validatingPolicy("small", map[string]any{"validations": []any{map[string]any{"expression": "size(object.data) < 2",
				"messageExpression": "'has ' + string(size(object.data)) + ' keys'"}}}),
			validatingBinding("small", "small", "Deny")),
		policyScenario("variables", two,
			validatingPolicy("small", map[string]any{"variables": []any{map[string]any{"name": "keys", "expression": "size(object.data)"}},
				"validations": []any{validation("variables.keys < 2", "at most one key")}}),
			validatingBinding("small", "small", "Deny")),
		policyScenario("matchConditions false: the policy does not apply", two,
			validatingPolicy("small", map[string]any{"matchConditions": []any{map[string]any{"name": "labelled", "expression": "has(object.metadata.labels)"}},
				"validations": []any{validation("size(object.data) < 2", "at most one key")}}),
			validatingBinding("small", "small", "Deny")),
		policyScenario("a binding's namespaceSelector excludes the namespace", two,
			validatingPolicy("small", map[string]any{"validations": []any{validation("size(object.data) < 2", "at most one key")}}),
			binding("ValidatingAdmissionPolicyBinding", "small", "small", map[string]any{"validationActions": []any{"Deny"},
				"matchResources": map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"tier": "none"}}}})),
		policyScenario("a reason and a code of its own", two,
			validatingPolicy("small", map[string]any{"validations": []any{map[string]any{"expression": "size(object.data) < 2", "message": "at most one key", "reason": "Forbidden"}}}),
			validatingBinding("small", "small", "Deny")),
		policyScenario("params: one ConfigMap by name", two, limits, param("one", "1", nil),
			withParams("limits", map[string]any{"name": "one", "parameterNotFoundAction": "Deny"})),
		policyScenario("params by selector: every matching ConfigMap is checked", two, limits,
			param("loose", "5", map[string]any{"limit": "yes"}), param("strict", "1", map[string]any{"limit": "yes"}),
			withParams("limits", map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"limit": "yes"}}, "parameterNotFoundAction": "Deny"})),
		policyScenario("missing params with parameterNotFoundAction Deny", two, limits,
			withParams("limits", map[string]any{"name": "absent", "parameterNotFoundAction": "Deny"})),
		policyScenario("missing params with parameterNotFoundAction Allow", two, limits,
			withParams("limits", map[string]any{"name": "absent", "parameterNotFoundAction": "Allow"})),
		policyScenario("a runtime error under failurePolicy Fail", two,
			validatingPolicy("broken", map[string]any{"failurePolicy": "Fail", "validations": []any{validation("object.data['missing'] == 'x'", "")}}),
			validatingBinding("broken", "broken", "Deny")),
		policyScenario("a runtime error under failurePolicy Ignore", two,
			validatingPolicy("broken", map[string]any{"failurePolicy": "Ignore", "validations": []any{validation("object.data['missing'] == 'x'", "")}}),
			validatingBinding("broken", "broken", "Deny")),
		policyScenario("a mutating policy with an ApplyConfiguration", two,
			mutatingPolicy("owner", map[string]any{"reinvocationPolicy": "Never", "mutations": []any{
				applyConfiguration(`Object{metadata: Object.metadata{labels: {"owner": "platform"}}}`)}}),
			mutatingBinding("owner", "owner")),
		policyScenario("a mutating policy with a JSONPatch", two,
			mutatingPolicy("stamp", map[string]any{"reinvocationPolicy": "Never", "mutations": []any{
				jsonPatchMutation(`[JSONPatch{op: "add", path: "/data/stamped", value: "yes"}]`)}}),
			mutatingBinding("stamp", "stamp")),
		policyScenario("an authorizer check a RoleBinding grants: admitted", two,
			validatingPolicy("deployer", map[string]any{"validations": []any{validation(deployerMayUpdate, "the deployer may not update deployments")}}),
			validatingBinding("deployer", "deployer", "Deny"), deployRole, deployerBinding),
		policyScenario("an authorizer check nothing grants: denied", two,
			validatingPolicy("deployer", map[string]any{"validations": []any{validation(deployerMayUpdate, "the deployer may not update deployments")}}),
			validatingBinding("deployer", "deployer", "Deny")),
		policyScenario("an authorizer check on the requesting user, whom the cluster lets do anything", two,
			validatingPolicy("may-delete", map[string]any{"validations": []any{validation(
				"authorizer.group('apps').resource('deployments').namespace(request.namespace).check('delete').allowed()", "the writer may not delete deployments")}}),
			validatingBinding("may-delete", "may-delete", "Deny")),
		policyScenario("authorizer.requestResource: the writer may update what it creates", two,
			validatingPolicy("may-update", map[string]any{"validations": []any{validation(
				"authorizer.requestResource.check('update').allowed()", "the writer may not update it")}}),
			validatingBinding("may-update", "may-update", "Deny")),
		policyScenario("an authorizer check in a policy's matchConditions: the policy does not apply", two,
			validatingPolicy("deny-unless-deployer", map[string]any{
				"matchConditions": []any{map[string]any{"name": "deployer-may-not", "expression": "!(" + deployerMayUpdate + ")"}},
				"validations":     []any{validation("false", "denied: the deployer may not update deployments")}}),
			validatingBinding("deny-unless-deployer", "deny-unless-deployer", "Deny"), deployRole, deployerBinding),
		policyScenario("a policy and a validating webhook both deny: the policy's denial, the webhook not called", two,
			validatingPolicy("small", map[string]any{"validations": []any{validation("size(object.data) < 2", "at most one key")}}),
			validatingBinding("small", "small", "Deny")),
	}

	// A mutating webhook that only sees what the policy labelled, and a policy that copies a
	// label the webhook sets, reinvoked after it.
	dependent := policyScenario("a mutating webhook depends on a mutating policy's change; the policy is reinvoked after the webhook's", two,
		mutatingPolicy("copy", map[string]any{"reinvocationPolicy": "IfNeeded", "mutations": []any{
			applyConfiguration(`Object{metadata: Object.metadata{labels: {"policy": "seen", "copied": has(object.metadata.labels) && "webhook" in object.metadata.labels ? string(object.metadata.labels["webhook"]) : "none"}}}`)}}),
		mutatingBinding("copy", "copy"))
	dependent.mutating = one(
		hook{name: "after-policy", path: wt.SetLabel("webhook", "set"), reinvokeIfNeeded: true,
			rules:          []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "", "v1", "configmaps")},
			objectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"policy": "seen"}}},
		hook{name: "seen-mutating", path: mutatingRecorder(), reinvokeIfNeeded: true,
			rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "", "v1", "configmaps")}})
	scenarios = append(scenarios, dependent)

	both := &scenarios[len(scenarios)-2]
	both.validating = one(hook{name: "deny", path: wt.Deny(wt.Message("no")),
		rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "", "v1", "configmaps")}})

	deployment := differential{name: "a mutating policy sets a Deployment's replicas; a validating policy reads the defaults",
		policies: []map[string]any{
			mutatingPolicy("replicas", map[string]any{"reinvocationPolicy": "Never",
				"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"deployments"}}}},
				"mutations":        []any{applyConfiguration(`Object{spec: Object.spec{replicas: 3}}`)}}),
			mutatingBinding("replicas", "replicas"),
			validatingPolicy("pull", map[string]any{
				"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"deployments"}}}},
				"validations":      []any{validation("object.spec.template.spec.containers.all(c, c.imagePullPolicy == 'IfNotPresent')", "images are pulled once")}}),
			validatingBinding("pull", "pull", "Deny"),
		},
		write: write{op: admissionv1.Create, gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			object: obj("apps/v1", "Deployment", "web", map[string]any{"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
				"template": podTemplate(map[string]any{"app": "web"}, "nginx:latest")}})},
	}
	deployment.mutating, deployment.validating = recorders("apps", "v1", "deployments", false)
	scenarios = append(scenarios, deployment)

	// matchPolicy Equivalent (the default): an autoscaling/v1 write under a policy on v2, which
	// reads the object converted to v2 (spec.metrics, which v1 does not have).
	hpaV2Rules := map[string]any{"resourceRules": []any{map[string]any{"apiGroups": []any{"autoscaling"}, "apiVersions": []any{"v2"},
		"operations": []any{"CREATE"}, "resources": []any{"horizontalpodautoscalers"}}}}
	equivalent := differential{
		name: "an autoscaling/v1 HPA under a policy on autoscaling/v2",
		policies: []map[string]any{
			validatingPolicy("autoscaling", map[string]any{"matchConstraints": hpaV2Rules,
				"validations": []any{validation("object.spec.maxReplicas <= 10 || object.spec.metrics[0].resource.target.averageUtilization < 50", "scale wider at a lower target")}}),
			validatingBinding("autoscaling", "autoscaling", "Deny"),
		},
		fields: []string{"spec"},
		write: write{op: admissionv1.Create, gvr: schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"},
			object: obj("autoscaling/v1", "HorizontalPodAutoscaler", "web", map[string]any{"spec": map[string]any{
				"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
				"minReplicas":    int64(1), "maxReplicas": int64(20), "targetCPUUtilizationPercentage": int64(80)}})},
	}
	equivalent.mutating, equivalent.validating = recorders("autoscaling", "v1", "horizontalpodautoscalers", false)
	scenarios = append(scenarios, equivalent)

	// What cannot apply does nothing: a policy no binding names, a binding whose policy does not
	// exist (admit's rows say so; the decision is the apiserver's).
	scenarios = append(scenarios, policyScenario("a policy nothing binds and a binding without its policy deny nothing", map[string]any{"a": "1"},
		validatingPolicy("unbound", map[string]any{"validations": []any{validation("false", "never")}}),
		validatingBinding("orphan", "absent", "Deny"),
	))

	wants := map[string]want{
		"a validating policy denies":                              {code: 422, message: "at most one key"},
		"one policy, a Deny binding and a Warn binding":           {code: 422, message: "at most one key"},
		"messageExpression":                                       {code: 422, message: "has 2 keys"},
		"variables":                                               {code: 422, message: "at most one key"},
		"a reason and a code of its own":                          {code: 403, message: "at most one key"},
		"params: one ConfigMap by name":                           {code: 422, message: "too many keys"},
		"params by selector: every matching ConfigMap is checked": {code: 422, message: "too many keys"},
		"missing params with parameterNotFoundAction Deny":        {code: 422, message: "no params found"},
		"a runtime error under failurePolicy Fail":                {code: 422, message: "no such key"},
		"an authorizer check nothing grants: denied":              {code: 422, message: "the deployer may not update deployments"},
		"a policy and a validating webhook both deny: the policy's denial, the webhook not called": {code: 422, message: "at most one key",
			calls: map[string]int{wt.Deny(wt.Message("no")): 0}},
		"a mutating policy sets a Deployment's replicas; a validating policy reads the defaults": {code: 422, message: "images are pulled once"},
		"an autoscaling/v1 HPA under a policy on autoscaling/v2":                                 {code: 422, message: "scale wider at a lower target"},
	}
	for i := range scenarios {
		if w, ok := wants[scenarios[i].name]; ok {
			scenarios[i].want = w
		}
	}
	return scenarios
}

func TestDifferentialPoliciesMatchAPIServer(t *testing.T) {
	suite := newDifferentialSuite(t)
	suite.holdConfigMapParams(t)
	for _, sc := range policyScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			suite.run(t, &sc)
		})
	}
}

// holdConfigMapParams keeps kube-apiserver's informer of ConfigMap parameters running for the
// whole test: the apiserver starts it with the first policy whose parameters are ConfigMaps and
// stops it with the last, and policies created around a restart were seen to wait for their
// parameters indefinitely. A policy of its own, bound to nothing the scenarios write, holds it
// from the start (once it denies its probe with its parameter) to the end.
func (suite *differentialSuite) holdConfigMapParams(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	name := suite.markersNamespace + "-params"
	configmaps := env.Client.CoreV1().ConfigMaps(suite.markersNamespace)
	if _, err := configmaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the parameters' anchor: %v", err)
	}
	objects := []map[string]any{
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": name},
			"spec": map[string]any{
				"paramKind": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
				"matchConstraints": map[string]any{
					"resourceRules":     []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}},
					"namespaceSelector": map[string]any{"matchLabels": toAny(suite.markersLabel)},
					"objectSelector":    map[string]any{"matchLabels": map[string]any{"policy-marker": name}},
				},
				"validations": []any{map[string]any{"expression": "false", "messageExpression": "'param marker ' + params.metadata.name"}},
			}},
		{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"policyName": name, "validationActions": []any{"Deny"},
				"paramRef": map[string]any{"name": name, "namespace": suite.markersNamespace, "parameterNotFoundAction": "Deny"}}},
	}
	for _, m := range objects {
		obj := &unstructured.Unstructured{Object: m}
		gvr, _ := policyResource(m)
		if _, err := suite.dynamic.Resource(gvr).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating the parameters' anchor %s: %v", obj.GetKind(), err)
		}
		t.Cleanup(func() {
			_ = suite.dynamic.Resource(gvr).Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{})
		})
	}
	probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Labels: map[string]string{"policy-marker": name}}}
	eventually(t, "the ConfigMap parameters' informer to start", func() error {
		_, err := configmaps.Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "param marker "+name) {
			return fmt.Errorf("probe not denied with its parameter yet: %v", err)
		}
		return nil
	})
}
