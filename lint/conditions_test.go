package lint

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// conditionWebhook is a validating configuration whose one webhook has rules and
// matchConditions, both as YAML flow lists, and a failurePolicy.
func conditionWebhook(rules, conditions, failurePolicy string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: checks}
webhooks:
- name: checks.example.com
  clientConfig: {url: "https://checks.example.com/validate"}
  rules: ` + rules + `
  matchConditions: ` + conditions + `
  namespaceSelector:
    matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]
  failurePolicy: ` + failurePolicy + `
  timeoutSeconds: 2
  sideEffects: None
  admissionReviewVersions: [v1]
`
}

const (
	podRules        = `[{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}]`
	podAndWorkloads = `[{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}, {apiGroups: [apps], apiVersions: [v1], resources: [deployments, statefulsets], operations: [CREATE]}]`
	widgetRules     = `[{apiGroups: [example.com], apiVersions: [v1], resources: [widgets], operations: [CREATE]}]`
	widgetCRD       = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              colour: {type: string}
---
`
)

// C06 type-checks each webhook's matchConditions against the kinds its rules match, with the
// schemas F05 checks policies against: Kubernetes' own kinds, and custom resources of the
// input's CRDs. Kinds without a schema, wildcard rules and subresources are not checked.
func TestMatchConditionTypes(t *testing.T) {
	const at = "test.yaml:8: warning C06 ValidatingWebhookConfiguration \"checks\", webhook \"checks.example.com\", "
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"a misspelt field of a pod, fail closed", conditionWebhook(podRules, `[{name: has-containers, expression: "object.spec.containerz.size() > 0"}]`, "Fail"), []string{
			at + "webhooks[0].matchConditions[0].expression: does not type-check against Pod (v1): undefined field 'containerz' at line 1, column 12: evaluating it fails, and with failurePolicy Fail the apiserver rejects the request",
		}},
		{"fail open", conditionWebhook(podRules, `[{name: a, expression: "true"}, {name: b, expression: "oldObject == null || oldObject.spec.nodeNam == ''"}]`, "Ignore"), []string{
			at + "webhooks[0].matchConditions[1].expression: does not type-check against Pod (v1): undefined field 'nodeNam' at line 1, column 36: evaluating it fails, and with failurePolicy Ignore the apiserver skips the webhook: it never sees the request",
		}},
		{"a field one matched kind lacks", conditionWebhook(podAndWorkloads, `[{name: replicas, expression: "object.spec.replicas > 1"}]`, "Fail"), []string{
			at + "webhooks[0].matchConditions[0].expression: does not type-check against Pod (v1): undefined field 'replicas' at line 1, column 12: evaluating it fails, and with failurePolicy Fail the apiserver rejects the request",
		}},
		{"a custom resource's field, from the input's CRD", widgetCRD + conditionWebhook(widgetRules, `[{name: red, expression: "object.spec.color == 'red'"}]`, "Fail"), []string{
			strings.Replace(at, ":8:", ":28:", 1) + "webhooks[0].matchConditions[0].expression: does not type-check against Widget (example.com/v1): undefined field 'color' at line 1, column 12: evaluating it fails, and with failurePolicy Fail the apiserver rejects the request",
		}},

		{"fields a pod has", conditionWebhook(podRules, `[
    {name: a, expression: "object.spec.containers.size() > 0"},
    {name: b, expression: "has(object.metadata.labels) && object.metadata.labels['app'] == 'web'"},
    {name: c, expression: "object.spec.containers.all(c, !has(c.resources.limits) || c.resources.limits.cpu != '0')"}]`, "Fail"), nil},
		{"the request and the authorizer", conditionWebhook(podRules, `[
    {name: a, expression: "request.userInfo.username != 'system:admin'"},
    {name: b, expression: "authorizer.requestResource.check('create').allowed()"},
    {name: c, expression: "!('kubernetes.io/config.mirror' in object.metadata.annotations)"}]`, "Fail"), nil},
		{"a kind guard", conditionWebhook(podAndWorkloads, `[{name: replicas, expression: "object.kind == 'Pod' || object.spec.replicas > 1"}]`, "Fail"), nil},
		{"a custom resource's fields its CRD keeps unknown", strings.Replace(widgetCRD, "colour: {type: string}", "colour: {type: string}\n            x-kubernetes-preserve-unknown-fields: true", 1) +
			conditionWebhook(widgetRules, `[{name: red, expression: "object.spec.color == 'red'"}]`, "Fail"), nil},
		{"a custom resource without its CRD: no schema", conditionWebhook(widgetRules, `[{name: red, expression: "object.spec.color == 'red'"}]`, "Fail"), nil},
		{"wildcard versions: the kinds are not known", conditionWebhook(`[{apiGroups: [""], apiVersions: ["*"], resources: [pods], operations: [CREATE]}]`, `[{name: a, expression: "object.spec.containerz.size() > 0"}]`, "Fail"), nil},
		{"a subresource", conditionWebhook(`[{apiGroups: [""], apiVersions: [v1], resources: [pods/exec], operations: [CONNECT]}]`, `[{name: a, expression: "object.command.size() > 0"}]`, "Fail"), nil},
		{"a condition that does not compile is A01's", conditionWebhook(podRules, `[{name: a, expression: "object.spec.containerz"}]`, "Fail"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			set := parse(t, tt.input)
			for _, f := range onlyRule(run(t, set, Options{Policies: newChainPoliciesFor(t, set)}), "C06") {
				got = append(got, f.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("C06 findings (-want +got):\n%s", diff)
			}
		})
	}
}

// Without a PolicyChecker, which holds the schemas, conditions are not type-checked.
func TestMatchConditionTypesNeedAChecker(t *testing.T) {
	input := conditionWebhook(podRules, `[{name: a, expression: "object.spec.containerz.size() > 0"}]`, "Fail")
	if got := onlyRule(run(t, parse(t, input), Options{}), "C06"); len(got) > 0 {
		t.Errorf("C06 without a checker: %v", got)
	}
}
