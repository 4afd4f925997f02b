//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/engine"
	wt "github.com/admitkit/admit/internal/webhooktest"
)

func configMapObject(labels map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "labels": labels},
		"data":     map[string]any{"key": "value"},
	}
}

// bigConfigMap CREATEs a ConfigMap whose data holds size bytes.
func bigConfigMap(size int) write {
	w := createConfigMap()
	w.object["data"] = map[string]any{"key": strings.Repeat("x", size)}
	return w
}

// createConfigMap CREATEs a ConfigMap labelled app=web, what most scenarios write.
func createConfigMap() write {
	return write{op: admissionv1.Create, gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		object: configMapObject(map[string]any{"app": "web"})}
}

func podObject() map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "pod", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.k8s.io/pause:3.10"}}},
	}
}

// finalizersPatch uses negative indices on a two-element array: appends with -1, replaces the
// second-to-last, removes the first by counting from the end.
const finalizersPatch = `[{"op":"add","path":"/metadata/finalizers/-1","value":"example.com/c"},` +
	`{"op":"replace","path":"/metadata/finalizers/-2","value":"example.com/B"},{"op":"remove","path":"/metadata/finalizers/-3"}]`

// panicPatch copies a null member and adds below the copy, which makes evanphx assign to a nil map.
const panicPatch = `[{"op":"add","path":"/data/n","value":null},{"op":"copy","from":"/data/n","path":"/data/c"},{"op":"add","path":"/data/c/x","value":"1"}]`

// withFinalizers gives the written object finalizers, and makes the write a dry run so that no
// finalizer outlives the scenario.
func withFinalizers(w write, finalizers ...string) write {
	meta := w.object["metadata"].(map[string]any)
	list := make([]any, len(finalizers))
	for i, f := range finalizers {
		list[i] = f
	}
	meta["finalizers"] = list
	w.dryRun = true
	return w
}

// denied is the message of a webhook's denial, as the apiserver words it.
func denied(webhook string) string {
	return `admission webhook "` + webhook + diffSuffix + `" denied the request`
}

func failedCalling(webhook string) string {
	return `Internal error occurred: failed calling webhook "` + webhook + diffSuffix + `": `
}

// TestDifferentialDispatcherMatchesAPIServer runs each admission through kube-apiserver 1.36 and
// through an engine.Pipeline of the chain's steps and the webhooks, with the same configurations
// and webhook server, and asserts the same outcome (see differential_harness_e2e_test.go for what is compared and normalised).
func TestDifferentialDispatcherMatchesAPIServer(t *testing.T) {
	suite := newDifferentialSuite(t)
	configMapsGVR := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	eventsGVR := schema.GroupVersionResource{Version: "v1", Resource: "events"}
	hpaV1GVR := schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	ifNeeded := func(h hook) hook { h.reinvokeIfNeeded = true; return h }
	ignored := func(h hook) hook { h.ignore = true; return h }
	gate := &metav1.LabelSelector{MatchLabels: map[string]string{"gate": "on"}}
	tier := func(op metav1.LabelSelectorOperator, values ...string) []metav1.LabelSelectorRequirement {
		return []metav1.LabelSelectorRequirement{{Key: "tier", Operator: op, Values: values}}
	}
	condition := func(name, expression string) admissionregistrationv1.MatchCondition {
		return admissionregistrationv1.MatchCondition{Name: name, Expression: expression}
	}
	sleepy := wt.Sleep(5 * time.Second)

	scenarios := []differential{
		// Denials: the status the client gets is built from the webhook's.
		{
			name:       "deny without a status is a 400 without explanation",
			validating: one(hook{name: "deny", path: wt.Deny()}),
			write:      createConfigMap(),
			want:       want{code: 400, message: denied("deny") + " without explanation"},
		},
		{
			name:       "deny with a code and a message",
			validating: one(hook{name: "deny", path: wt.Deny(wt.Code(403), wt.Message("you shall not pass"))}),
			write:      createConfigMap(),
			want:       want{code: 403, message: denied("deny") + ": you shall not pass"},
		},
		{
			name:       "deny with a reason only and 422 keeps both",
			validating: one(hook{name: "deny", path: wt.Deny(wt.Code(422), wt.Reason(metav1.StatusReasonInvalid))}),
			write:      createConfigMap(),
			want:       want{code: 422, message: denied("deny") + ": Invalid"},
		},
		{
			name:       "deny with a code below 400 becomes 400",
			validating: one(hook{name: "deny", path: wt.Deny(wt.Code(200), wt.Message("fine?"))}),
			write:      createConfigMap(),
			want:       want{code: 400, message: denied("deny") + ": fine?"},
		},
		{
			name:     "a mutating denial carries its warnings",
			mutating: one(hook{name: "deny", path: wt.Deny(wt.Message("no"), wt.Warning("careful"), wt.Warning("careful"))}),
			write:    createConfigMap(),
			want:     want{code: 400, message: denied("deny") + ": no"},
		},
		{
			name:       "several validating denials: the apiserver returns any, admit the first by configuration order",
			validating: one(hook{name: "first", path: wt.Deny(wt.Message("first"))}, hook{name: "second", path: wt.Deny(wt.Message("second"))}),
			write:      createConfigMap(),
			want:       want{code: 400, message: "denied the request"},
			// A deliberate difference (dispatch/doc.go): the apiserver returns whichever denial
			// arrives first, the dispatcher the lowest-index one and every denial in Rejections.
			compareStatus: func(t *testing.T, apiserver, dispatcher *metav1.Status, result *engine.Result) {
				first := denied("first") + ": first"
				second := denied("second") + ": second"
				if apiserver.Message != first && apiserver.Message != second {
					t.Errorf("kube-apiserver answered %q, want one of the two denials", apiserver.Message)
				}
				if dispatcher.Message != first || dispatcher.Code != 400 {
					t.Errorf("the dispatcher answered %d %q, want 400 %q", dispatcher.Code, dispatcher.Message, first)
				}
				var rejections []string
				for _, r := range result.Rejections {
					rejections = append(rejections, r.Message)
				}
				if strings.Join(rejections, "|") != first+"|"+second {
					t.Errorf("Rejections = %q, want both denials in order", rejections)
				}
			},
		},

		// The mutating chain: order, reinvocation, selectors on the mutated object.
		{
			name: "mutating configurations run in name order, webhooks in list order",
			mutating: []configuration{
				{suffix: "b", hooks: []hook{{name: "order-b", path: wt.SetLabel("order", "b")}}},
				{suffix: "a", hooks: []hook{{name: "first-a", path: wt.SetLabel("first", "a")}, {name: "order-a", path: wt.SetLabel("order", "a")}}},
			},
			write: createConfigMap(),
			want:  want{calls: map[string]int{wt.SetLabel("order", "b"): 1, wt.SetLabel("first", "a"): 1, wt.SetLabel("order", "a"): 1}},
			check: func(t *testing.T, apiserver *outcome) {
				labels, _ := apiserver.Object["metadata"].(map[string]any)["labels"].(map[string]any)
				if labels["order"] != "b" || labels["first"] != "a" {
					t.Errorf("labels %v, want order=b (configuration b runs last) and first=a", labels)
				}
			},
		},
		{
			name:     "reinvocation IfNeeded calls an earlier webhook again after a later change",
			mutating: one(ifNeeded(hook{name: "a", path: wt.SetLabel("a", "1")}), hook{name: "b", path: wt.SetLabel("b", "1")}),
			write:    createConfigMap(),
			want:     want{calls: map[string]int{wt.SetLabel("a", "1"): 2, wt.SetLabel("b", "1"): 1}},
		},
		{
			name:     "reinvocation Never calls each webhook once",
			mutating: one(hook{name: "a", path: wt.SetLabel("a", "1")}, hook{name: "b", path: wt.SetLabel("b", "1")}),
			write:    createConfigMap(),
			want:     want{calls: map[string]int{wt.SetLabel("a", "1"): 1, wt.SetLabel("b", "1"): 1}},
		},
		{
			name:     "a webhook's own change does not reinvoke it",
			mutating: one(ifNeeded(hook{name: "a", path: wt.SetLabel("a", "1")})),
			write:    createConfigMap(),
			want:     want{calls: map[string]int{wt.SetLabel("a", "1"): 1}},
		},
		{
			name:     "reinvocation: two IfNeeded webhooks fighting over a label run twice each, the later wins",
			mutating: one(ifNeeded(hook{name: "a", path: wt.SetLabel("x", "a")}), ifNeeded(hook{name: "b", path: wt.SetLabel("x", "b")})),
			write:    createConfigMap(),
			want:     want{calls: map[string]int{wt.SetLabel("x", "a"): 2, wt.SetLabel("x", "b"): 2}},
		},
		{
			name: "reinvocation re-evaluates the objectSelector",
			mutating: one(ifNeeded(hook{name: "a", path: wt.SetLabel("a", "1"), objectSelector: gate}),
				hook{name: "ungate", path: wt.RemoveLabel("gate")}),
			write: write{op: admissionv1.Create, gvr: configMapsGVR, object: configMapObject(map[string]any{"gate": "on"})},
			want:  want{calls: map[string]int{wt.SetLabel("a", "1"): 1, wt.RemoveLabel("gate"): 1}},
		},
		{
			name: "reinvocation never calls a webhook skipped in the first round",
			mutating: one(ifNeeded(hook{name: "a", path: wt.SetLabel("a", "1"), objectSelector: gate}),
				hook{name: "gate", path: wt.SetLabel("gate", "on")}),
			write: createConfigMap(),
			want:  want{calls: map[string]int{wt.SetLabel("a", "1"): 0, wt.SetLabel("gate", "on"): 1}},
		},
		{
			name: "objectSelector sees the object an earlier webhook changed",
			mutating: one(hook{name: "ungate", path: wt.RemoveLabel("gate")},
				hook{name: "gated", path: wt.Deny(wt.Message("gated")), objectSelector: gate}),
			write: write{op: admissionv1.Create, gvr: configMapsGVR, object: configMapObject(map[string]any{"gate": "on"})},
			want:  want{calls: map[string]int{wt.RemoveLabel("gate"): 1, wt.Deny(wt.Message("gated")): 0}},
		},
		{
			name: "objectSelector matches the old object of an UPDATE",
			validating: one(hook{name: "gated", path: wt.Deny(wt.Message("old object matched")), objectSelector: gate,
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Update, "", "v1", "configmaps")}}),
			write: write{op: admissionv1.Update, gvr: configMapsGVR, existing: configMapObject(map[string]any{"gate": "on"}),
				update: func(obj *unstructured.Unstructured) { obj.SetLabels(map[string]string{"gate": "off"}) }},
			want: want{code: 400, message: denied("gated") + ": old object matched"},
		},

		// Namespace selection.
		{
			name:            "namespaceSelector matches the namespace's labels",
			namespaceLabels: map[string]string{"tier": "gold"},
			validating: one(hook{name: "gold", path: wt.Deny(wt.Message("gold")), namespaceSelector: tier(metav1.LabelSelectorOpIn, "gold")},
				hook{name: "silver", path: wt.Deny(wt.Message("silver")), namespaceSelector: tier(metav1.LabelSelectorOpIn, "silver")}),
			write: createConfigMap(),
			want:  want{code: 400, message: denied("gold") + ": gold", calls: map[string]int{wt.Deny(wt.Message("silver")): 0}},
		},
		{
			name:            "namespaceSelector NotIn exempts the namespace",
			namespaceLabels: map[string]string{"tier": "silver"},
			validating:      one(hook{name: "not-silver", path: wt.Deny(wt.Message("not silver")), namespaceSelector: tier(metav1.LabelSelectorOpNotIn, "silver")}),
			write:           createConfigMap(),
			want:            want{calls: map[string]int{wt.Deny(wt.Message("not silver")): 0}},
		},

		// Subresources.
		{
			name: "a pods/status rule matches a status update",
			validating: one(hook{name: "status", path: wt.Deny(wt.Message("status is frozen")),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Update, "", "v1", "pods/status")}}),
			write: write{op: admissionv1.Update, gvr: podsGVR, subresource: "status", existing: podObject(),
				update: func(obj *unstructured.Unstructured) {
					_ = unstructured.SetNestedField(obj.Object, "hello", "status", "message")
				}},
			fields: []string{"status"},
			want:   want{code: 400, message: denied("status") + ": status is frozen"},
		},
		{
			name: "a pods/status rule does not match an update of the pod itself",
			validating: one(hook{name: "status", path: wt.Deny(wt.Message("status is frozen")),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Update, "", "v1", "pods/status")}}),
			write: write{op: admissionv1.Update, gvr: podsGVR, existing: podObject(),
				update: func(obj *unstructured.Unstructured) { obj.SetLabels(map[string]string{"app": "api"}) }},
			fields: []string{},
			want:   want{calls: map[string]int{wt.Deny(wt.Message("status is frozen")): 0}},
		},

		// matchPolicy Equivalent: the webhook gets the version its rule names.
		{
			name: "Equivalent: an autoscaling/v1 HPA reaches an autoscaling/v2 rule as v2",
			mutating: one(hook{name: "hpa", path: wt.SetLabel("scaled", "yes"),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "autoscaling", "v2", "horizontalpodautoscalers")}}),
			write: write{op: admissionv1.Create, gvr: hpaV1GVR, object: map[string]any{
				"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "web"},
				// minReplicas is given: the apiserver would default it before converting, admit does not default.
				"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
					"minReplicas": int64(1), "maxReplicas": int64(3), "targetCPUUtilizationPercentage": int64(50)},
			}},
			fields: []string{"spec"},
			want:   want{calls: map[string]int{wt.SetLabel("scaled", "yes"): 1}},
			check: func(t *testing.T, apiserver *outcome) {
				requests := apiserver.Requests[wt.SetLabel("scaled", "yes")]
				if len(requests) != 1 {
					t.Fatalf("the webhook got %d requests, want 1", len(requests))
				}
				got := requests[0]
				if got.Kind.Version != "v2" || got.Resource.Version != "v2" || got.RequestKind.Version != "v1" || got.Object["apiVersion"] != "autoscaling/v2" {
					t.Errorf("the webhook got kind %v resource %v requestKind %v object %v, want v2, v2, v1 and an autoscaling/v2 object",
						got.Kind, got.Resource, got.RequestKind, got.Object["apiVersion"])
				}
			},
		},
		{
			name: "Exact: an autoscaling/v1 HPA does not reach an autoscaling/v2 rule",
			mutating: one(hook{name: "hpa", path: wt.SetLabel("scaled", "yes"), exact: true,
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "autoscaling", "v2", "horizontalpodautoscalers")}}),
			write: write{op: admissionv1.Create, gvr: hpaV1GVR, object: map[string]any{
				"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "web"},
				"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
					// With no target, the apiserver's v1 round trip would answer the implied 80%.
					"minReplicas": int64(1), "maxReplicas": int64(3), "targetCPUUtilizationPercentage": int64(50)},
			}},
			fields: []string{"spec"},
			want:   want{calls: map[string]int{wt.SetLabel("scaled", "yes"): 0}},
		},
		{
			name: "Equivalent: a core Event reaches an events.k8s.io rule as events.k8s.io/v1",
			mutating: one(hook{name: "events", path: wt.SetLabel("seen", "yes"),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "events.k8s.io", "v1", "events")}}),
			write: write{op: admissionv1.Create, gvr: eventsGVR, object: map[string]any{
				"apiVersion": "v1", "kind": "Event", "metadata": map[string]any{"name": "pulled"},
				"involvedObject": map[string]any{"kind": "Pod", "name": "web", "apiVersion": "v1"},
				"reason":         "Pulled", "message": "image pulled", "type": "Normal", "count": int64(2),
				"source": map[string]any{"component": "kubelet"},
			}, prepare: func(obj *unstructured.Unstructured) {
				// An Event's involvedObject must be in the Event's namespace.
				_ = unstructured.SetNestedField(obj.Object, obj.GetNamespace(), "involvedObject", "namespace")
			}},
			fields: []string{"involvedObject", "regarding", "reason", "message", "note", "type", "count", "deprecatedCount", "source", "deprecatedSource"},
			want:   want{calls: map[string]int{wt.SetLabel("seen", "yes"): 1}},
		},

		{
			name: "Equivalent: an events.k8s.io Event reaches a core rule as v1",
			mutating: one(hook{name: "events", path: wt.SetLabel("seen", "yes"),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "", "v1", "events")}}),
			write: write{op: admissionv1.Create, gvr: schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"},
				object: map[string]any{
					"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": map[string]any{"name": "scaled"},
					"eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/ctrl", "reportingInstance": "ctrl-0",
					"action": "Scale", "reason": "Scaled", "note": "scaled up", "type": "Normal",
					"regarding": map[string]any{"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
				}, prepare: func(obj *unstructured.Unstructured) {
					_ = unstructured.SetNestedField(obj.Object, obj.GetNamespace(), "regarding", "namespace")
				}},
			fields: []string{"involvedObject", "regarding", "reason", "message", "note", "type", "action", "eventTime",
				"reportingComponent", "reportingController", "reportingInstance"},
			want: want{calls: map[string]int{wt.SetLabel("seen", "yes"): 1}},
		},
		{
			name: "Equivalent: an autoscaling/v1 status update reaches an autoscaling/v2 status rule as v2, and its patch comes back as v1",
			mutating: one(hook{name: "hpa-status", path: wt.SetLabel("status", "seen"),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Update, "autoscaling", "v2", "horizontalpodautoscalers/status")}}),
			write: write{op: admissionv1.Update, gvr: hpaV1GVR, subresource: "status", existing: map[string]any{
				"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "web"},
				"spec": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
					"minReplicas": int64(1), "maxReplicas": int64(3), "targetCPUUtilizationPercentage": int64(50)},
			}, update: func(obj *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(obj.Object, map[string]any{"currentReplicas": int64(2), "desiredReplicas": int64(3),
					"currentCPUUtilizationPercentage": int64(42)}, "status")
			}},
			fields: []string{"spec", "status"},
			want:   want{calls: map[string]int{wt.SetLabel("status", "seen"): 1}},
		},
		{
			name: "Equivalent: a custom resource reaches a rule on another version, converted by conversion None",
			crd:  conversionNoneCRD("gizmos", "Gizmo"),
			mutating: one(hook{name: "gizmo", path: wt.SetLabel("seen", "v1"),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Create, "diff.e2e.admit.dev", "v1", "gizmos")}}),
			write: write{op: admissionv1.Create, gvr: schema.GroupVersionResource{Group: "diff.e2e.admit.dev", Version: "v2", Resource: "gizmos"},
				object: map[string]any{"apiVersion": "diff.e2e.admit.dev/v2", "kind": "Gizmo", "metadata": map[string]any{"name": "g"},
					"spec": map[string]any{"size": int64(3)}}},
			fields: []string{"spec"},
			want:   want{calls: map[string]int{wt.SetLabel("seen", "v1"): 1}},
			check: func(t *testing.T, apiserver *outcome) {
				got := apiserver.Requests[wt.SetLabel("seen", "v1")][0]
				if got.Kind.Version != "v1" || got.RequestKind.Version != "v2" || got.Object["apiVersion"] != "diff.e2e.admit.dev/v1" {
					t.Errorf("the webhook got kind %v requestKind %v object %v, want v1, v2 and a v1 object", got.Kind, got.RequestKind, got.Object["apiVersion"])
				}
			},
		},

		// matchConditions: false skips, errors follow failurePolicy.
		{
			name:       "matchConditions true: called",
			validating: one(hook{name: "cel", path: wt.Deny(wt.Message("matched")), matchConditions: []admissionregistrationv1.MatchCondition{condition("named-cm", "object.metadata.name == 'cm'")}}),
			write:      createConfigMap(),
			want:       want{code: 400, message: denied("cel") + ": matched"},
		},
		{
			name: "matchConditions see the request and a null oldObject on CREATE",
			validating: one(hook{name: "cel", path: wt.Deny(wt.Message("matched")), matchConditions: []admissionregistrationv1.MatchCondition{
				condition("create", "request.operation == 'CREATE' && oldObject == null && request.userInfo.username != ''")}}),
			write: createConfigMap(),
			want:  want{code: 400, message: denied("cel") + ": matched"},
		},
		{
			name:       "matchConditions false: skipped",
			validating: one(hook{name: "cel", path: wt.Deny(wt.Message("matched")), matchConditions: []admissionregistrationv1.MatchCondition{condition("named-other", "object.metadata.name == 'other'")}}),
			write:      createConfigMap(),
			want:       want{calls: map[string]int{wt.Deny(wt.Message("matched")): 0}},
		},
		{
			name:       "matchConditions error with Fail: forbidden",
			validating: one(hook{name: "cel", path: wt.Deny(wt.Message("matched")), matchConditions: []admissionregistrationv1.MatchCondition{condition("missing-key", "object.data.missing == 'x'")}}),
			write:      createConfigMap(),
			want:       want{code: 403, message: `configmaps "cm" is forbidden`},
		},
		{
			name: "matchConditions error with Ignore: skipped",
			validating: one(ignored(hook{name: "cel", path: wt.Deny(wt.Message("matched")),
				matchConditions: []admissionregistrationv1.MatchCondition{condition("missing-key", "object.data.missing == 'x'")}})),
			write: createConfigMap(),
			want:  want{calls: map[string]int{wt.Deny(wt.Message("matched")): 0}},
		},
		{
			name: "matchConditions false wins over an error with Fail",
			validating: one(hook{name: "cel", path: wt.Deny(wt.Message("matched")), matchConditions: []admissionregistrationv1.MatchCondition{
				condition("missing-key", "object.data.missing == 'x'"), condition("named-other", "object.metadata.name == 'other'")}}),
			write: createConfigMap(),
			want:  want{calls: map[string]int{wt.Deny(wt.Message("matched")): 0}},
		},

		// Webhooks that cannot be called, or answer badly.
		{
			name:       "unreachable webhook with Fail",
			validating: one(hook{name: "gone", unreachable: true}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("gone") + "failed to call webhook: Post"},
		},
		{
			name:       "unreachable webhook with Ignore",
			validating: one(ignored(hook{name: "gone", unreachable: true})),
			write:      createConfigMap(),
		},
		{
			name:       "a response with another uid",
			validating: one(hook{name: "uid", path: wt.PathWrongUID}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("uid") + `received invalid webhook response: expected response.uid="<uid>", got "` + wt.WrongUID + `"`},
		},
		{
			name:       "an AdmissionReview without a response",
			validating: one(hook{name: "absent", path: wt.PathAbsentResponse}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("absent") + "received invalid webhook response: webhook response was absent"},
		},
		{
			name:       "a validating webhook answering with a patch",
			validating: one(hook{name: "patcher", path: wt.SetLabel("x", "y")}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("patcher") + "received invalid webhook response: validating webhook may not return response.patch"},
		},
		{
			name:     "a patch without patchType",
			mutating: one(hook{name: "typeless", path: wt.PathPatchWithoutType}),
			write:    createConfigMap(),
			want:     want{code: 500, message: "webhook returned response.patch but not response.patchType"},
		},
		{
			name:     "an unsupported patch type",
			mutating: one(hook{name: "merge", path: wt.PathUnsupportedPatchType}),
			write:    createConfigMap(),
			want:     want{code: 500, message: failedCalling("merge") + `unsupported patch type "MergePatch"`},
		},
		{
			name:     "admission.k8s.io/v1beta1 takes a patch without patchType as a JSON patch",
			mutating: one(hook{name: "beta", path: wt.PathPatchWithoutType, reviewVersions: []string{"v1beta1"}}),
			write:    createConfigMap(),
			want:     want{calls: map[string]int{wt.PathPatchWithoutType: 1}},
		},
		{
			name:       "a URL path with a trailing slash",
			validating: one(hook{name: "slash", path: wt.Deny(wt.Message("slash")) + "/"}),
			write:      createConfigMap(),
			want:       want{code: 400, message: denied("slash") + ": slash"},
		},
		{
			name:       "500 with a text body",
			validating: one(hook{name: "broken", path: wt.PathInternalError}),
			write:      createConfigMap(),
			want:       want{code: 500, message: `an error on the server ("` + wt.InternalErrorText + `") has prevented the request from succeeding`},
		},
		{
			name:       "500 with a Status body",
			validating: one(hook{name: "broken", path: wt.PathStatusError}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("broken") + "failed to call webhook: " + wt.StatusErrorMessage},
		},
		{
			name:       "500 with a Status body labelled text/plain",
			validating: one(hook{name: "broken", path: wt.PathStatusErrorTextPlain}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("broken") + "failed to call webhook: "},
		},
		{
			name:       "200 with a body that is not JSON",
			validating: one(hook{name: "garbled", path: wt.PathInvalidJSON}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("garbled")},
		},
		{
			name:       "200 without a body",
			validating: one(hook{name: "empty", path: wt.PathEmptyBody}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("empty") + "failed to call webhook: 0-length response with status code: 200"},
		},
		{
			name:       "404 from the webhook",
			validating: one(hook{name: "lost", path: "/no/such/webhook"}),
			write:      createConfigMap(),
			want:       want{code: 500, message: failedCalling("lost") + "failed to call webhook: the server could not find the requested resource"},
		},
		{
			name:       "an AdmissionReview labelled text/plain",
			validating: one(hook{name: "text", path: wt.PathAllowTextPlain}),
			write:      createConfigMap(),
			want:       want{calls: map[string]int{wt.PathAllowTextPlain: 1}},
		},
		{
			name:       "an AdmissionReview in YAML",
			validating: one(hook{name: "yaml", path: wt.PathAllowYAML}),
			write:      createConfigMap(),
			want:       want{calls: map[string]int{wt.PathAllowYAML: 1}},
		},
		{
			name:       "admission.k8s.io/v1beta1 does not check the response uid",
			validating: one(hook{name: "beta", path: wt.PathWrongUID, reviewVersions: []string{"v1beta1"}}),
			write:      createConfigMap(),
			want:       want{calls: map[string]int{wt.PathWrongUID: 1}},
		},
		{
			name:       "admission.k8s.io/v1beta1 ignores a validating webhook's patch",
			validating: one(hook{name: "beta", path: wt.SetLabel("x", "y"), reviewVersions: []string{"v1beta1", "v1"}}),
			write:      createConfigMap(),
			want:       want{calls: map[string]int{wt.SetLabel("x", "y"): 1}},
		},
		{
			name:       "503 with Retry-After is retried",
			validating: one(hook{name: "busy", path: wt.PathBusyOnce}),
			write:      createConfigMap(),
			want:       want{calls: map[string]int{wt.PathBusyOnce: 2}},
		},

		// Patches that fail.
		{
			name:     "an undecodable patch with Fail",
			mutating: one(hook{name: "undecodable", path: wt.PathUndecodablePatch}),
			write:    createConfigMap(),
			want:     want{code: 500, message: failedCalling("undecodable") + "received undecodable patch in webhook response"},
		},
		{
			name:     "an undecodable patch with Ignore fails open",
			mutating: one(ignored(hook{name: "undecodable", path: wt.PathUndecodablePatch})),
			write:    createConfigMap(),
		},
		{
			name:     "a patch to a missing path fails even with Ignore",
			mutating: one(ignored(hook{name: "missing", path: wt.PathMissingPathPatch})),
			write:    createConfigMap(),
			want:     want{code: 500, message: "doc is missing path"},
		},
		{
			name:     "an empty patch changes nothing",
			mutating: one(ifNeeded(hook{name: "empty", path: wt.PathEmptyPatch}), hook{name: "noop", path: wt.PathAllow}),
			write:    createConfigMap(),
			want:     want{calls: map[string]int{wt.PathEmptyPatch: 1, wt.PathAllow: 1}},
		},

		// Patches as kube-apiserver applies them (gopkg.in/evanphx/json-patch.v4), departures from
		// RFC 6902 included: the dispatcher applies add/remove/replace itself and must agree.
		{
			name:     "a patch: negative indices count from the end, -1 appends on add",
			mutating: one(hook{name: "negative", path: wt.Patch(finalizersPatch)}),
			write:    withFinalizers(createConfigMap(), "example.com/a", "example.com/b"),
			want:     want{calls: map[string]int{wt.Patch(finalizersPatch): 1}},
		},
		{
			name:     "a patch: replace of a missing member adds it",
			mutating: one(hook{name: "replace", path: wt.Patch(`[{"op":"replace","path":"/data/new","value":"v"}]`)}),
			write:    createConfigMap(),
		},
		{
			name: "a patch the webhooks typically send: a label replaced, one removed, data added",
			mutating: one(hook{name: "typical", path: wt.Patch(`[{"op":"replace","path":"/metadata/labels/app","value":"api"},` +
				`{"op":"add","path":"/metadata/labels/example.com~1tier","value":"back"},{"op":"add","path":"/data/new","value":"v"},{"op":"remove","path":"/data/key"}]`)}),
			write: createConfigMap(),
		},
		{
			name: "a patch with move, copy and a passing test",
			mutating: one(hook{name: "move", path: wt.Patch(`[{"op":"test","path":"/data/key","value":"value"},` +
				`{"op":"copy","from":"/data/key","path":"/data/copied"},{"op":"move","from":"/data/key","path":"/data/moved"}]`)}),
			write: createConfigMap(),
		},
		{
			name:     "a patch with a failing test fails even with Ignore",
			mutating: one(ignored(hook{name: "test", path: wt.Patch(`[{"op":"test","path":"/data/key","value":"other"}]`)})),
			write:    createConfigMap(),
			want:     want{code: 500, message: "testing value /data/key failed: test failed"},
		},
		{
			name:     "a patch adding beyond the end of an array",
			mutating: one(hook{name: "beyond", path: wt.Patch(`[{"op":"add","path":"/metadata/finalizers/3","value":"example.com/c"}]`)}),
			write:    withFinalizers(createConfigMap(), "example.com/a", "example.com/b"),
			want:     want{code: 500, message: "error in add for path: '/metadata/finalizers/3': Unable to access invalid index: 3: invalid index referenced"},
		},
		{
			name:     "a patch removing a missing member",
			mutating: one(hook{name: "absent", path: wt.Patch(`[{"op":"remove","path":"/data/absent"}]`)}),
			write:    createConfigMap(),
			want:     want{code: 500, message: "error in remove for path: '/data/absent': Unable to remove nonexistent key: absent: missing value"},
		},
		{
			name:     "a patch breaking the object's type fails even with Ignore",
			mutating: one(ignored(hook{name: "type", path: wt.Patch(`[{"op":"add","path":"/data/number","value":1}]`)})),
			write:    createConfigMap(),
			want:     want{code: 500, message: "cannot unmarshal number into Go struct field ConfigMap.data of type string"},
		},
		{
			name:            "a patch that makes evanphx panic: the apiserver resets the stream, the dispatcher answers 500",
			mutating:        one(hook{name: "panic", path: wt.Patch(panicPatch)}),
			write:           createConfigMap(),
			apiserverPanics: true,
		},

		// Timeouts: the webhook is told, and the call gives up.
		{
			name:       "timeoutSeconds with Fail",
			validating: one(hook{name: "slow", path: sleepy, timeoutSeconds: 1}),
			write:      createConfigMap(),
			want:       want{code: 500, message: sleepy + "?timeout=1s"},
			check: func(t *testing.T, apiserver *outcome) {
				mustContain(t, apiserver.Status.Message, "context deadline exceeded")
			},
		},
		{
			name:       "timeoutSeconds with Ignore",
			validating: one(ignored(hook{name: "slow", path: sleepy, timeoutSeconds: 1})),
			write:      createConfigMap(),
			want:       want{calls: map[string]int{sleepy: 1}},
		},

		// Dry run, warnings, names, deletes.
		{
			name:     "dry run reaches a NoneOnDryRun webhook, whose patch is in the answer",
			mutating: one(hook{name: "dry", path: wt.SetLabel("dry", "run"), sideEffects: admissionregistrationv1.SideEffectClassNoneOnDryRun}),
			write: func() write {
				w := createConfigMap()
				w.dryRun = true
				return w
			}(),
			want: want{calls: map[string]int{wt.SetLabel("dry", "run"): 1}},
			check: func(t *testing.T, apiserver *outcome) {
				if got := apiserver.Requests[wt.SetLabel("dry", "run")][0].DryRun; got == nil || !*got {
					t.Errorf("the webhook got dryRun %v, want true", got)
				}
				ns := apiserver.Requests[wt.SetLabel("dry", "run")][0].Namespace
				if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(context.Background(), "cm", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Errorf("the dry-run ConfigMap was stored: %v", err)
				}
			},
		},
		{
			name: "warnings are deduplicated, unwritable ones dropped, across webhooks",
			mutating: one(hook{name: "warn", path: wt.Allow(wt.Warning("first"), wt.Warning("first"), wt.Warning("line one\nline two"), wt.Warning("second"))},
				hook{name: "patch", path: wt.SetLabel("warned", "yes", wt.Warning("from a patch"))}),
			validating: one(hook{name: "warn", path: wt.Allow(wt.Warning("second"), wt.Warning("third"))}),
			write:      createConfigMap(),
			check: func(t *testing.T, apiserver *outcome) {
				if diff := cmp.Diff([]string{"first", "second", "from a patch", "third"}, apiserver.Warnings); diff != "" {
					t.Errorf("kube-apiserver's warnings (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "warnings past the 4096-rune budget are cut to 256 runes, then dropped",
			validating: one(hook{name: "verbose", path: wt.Allow(wt.Warning(strings.Repeat("a", 3000)), wt.Warning(strings.Repeat("b", 3000)),
				wt.Warning("short"))}),
			write: createConfigMap(),
			check: func(t *testing.T, apiserver *outcome) {
				if len(apiserver.Warnings) != 3 || len(apiserver.Warnings[0]) != 256 {
					t.Errorf("kube-apiserver sent %d warnings, the first of %d runes; want 3, cut to 256", len(apiserver.Warnings), len(apiserver.Warnings[0]))
				}
			},
		},
		{
			name:       "generateName: mutating webhooks see no name, validating ones the generated name",
			mutating:   one(hook{name: "mutate", path: wt.SetLabel("named", "later")}),
			validating: one(hook{name: "validate", path: wt.PathAllow}),
			write: func() write {
				w := createConfigMap()
				w.generateName = true
				return w
			}(),
			check: func(t *testing.T, apiserver *outcome) {
				mutated, validated := apiserver.Requests[wt.SetLabel("named", "later")], apiserver.Requests[wt.PathAllow]
				if len(mutated) != 1 || len(validated) != 1 || mutated[0].Name != "" || !strings.HasPrefix(validated[0].Name, "generated-") {
					t.Errorf("names seen: mutating %v, validating %v; want empty, then generated-...", mutated, validated)
				}
			},
		},
		{
			name:       "generateName: a name a mutating webhook sets is kept, not generated",
			mutating:   one(hook{name: "name", path: wt.Patch(`[{"op":"add","path":"/metadata/name","value":"named-by-webhook"}]`)}),
			validating: one(hook{name: "validate", path: wt.PathAllow}),
			write: func() write {
				w := createConfigMap()
				w.generateName = true
				return w
			}(),
			check: func(t *testing.T, apiserver *outcome) {
				validated := apiserver.Requests[wt.PathAllow]
				if len(validated) != 1 || validated[0].Name != "named-by-webhook" || apiserver.Object["metadata"].(map[string]any)["name"] != "named-by-webhook" {
					t.Errorf("validating webhook saw %v, stored %v; want the webhook's name", validated, apiserver.Object["metadata"])
				}
			},
		},
		{
			name:       "a body over 3 MiB is refused with 413 before any webhook",
			validating: one(hook{name: "validate", path: wt.PathAllow}),
			write:      bigConfigMap(4 << 20),
			want:       want{code: 413, message: "Request entity too large: limit is 3145728", calls: map[string]int{wt.PathAllow: 0}},
		},
		{
			name:       "a body under 3 MiB is read, and the ConfigMap's own limit refuses it",
			validating: one(hook{name: "validate", path: wt.PathAllow}),
			write:      bigConfigMap(2 << 20),
			want:       want{code: 422, calls: map[string]int{wt.PathAllow: 0}},
		},
		{
			name: "DELETE: a validating webhook denies with the old object",
			validating: one(hook{name: "keep", path: wt.Deny(wt.Message("keep it")),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Delete, "", "v1", "configmaps")}}),
			write: write{op: admissionv1.Delete, gvr: configMapsGVR, existing: configMapObject(map[string]any{"app": "web"})},
			want:  want{code: 400, message: denied("keep") + ": keep it"},
		},
		{
			name: "DELETE: a mutating webhook may not patch",
			mutating: one(hook{name: "patch-delete", path: wt.SetLabel("x", "y"),
				rules: []admissionregistrationv1.RuleWithOperations{rule(admissionregistrationv1.Delete, "", "v1", "configmaps")}}),
			write: write{op: admissionv1.Delete, gvr: configMapsGVR, existing: configMapObject(map[string]any{"app": "web"})},
			want:  want{code: 500, message: `admission webhook "patch-delete` + diffSuffix + `" attempted to modify the object, which is not supported for this operation`},
		},
	}

	for i := range scenarios {
		sc := &scenarios[i]
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			suite.run(t, sc)
		})
	}
}
