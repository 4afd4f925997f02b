package builtin

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook"
)

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func TestNamespaceProtectionWebhook(t *testing.T) {
	tests := []struct {
		name        string
		spec        ProtectionSpec
		review      review
		wantMessage string // "" means allowed
	}{
		{
			name:   "deleting a namespace without the label",
			review: review{operation: admissionv1.Delete, oldObject: namespace("scratch", nil)},
		},
		{
			name:        "deleting a protected namespace",
			review:      review{operation: admissionv1.Delete, oldObject: namespace("payments", map[string]string{"admit.dev/protected": "true"})},
			wantMessage: `namespace "payments" is protected by the label admit.dev/protected=true; to delete it, remove the protection first: kubectl label namespace payments admit.dev/protected-`,
		},
		{
			name:   "another value does not protect",
			review: review{operation: admissionv1.Delete, oldObject: namespace("payments", map[string]string{"admit.dev/protected": "false"})},
		},
		{
			name:        "a custom label",
			spec:        ProtectionSpec{LabelKey: "example.com/keep", LabelValue: "yes"},
			review:      review{operation: admissionv1.Delete, oldObject: namespace("prod", map[string]string{"example.com/keep": "yes"})},
			wantMessage: `namespace "prod" is protected by the label example.com/keep=yes; to delete it, remove the protection first: kubectl label namespace prod example.com/keep-`,
		},
		{
			name:   "the default label means nothing with a custom one",
			spec:   ProtectionSpec{LabelKey: "example.com/keep", LabelValue: "yes"},
			review: review{operation: admissionv1.Delete, oldObject: namespace("prod", map[string]string{"admit.dev/protected": "true"})},
		},
		{
			name: "removing the protection is allowed",
			review: review{operation: admissionv1.Update,
				object: namespace("payments", nil), oldObject: namespace("payments", map[string]string{"admit.dev/protected": "true"})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			w := registered(t, Config{NamespaceProtection: &spec})[NamespaceProtectionWebhook]
			resp, _ := send(t, w, tt.review)
			if tt.wantMessage == "" {
				if resp.Outcome != webhook.OutcomeAllowed {
					t.Fatalf("outcome %v (%+v), want allowed", resp.Outcome, resp.Status)
				}
				return
			}
			if resp.Outcome != webhook.OutcomeDenied || resp.Status.Code != http.StatusForbidden || resp.Status.Reason != metav1.StatusReasonForbidden {
				t.Fatalf("outcome %v, status %+v; want denied with 403 Forbidden", resp.Outcome, resp.Status)
			}
			if diff := cmp.Diff(tt.wantMessage, resp.Status.Message); diff != "" {
				t.Fatalf("message (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProtectionSpec(t *testing.T) {
	path := field.NewPath("namespaceProtection")
	tests := []struct {
		name        string
		spec        ProtectionSpec
		wantDefault ProtectionSpec
		wantErrs    field.ErrorList
	}{
		{"defaults", ProtectionSpec{}, ProtectionSpec{LabelKey: "admit.dev/protected", LabelValue: "true"}, nil},
		{"a key alone means true", ProtectionSpec{LabelKey: " example.com/keep "}, ProtectionSpec{LabelKey: "example.com/keep", LabelValue: "true"}, nil},
		{"bad key and value", ProtectionSpec{LabelKey: "a/b/c", LabelValue: "not ok"}, ProtectionSpec{LabelKey: "a/b/c", LabelValue: "not ok"}, field.ErrorList{
			field.Invalid(path.Child("labelKey"), "a/b/c", "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
			field.Invalid(path.Child("labelValue"), "not ok", "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			spec.Default()
			if diff := cmp.Diff(tt.wantDefault, spec); diff != "" {
				t.Errorf("defaulted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErrs, spec.Validate(path)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
