package predicates

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestResources(t *testing.T) {
	for _, tt := range []struct {
		names                 []string
		resource, subresource string
		want, wantAny         bool
	}{
		{[]string{"pods"}, "pods", "", true, true},
		{[]string{"pods"}, "pods", "status", false, true},
		{[]string{"pods/status"}, "pods", "status", true, true},
		{[]string{"pods/status"}, "pods", "", false, true},
		{[]string{"pods/*"}, "pods", "", true, true},
		{[]string{"pods/*"}, "pods", "exec", true, true},
		{[]string{"*"}, "configmaps", "", true, true},
		{[]string{"*"}, "pods", "status", false, true},
		{[]string{"*/status"}, "deployments", "status", true, true},
		{[]string{"*/*"}, "deployments", "scale", true, true},
		{[]string{"deployments"}, "pods", "", false, false},
		{nil, "pods", "", false, false},
	} {
		if got := Resources(tt.names, tt.resource, tt.subresource); got != tt.want {
			t.Errorf("Resources(%v, %s, %q) = %v, want %v", tt.names, tt.resource, tt.subresource, got, tt.want)
		}
		if got := AnySubresource(tt.names, tt.resource); got != tt.wantAny {
			t.Errorf("AnySubresource(%v, %s) = %v, want %v", tt.names, tt.resource, got, tt.wantAny)
		}
	}
}

func TestRule(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	scope := func(s admissionregistrationv1.ScopeType) *admissionregistrationv1.ScopeType { return &s }
	rule := func(s *admissionregistrationv1.ScopeType, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods", "namespaces"}, Scope: s}}
	}
	for _, tt := range []struct {
		name       string
		rule       admissionregistrationv1.RuleWithOperations
		gvr        schema.GroupVersionResource
		op         admissionregistrationv1.OperationType
		namespaced bool
		want       bool
	}{
		{"any scope", rule(nil, admissionregistrationv1.Create), pods, admissionregistrationv1.Create, true, true},
		{"another operation", rule(nil, admissionregistrationv1.Create), pods, admissionregistrationv1.Update, true, false},
		{"every operation", rule(nil, admissionregistrationv1.OperationAll), pods, admissionregistrationv1.Delete, true, true},
		{"Namespaced takes a pod", rule(scope(admissionregistrationv1.NamespacedScope), admissionregistrationv1.Create), pods, admissionregistrationv1.Create, true, true},
		{"Namespaced does not take a Namespace, which names itself", rule(scope(admissionregistrationv1.NamespacedScope), admissionregistrationv1.Create), namespaces, admissionregistrationv1.Create, true, false},
		{"Cluster takes a Namespace", rule(scope(admissionregistrationv1.ClusterScope), admissionregistrationv1.Create), namespaces, admissionregistrationv1.Create, true, true},
		{"Cluster does not take a pod", rule(scope(admissionregistrationv1.ClusterScope), admissionregistrationv1.Create), pods, admissionregistrationv1.Create, true, false},
		{"another version", rule(nil, admissionregistrationv1.Create), schema.GroupVersionResource{Version: "v2", Resource: "pods"}, admissionregistrationv1.Create, true, false},
	} {
		if got := Rule(tt.rule, tt.gvr, "", tt.op, tt.namespaced); got != tt.want {
			t.Errorf("%s: Rule = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSelectors(t *testing.T) {
	team := labels.SelectorFromSet(labels.Set{"team": "a"})
	labelled := ObjectLabels{Labels: map[string]string{"team": "a"}, Present: true}
	other := ObjectLabels{Labels: map[string]string{"team": "b"}, Present: true}
	withoutTeam, err := labels.Parse("!team")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		selector labels.Selector
		op       admissionv1.Operation
		objects  []ObjectLabels
		want     bool
	}{
		{"an empty selector takes everything", labels.Everything(), admissionv1.Connect, nil, true},
		{"the new object's labels", team, admissionv1.Update, []ObjectLabels{labelled, other}, true},
		{"the old object's labels", team, admissionv1.Update, []ObjectLabels{other, labelled}, true},
		{"neither", team, admissionv1.Update, []ObjectLabels{other, other}, false},
		{"an absent object is not matched on its empty labels", withoutTeam, admissionv1.Create, []ObjectLabels{labelled, {}}, false},
		{"a present object without labels is", withoutTeam, admissionv1.Create, []ObjectLabels{{Present: true}}, true},
		{"a CONNECT never matches a selector", team, admissionv1.Connect, []ObjectLabels{labelled}, false},
	} {
		if got := Object(tt.selector, tt.op, tt.objects...); got != tt.want {
			t.Errorf("%s: Object = %v, want %v", tt.name, got, tt.want)
		}
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	namespaces := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	if !NamespaceJudged("shop", pods) || !NamespaceJudged("", namespaces) || NamespaceJudged("", nodes) {
		t.Error("NamespaceJudged: a namespaced object and a Namespace are judged, a Node is not")
	}
	if !OwnNamespaceLabels(namespaces, "", admissionv1.Create) || OwnNamespaceLabels(namespaces, "", admissionv1.Delete) || OwnNamespaceLabels(namespaces, "finalize", admissionv1.Update) {
		t.Error("OwnNamespaceLabels: a Namespace created or updated is judged on its own labels, not one deleted or a subresource")
	}
}
