package lint

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources"
)

func TestMatchesRules(t *testing.T) {
	mapper, err := resources.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	scope := func(s admissionregistrationv1.ScopeType) *admissionregistrationv1.ScopeType { return &s }
	rule := func(groups, versions, resources []string, ops []admissionregistrationv1.OperationType, s *admissionregistrationv1.ScopeType) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: s}}
	}
	list := func(s ...string) []string { return s }
	create := ops(admissionregistrationv1.Create)
	pods := request{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, operation: admissionregistrationv1.Create, namespaced: true}
	podStatus := pods
	podStatus.subresource, podStatus.operation = "status", admissionregistrationv1.Update
	namespaces := request{gvr: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, operation: admissionregistrationv1.Create}
	nodes := request{gvr: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, operation: admissionregistrationv1.Create}
	hpaV1 := request{gvr: schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}, operation: admissionregistrationv1.Create, namespaced: true}
	hpaV2Rule := rule(list("autoscaling"), list("v2"), list("horizontalpodautoscalers"), create, nil)

	tests := []struct {
		name   string
		rule   admissionregistrationv1.RuleWithOperations
		policy admissionregistrationv1.MatchPolicyType
		req    request
		want   bool
	}{
		{name: "exact", rule: rule(list(""), list("v1"), list("pods"), create, nil), req: pods, want: true},
		{name: "other operation", rule: rule(list(""), list("v1"), list("pods"), ops(admissionregistrationv1.Delete), nil), req: pods},
		{name: "every operation", rule: rule(list(""), list("v1"), list("pods"), ops(admissionregistrationv1.OperationAll), nil), req: pods, want: true},
		{name: "other group", rule: rule(list("apps"), list("v1"), list("pods"), create, nil), req: pods},
		{name: "resource does not match its subresource", rule: rule(list(""), list("v1"), list("pods"), ops(admissionregistrationv1.Update), nil), req: podStatus},
		{name: "named subresource", rule: rule(list(""), list("v1"), list("pods/status"), ops(admissionregistrationv1.Update), nil), req: podStatus, want: true},
		{name: "star does not match subresources", rule: rule(list("*"), list("*"), list("*"), ops(admissionregistrationv1.Update), nil), req: podStatus},
		{name: "star slash star matches subresources", rule: rule(list("*"), list("*"), list("*/*"), ops(admissionregistrationv1.Update), nil), req: podStatus, want: true},
		// The apiserver splits "pods/*" into pods and "*", and "*" matches the empty subresource.
		{name: "resource slash star matches the resource too", rule: rule(list(""), list("v1"), list("pods/*"), create, nil), req: pods, want: true},
		{name: "namespaced scope, namespaced resource", rule: rule(list(""), list("v1"), list("pods"), create, scope(admissionregistrationv1.NamespacedScope)), req: pods, want: true},
		{name: "cluster scope, namespaced resource", rule: rule(list(""), list("v1"), list("pods"), create, scope(admissionregistrationv1.ClusterScope)), req: pods},
		{name: "cluster scope, cluster resource", rule: rule(list(""), list("v1"), list("nodes"), create, scope(admissionregistrationv1.ClusterScope)), req: nodes, want: true},
		{name: "namespaces are cluster-scoped", rule: rule(list(""), list("v1"), list("namespaces"), create, scope(admissionregistrationv1.ClusterScope)), req: namespaces, want: true},
		{name: "namespaced scope never matches namespaces", rule: rule(list(""), list("v1"), list("namespaces"), create, scope(admissionregistrationv1.NamespacedScope)), req: namespaces},
		{name: "unknown scope", rule: rule(list(""), list("v1"), list("pods"), create, scope("Global")), req: pods},
		{name: "another version, Equivalent", rule: hpaV2Rule, policy: admissionregistrationv1.Equivalent, req: hpaV1, want: true},
		{name: "another version, Exact", rule: hpaV2Rule, policy: admissionregistrationv1.Exact, req: hpaV1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			policy := tc.policy
			if policy == "" {
				policy = admissionregistrationv1.Equivalent
			}
			w := &webhook{spec: admissionregistrationv1.ValidatingWebhook{Rules: []admissionregistrationv1.RuleWithOperations{tc.rule}, MatchPolicy: &policy}}
			if got := w.matchesRules(mapper, tc.req); got != tc.want {
				t.Errorf("matchesRules(%s) = %v, want %v", tc.req, got, tc.want)
			}
		})
	}
}
