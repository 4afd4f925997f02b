package builtin

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook"
)

// RequiredMetadataSpec configures the required-labels webhook: for each kind, the labels and
// annotations its objects must carry, with a non-empty value.
type RequiredMetadataSpec struct {
	Kinds []KindRequirement
}

// KindRequirement is what objects of one kind must carry.
type KindRequirement struct {
	// Kind is the kind checked, in the version the webhook is registered for; with the default
	// matchPolicy Equivalent, requests in other versions of the same resource are converted to it.
	Kind schema.GroupVersionKind
	// Resource is the plural resource name of Kind, e.g. "configmaps" (the webhook rule needs it).
	// Built-in kinds can be looked up by name in the environment format; custom resources name
	// it there too (see the package documentation).
	Resource string
	// Labels and Annotations are the keys that must be present with a non-empty value.
	Labels      []string
	Annotations []string
}

// clone returns a copy of s sharing no slice with it, so Default can change the copy.
func (s *RequiredMetadataSpec) clone() RequiredMetadataSpec {
	out := RequiredMetadataSpec{Kinds: slices.Clone(s.Kinds)}
	for i := range out.Kinds {
		out.Kinds[i].Labels = slices.Clone(out.Kinds[i].Labels)
		out.Kinds[i].Annotations = slices.Clone(out.Kinds[i].Annotations)
	}
	return out
}

// Default trims spaces around the keys and the resource name.
func (s *RequiredMetadataSpec) Default() {
	for i := range s.Kinds {
		k := &s.Kinds[i]
		k.Resource = strings.TrimSpace(k.Resource)
		for j := range k.Labels {
			k.Labels[j] = strings.TrimSpace(k.Labels[j])
		}
		for j := range k.Annotations {
			k.Annotations[j] = strings.TrimSpace(k.Annotations[j])
		}
	}
}

// Validate returns every problem of s, each at its field under path (kinds[i].resource,
// kinds[i].labels[j], ...): a kind without version, kind or resource, a kind requiring nothing,
// keys that are not qualified names or are listed twice, and a resource listed twice (two
// registrations would serve the same requests).
func (s *RequiredMetadataSpec) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	kinds := path.Child("kinds")
	if len(s.Kinds) == 0 {
		errs = append(errs, field.Required(kinds, "at least one kind and the labels or annotations it requires"))
	}
	seen := map[schema.GroupResource]int{}
	for i, k := range s.Kinds {
		p := kinds.Index(i)
		if k.Kind.Kind == "" || k.Kind.Version == "" {
			errs = append(errs, field.Required(p.Child("kind"), "a kind and its version, e.g. v1 ConfigMap"))
		}
		if k.Resource == "" {
			errs = append(errs, field.Required(p.Child("resource"), "the plural resource name of the kind, e.g. configmaps"))
		} else if msgs := validation.IsDNS1123Label(k.Resource); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("resource"), k.Resource, "a resource name is lower case: "+strings.Join(msgs, "; ")))
		} else if first, dup := seen[schema.GroupResource{Group: k.Kind.Group, Resource: k.Resource}]; dup {
			errs = append(errs, field.Invalid(p.Child("resource"), k.Resource, fmt.Sprintf("is listed twice: %s requires it already", kinds.Index(first))))
		} else {
			seen[schema.GroupResource{Group: k.Kind.Group, Resource: k.Resource}] = i
		}
		if len(k.Labels) == 0 && len(k.Annotations) == 0 {
			errs = append(errs, field.Required(p.Child("labels"), "at least one label or annotation"))
		}
		errs = append(errs, checkKeys(k.Labels, func(j int) *field.Path { return p.Child("labels").Index(j) })...)
		errs = append(errs, checkKeys(k.Annotations, func(j int) *field.Path { return p.Child("annotations").Index(j) })...)
	}
	return errs
}

// checkKeys checks label or annotation keys (both follow the qualified-name rule: an optional DNS
// prefix and "/", then a name), naming key j by keyPath(j).
func checkKeys(keys []string, keyPath func(j int) *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for j, key := range keys {
		if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
			errs = append(errs, field.Invalid(keyPath(j), key, strings.Join(msgs, "; ")))
		} else if seen[key] {
			errs = append(errs, field.Duplicate(keyPath(j), key))
		}
		seen[key] = true
	}
	return errs
}

// requiredMetadata checks the objects of one kind against its requirement.
type requiredMetadata struct{ req KindRequirement }

// missing returns a Required error per key absent from obj or present with an empty value.
func (v requiredMetadata) missing(obj *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	for _, key := range v.req.Labels {
		if labels[key] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "labels").Key(key),
				fmt.Sprintf("every %s must have this label, with a non-empty value", v.req.Kind.Kind)))
		}
	}
	for _, key := range v.req.Annotations {
		if annotations[key] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(key),
				fmt.Sprintf("every %s must have this annotation, with a non-empty value", v.req.Kind.Kind)))
		}
	}
	return errs
}

// ValidateCreate denies an object missing any required key, with one cause per missing key.
func (v requiredMetadata) ValidateCreate(_ context.Context, _ *webhook.Request, obj *unstructured.Unstructured) ([]string, error) {
	return nil, webhook.Invalid(v.missing(obj))
}

// ValidateUpdate denies an update that leaves a required key missing, except a key the object
// already lacked: objects created before the requirement must stay updatable, or a controller
// removing a finalizer could never finish deleting them. Those keys get a warning instead.
func (v requiredMetadata) ValidateUpdate(_ context.Context, _ *webhook.Request, oldObj, obj *unstructured.Unstructured) ([]string, error) {
	lackedBefore := map[string]bool{}
	for _, e := range v.missing(oldObj) {
		lackedBefore[e.Field] = true
	}
	var errs field.ErrorList
	var warnings []string
	for _, e := range v.missing(obj) {
		if lackedBefore[e.Field] {
			warnings = append(warnings, fmt.Sprintf("%s is required on every %s: add it; this update is allowed only because the object already lacked it", e.Field, v.req.Kind.Kind))
			continue
		}
		errs = append(errs, e)
	}
	return warnings, webhook.Invalid(errs)
}

// ValidateDelete allows every deletion; the webhook is not registered for DELETE anyway.
func (requiredMetadata) ValidateDelete(context.Context, *webhook.Request, *unstructured.Unstructured) ([]string, error) {
	return nil, nil
}

// requiredMetadataWebhooks describes one validating webhook per kind of spec.
func requiredMetadataWebhooks(spec *RequiredMetadataSpec) []webhook.Webhook {
	hooks := make([]webhook.Webhook, 0, len(spec.Kinds))
	for _, k := range spec.Kinds {
		hooks = append(hooks, webhook.Webhook{
			Name:           memberName(k.Resource, k.Kind.Group, RequiredLabelsWebhook),
			Type:           webhook.TypeValidating,
			Kind:           k.Kind,
			Resource:       k.Resource,
			Path:           memberPath(RequiredLabelsWebhook, webhook.TypeValidating, k.Kind, k.Resource),
			Handler:        webhook.ValidatingHandler[*unstructured.Unstructured](requiredMetadata{req: k}),
			FailurePolicy:  ValidationFailurePolicy,
			TimeoutSeconds: ValidationTimeoutSeconds,
		})
	}
	return hooks
}
