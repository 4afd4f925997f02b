package builtin

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook"
)

// ProtectionSpec configures the namespace-protection webhook: deleting a namespace whose label
// LabelKey has the value LabelValue is denied.
type ProtectionSpec struct {
	// LabelKey defaults to "admit.dev/protected".
	LabelKey string
	// LabelValue defaults to "true".
	LabelValue string
}

// Default fills in the label admit.dev/protected=true, or the value "true" for a key given alone.
func (s *ProtectionSpec) Default() {
	s.LabelKey, s.LabelValue = strings.TrimSpace(s.LabelKey), strings.TrimSpace(s.LabelValue)
	if s.LabelKey == "" {
		s.LabelKey = defaultProtectionLabelKey
	}
	if s.LabelValue == "" {
		s.LabelValue = defaultProtectionLabelValue
	}
}

// Validate checks that the label is a valid label key and non-empty value, under path.
func (s *ProtectionSpec) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if msgs := validation.IsQualifiedName(s.LabelKey); len(msgs) > 0 {
		errs = append(errs, field.Invalid(path.Child("labelKey"), s.LabelKey, strings.Join(msgs, "; ")))
	}
	if s.LabelValue == "" {
		errs = append(errs, field.Required(path.Child("labelValue"), "an empty value would protect namespaces that merely carry the key"))
	} else if msgs := validation.IsValidLabelValue(s.LabelValue); len(msgs) > 0 {
		errs = append(errs, field.Invalid(path.Child("labelValue"), s.LabelValue, strings.Join(msgs, "; ")))
	}
	return errs
}

// namespaceProtection denies deleting protected namespaces.
type namespaceProtection struct{ spec *ProtectionSpec }

// ValidateDelete denies the deletion of a protected namespace and says how to lift the protection:
// deleting a namespace deletes everything in it, so it should take two deliberate steps.
func (v namespaceProtection) ValidateDelete(_ context.Context, _ *webhook.Request, ns *corev1.Namespace) ([]string, error) {
	if ns.Labels[v.spec.LabelKey] != v.spec.LabelValue {
		return nil, nil
	}
	return nil, fmt.Errorf("namespace %q is protected by the label %s=%s; to delete it, remove the protection first: kubectl label namespace %s %s-",
		ns.Name, v.spec.LabelKey, v.spec.LabelValue, ns.Name, v.spec.LabelKey)
}

// ValidateCreate allows every namespace; the webhook is registered for DELETE only.
func (namespaceProtection) ValidateCreate(context.Context, *webhook.Request, *corev1.Namespace) ([]string, error) {
	return nil, nil
}

// ValidateUpdate allows every update, removing the protection included: that is how a protected
// namespace is made deletable. The webhook is registered for DELETE only.
func (namespaceProtection) ValidateUpdate(context.Context, *webhook.Request, *corev1.Namespace, *corev1.Namespace) ([]string, error) {
	return nil, nil
}

// protectionWebhook describes the namespace-protection webhook.
func protectionWebhook(spec *ProtectionSpec) webhook.Webhook {
	gvk := corev1.SchemeGroupVersion.WithKind("Namespace")
	return webhook.Webhook{
		Name:           NamespaceProtectionWebhook,
		Type:           webhook.TypeValidating,
		Kind:           gvk,
		Resource:       "namespaces",
		Scope:          admissionregistrationv1.ClusterScope,
		Operations:     []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
		Path:           memberPath(NamespaceProtectionWebhook, webhook.TypeValidating, gvk, "namespaces"),
		Handler:        webhook.ValidatingHandler[*corev1.Namespace](namespaceProtection{spec: spec}),
		FailurePolicy:  ValidationFailurePolicy,
		TimeoutSeconds: ValidationTimeoutSeconds,
	}
}
