package webhook

import (
	"net/http"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rulesMatch matches resources as kube-apiserver's rule matcher does.
func TestRulesMatch(t *testing.T) {
	rules := []admissionregistrationv1.RuleWithOperations{
		rule(create, []string{"apps"}, []string{"v1"}, []string{"deployments", "statefulsets/*"}),
		rule(create, []string{""}, []string{"*"}, []string{"*/status"}),
		rule(create, []string{"batch"}, []string{"v1"}, []string{"*"}),
	}
	tests := []struct {
		group, version, resource, sub string
		want                          bool
	}{
		{"apps", "v1", "deployments", "", true},
		{"apps", "v1", "deployments", "scale", false},
		{"apps", "v1beta1", "deployments", "", false},
		{"apps", "v1", "statefulsets", "", true}, // "r/*" matches r itself too
		{"apps", "v1", "statefulsets", "scale", true},
		{"", "v1", "pods", "status", true},
		{"", "v1", "pods", "", false},
		{"batch", "v1", "jobs", "", true},
		{"batch", "v1", "jobs", "status", false},
		{"extensions", "v1", "deployments", "", false},
	}
	for _, tt := range tests {
		if got := rulesMatch(rules, tt.group, tt.version, tt.resource, tt.sub); got != tt.want {
			t.Errorf("rulesMatch(%q, %q, %q, %q) = %v, want %v", tt.group, tt.version, tt.resource, tt.sub, got, tt.want)
		}
	}
}

// A webhook without a kind answers 400 to resources its rules do not name.
func TestRegistryGuardsTheRulesOfAWebhookOfAnyKind(t *testing.T) {
	r := NewRegistry(HTTPOptions{})
	err := r.Register(Webhook{Name: "workloads.example.com", Type: TypeValidating, Handler: allowHandler,
		Rules: []admissionregistrationv1.RuleWithOperations{rule(create, []string{"apps"}, []string{"v1"}, []string{"deployments"})}})
	if err != nil {
		t.Fatal(err)
	}
	deployment := podCreateRequest()
	deployment.Kind = metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	deployment.Resource = metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	if w := postPath(t, r, "/validate-workloads-example-com", reviewJSON(t, "admission.k8s.io/v1", deployment)); w.Code != http.StatusOK {
		t.Fatalf("a deployment: code %d: %s", w.Code, w.Body)
	}
	w := postPath(t, r, "/validate-workloads-example-com", reviewJSON(t, "admission.k8s.io/v1", podCreateRequest()))
	if w.Code != http.StatusBadRequest {
		t.Fatalf("a pod: code %d, want 400", w.Code)
	}
	if s := decodeStatus(t, w); s.Message != "this webhook's rules do not match /v1, Resource=pods: check the rules of its configuration" {
		t.Fatalf("message = %q", s.Message)
	}
}
