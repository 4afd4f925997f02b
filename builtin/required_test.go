package builtin

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook"
)

func testRequirements() Config {
	return Config{RequiredMetadata: &RequiredMetadataSpec{Kinds: []KindRequirement{
		{Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Labels: []string{"team"}},
		{Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: "deployments",
			Labels: []string{"team", "app.kubernetes.io/name"}, Annotations: []string{"owner"}},
		{Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Resource: "widgets", Annotations: []string{"owner"}},
	}}}
}

// object writes an object of any kind with the given labels and annotations.
func object(apiVersion, kind, name string, labels, annotations map[string]string) map[string]any {
	metadata := map[string]any{"name": name, "namespace": "default"}
	if labels != nil {
		metadata["labels"] = labels
	}
	if annotations != nil {
		metadata["annotations"] = annotations
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": metadata, "spec": map[string]any{"unknownToGo": true}}
}

func TestRequiredLabelsWebhooks(t *testing.T) {
	hooks := registered(t, testRequirements())
	team := map[string]string{"team": "storefront"}
	full := map[string]string{"team": "storefront", "app.kubernetes.io/name": "web"}
	owner := map[string]string{"owner": "alice"}

	tests := []struct {
		name         string
		webhook      string
		review       review
		wantMessage  string // "" means allowed
		wantCauses   []metav1.StatusCause
		wantWarnings []string
	}{
		{
			name:    "configmap with its label",
			webhook: "configmaps.required-labels.admit.dev",
			review:  review{operation: admissionv1.Create, object: object("v1", "ConfigMap", "settings", team, nil)},
		},
		{
			name:        "configmap without its label",
			webhook:     "configmaps.required-labels.admit.dev",
			review:      review{operation: admissionv1.Create, object: object("v1", "ConfigMap", "settings", map[string]string{"app": "web"}, nil)},
			wantMessage: `ConfigMap "settings" is invalid: metadata.labels[team]: Required value: every ConfigMap must have this label, with a non-empty value`,
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired,
				Message: "Required value: every ConfigMap must have this label, with a non-empty value", Field: "metadata.labels[team]"}},
		},
		{
			name:        "an empty value is missing",
			webhook:     "configmaps.required-labels.admit.dev",
			review:      review{operation: admissionv1.Create, object: object("v1", "ConfigMap", "settings", map[string]string{"team": ""}, nil)},
			wantMessage: `ConfigMap "settings" is invalid: metadata.labels[team]: Required value: every ConfigMap must have this label, with a non-empty value`,
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired,
				Message: "Required value: every ConfigMap must have this label, with a non-empty value", Field: "metadata.labels[team]"}},
		},
		{
			name:    "deployment missing everything: one cause per key",
			webhook: "deployments.apps.required-labels.admit.dev",
			review:  review{operation: admissionv1.Create, object: object("apps/v1", "Deployment", "web", nil, nil)},
			wantMessage: `Deployment.apps "web" is invalid: [` +
				`metadata.labels[team]: Required value: every Deployment must have this label, with a non-empty value, ` +
				`metadata.labels[app.kubernetes.io/name]: Required value: every Deployment must have this label, with a non-empty value, ` +
				`metadata.annotations[owner]: Required value: every Deployment must have this annotation, with a non-empty value]`,
			wantCauses: []metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value: every Deployment must have this label, with a non-empty value", Field: "metadata.labels[team]"},
				{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value: every Deployment must have this label, with a non-empty value", Field: "metadata.labels[app.kubernetes.io/name]"},
				{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value: every Deployment must have this annotation, with a non-empty value", Field: "metadata.annotations[owner]"},
			},
		},
		{
			name:    "deployment with everything",
			webhook: "deployments.apps.required-labels.admit.dev",
			review:  review{operation: admissionv1.Create, object: object("apps/v1", "Deployment", "web", full, owner)},
		},
		{
			name:    "an update that removes a label is denied",
			webhook: "deployments.apps.required-labels.admit.dev",
			review: review{operation: admissionv1.Update,
				object: object("apps/v1", "Deployment", "web", team, owner), oldObject: object("apps/v1", "Deployment", "web", full, owner)},
			wantMessage: `Deployment.apps "web" is invalid: metadata.labels[app.kubernetes.io/name]: Required value: every Deployment must have this label, with a non-empty value`,
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired,
				Message: "Required value: every Deployment must have this label, with a non-empty value", Field: "metadata.labels[app.kubernetes.io/name]"}},
		},
		{
			name:    "an object older than the requirement stays updatable, with a warning",
			webhook: "deployments.apps.required-labels.admit.dev",
			review: review{operation: admissionv1.Update,
				object: object("apps/v1", "Deployment", "web", full, nil), oldObject: object("apps/v1", "Deployment", "web", full, nil)},
			wantWarnings: []string{"metadata.annotations[owner] is required on every Deployment: add it; this update is allowed only because the object already lacked it"},
		},
		{
			name:    "grandfathering covers only what was already missing",
			webhook: "deployments.apps.required-labels.admit.dev",
			review: review{operation: admissionv1.Update,
				object: object("apps/v1", "Deployment", "web", nil, nil), oldObject: object("apps/v1", "Deployment", "web", team, nil)},
			wantMessage: `Deployment.apps "web" is invalid: metadata.labels[team]: Required value: every Deployment must have this label, with a non-empty value`,
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired,
				Message: "Required value: every Deployment must have this label, with a non-empty value", Field: "metadata.labels[team]"}},
			wantWarnings: []string{
				"metadata.labels[app.kubernetes.io/name] is required on every Deployment: add it; this update is allowed only because the object already lacked it",
				"metadata.annotations[owner] is required on every Deployment: add it; this update is allowed only because the object already lacked it",
			},
		},
		{
			name:        "a custom resource",
			webhook:     "widgets.example.com.required-labels.admit.dev",
			review:      review{operation: admissionv1.Create, object: object("example.com/v1", "Widget", "w", nil, map[string]string{"owner": ""})},
			wantMessage: `Widget.example.com "w" is invalid: metadata.annotations[owner]: Required value: every Widget must have this annotation, with a non-empty value`,
			wantCauses: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired,
				Message: "Required value: every Widget must have this annotation, with a non-empty value", Field: "metadata.annotations[owner]"}},
		},
		{
			name:    "deleting is not checked",
			webhook: "configmaps.required-labels.admit.dev",
			review:  review{operation: admissionv1.Delete, oldObject: object("v1", "ConfigMap", "settings", nil, nil)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := hooks[tt.webhook]
			if !ok {
				t.Fatalf("no webhook %q registered", tt.webhook)
			}
			resp, _ := send(t, w, tt.review)
			if diff := cmp.Diff(tt.wantWarnings, resp.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if tt.wantMessage == "" {
				if resp.Outcome != webhook.OutcomeAllowed {
					t.Fatalf("outcome %v (%+v), want allowed", resp.Outcome, resp.Status)
				}
				return
			}
			if resp.Outcome != webhook.OutcomeDenied || resp.Status.Code != http.StatusUnprocessableEntity || resp.Status.Reason != metav1.StatusReasonInvalid {
				t.Fatalf("outcome %v, status %+v; want denied with 422 Invalid", resp.Outcome, resp.Status)
			}
			if diff := cmp.Diff(tt.wantMessage, resp.Status.Message); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCauses, resp.Status.Details.Causes); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequiredMetadataSpecValidate(t *testing.T) {
	configMap := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	kinds := field.NewPath("requiredMetadata", "kinds")
	tests := []struct {
		name  string
		kinds []KindRequirement
		want  field.ErrorList
	}{
		{"valid", testRequirements().RequiredMetadata.Kinds, nil},
		{"empty", nil, field.ErrorList{field.Required(kinds, "at least one kind and the labels or annotations it requires")}},
		{"nothing required, nothing named", []KindRequirement{{}}, field.ErrorList{
			field.Required(kinds.Index(0).Child("kind"), "a kind and its version, e.g. v1 ConfigMap"),
			field.Required(kinds.Index(0).Child("resource"), "the plural resource name of the kind, e.g. configmaps"),
			field.Required(kinds.Index(0).Child("labels"), "at least one label or annotation"),
		}},
		{"bad resource and keys", []KindRequirement{{Kind: configMap, Resource: "ConfigMaps", Labels: []string{"team", "bad key", "team"}, Annotations: []string{"-owner"}}}, field.ErrorList{
			field.Invalid(kinds.Index(0).Child("resource"), "ConfigMaps", "a resource name is lower case: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
			field.Invalid(kinds.Index(0).Child("labels").Index(1), "bad key", "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
			field.Duplicate(kinds.Index(0).Child("labels").Index(2), "team"),
			field.Invalid(kinds.Index(0).Child("annotations").Index(0), "-owner", "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
		}},
		{"a resource twice, in two versions", []KindRequirement{
			{Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Resource: "widgets", Labels: []string{"team"}},
			{Kind: schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"}, Resource: "widgets", Labels: []string{"owner"}},
		}, field.ErrorList{
			field.Invalid(kinds.Index(1).Child("resource"), "widgets", "is listed twice: requiredMetadata.kinds[0] requires it already"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := RequiredMetadataSpec{Kinds: tt.kinds}
			spec.Default()
			if diff := cmp.Diff(tt.want, spec.Validate(field.NewPath("requiredMetadata"))); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}
