package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/util/webhook"
)

// TestClientConfigChecksAreTheApiserversOwn compares admit's URL and service checks with
// k8s.io/apiserver's, which the dispatch packages do not link (it pulls in tracing and gRPC).
func TestClientConfigChecksAreTheApiserversOwn(t *testing.T) {
	path := field.NewPath("webhooks").Index(0).Child("clientConfig")
	urls := []string{
		"https://example.com/validate", "https://127.0.0.1:9443", "http://example.com", "example.com/x", "https://",
		"https://user:pass@example.com", "https://example.com/#frag", "https://example.com/?q=1", "://bad", "https://[::1",
		"", "ftp://u@h/p?x#y",
	}
	for _, u := range urls {
		want := webhook.ValidateWebhookURL(path.Child("url"), u, true)
		if diff := cmp.Diff(want.ToAggregate(), validateURL(path.Child("url"), u).ToAggregate()); diff != "" {
			t.Errorf("url %q (-apiserver +admit):\n%s", u, diff)
		}
	}
	ptr := func(s string) *string { return &s }
	services := []struct {
		name, namespace string
		path            *string
		port            int32
	}{
		{"svc", "ns", nil, 443}, {"", "ns", nil, 443}, {"svc", "", nil, 443}, {"", "", nil, 0}, {"svc", "ns", nil, 70000},
		{"svc", "ns", ptr("/"), 443}, {"svc", "ns", ptr(""), 443}, {"svc", "ns", ptr("//"), 443}, {"svc", "ns", ptr("validate"), 443},
		{"svc", "ns", ptr("/validate/"), 443}, {"svc", "ns", ptr("/a//b"), 443}, {"svc", "ns", ptr("/Upper/x_y"), 443},
		{"svc", "ns", ptr("/a/b/"), 443}, {"svc", "ns", ptr("/a/b//"), 443},
	}
	for _, s := range services {
		ref := &admissionregistrationv1.ServiceReference{Name: s.name, Namespace: s.namespace, Path: s.path}
		want := webhook.ValidateWebhookService(path.Child("service"), s.name, s.namespace, s.path, s.port)
		if diff := cmp.Diff(want.ToAggregate(), validateService(path.Child("service"), ref, s.port).ToAggregate()); diff != "" {
			t.Errorf("service %+v (-apiserver +admit):\n%s", s, diff)
		}
	}
}
