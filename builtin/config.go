package builtin

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/admitkit/admit/webhook"
)

// Webhook families. Each is registered once per resource it handles, because a registered webhook
// has one kind and one resource and names must be unique in a configuration: the member for a
// resource is named "<resource>[.<group>].<family>", e.g. "pods.image-mirrors.admit.dev" or
// "deployments.apps.required-labels.admit.dev". Namespace protection handles namespaces only and
// is named after its family.
const (
	ImageMirrorsWebhook        = "image-mirrors.admit.dev"
	RequiredLabelsWebhook      = "required-labels.admit.dev"
	NamespaceProtectionWebhook = "namespace-protection.admit.dev"
)

// Failure policies and timeouts the webhooks are registered with.
//
// Image mirrors fail open (Ignore). If the webhook is down with Fail, no pod can be created
// anywhere it applies, including the replicas that would bring it back; with Ignore, a pod created
// meanwhile keeps its upstream image and, in an air-gapped cluster, fails to pull: a visible
// problem confined to that pod, fixed by recreating it. Pods made from a workload's template get a
// second chance, as the pods themselves are rewritten too. The timeout is short because the
// webhook sits in the path of every pod creation and answers from memory.
//
// The validations fail closed (Fail): a policy that lets objects through whenever its server is
// unreachable is not a policy. They also answer from memory.
const (
	MirrorsFailurePolicy     = admissionregistrationv1.Ignore
	MirrorsTimeoutSeconds    = 2
	ValidationFailurePolicy  = admissionregistrationv1.Fail
	ValidationTimeoutSeconds = 3
)

// The label that protects a namespace unless configured otherwise.
const (
	defaultProtectionLabelKey   = "admit.dev/protected"
	defaultProtectionLabelValue = "true"
)

// Config says which built-in webhooks run and how. A nil spec leaves its webhook out, so the zero
// Config registers nothing.
type Config struct {
	// ImageMirrors rewrites container images to mirror registries (mutating).
	ImageMirrors *MirrorSpec
	// RequiredMetadata requires labels and annotations on objects of chosen kinds (validating).
	RequiredMetadata *RequiredMetadataSpec
	// NamespaceProtection refuses to delete labelled namespaces (validating).
	NamespaceProtection *ProtectionSpec
}

// DemoConfig is what the embedded demo serves (`admit review` without --webhooks): docker.io and
// quay.io mirrored to mirror.local/hub and mirror.local/quay, the label "team" required on
// ConfigMaps, and namespaces labelled admit.dev/protected=true protected. DemoObjects holds an
// object for each.
func DemoConfig() Config {
	return Config{
		ImageMirrors: &MirrorSpec{Mirrors: []Mirror{
			{Registry: "docker.io", Mirror: "mirror.local/hub"},
			{Registry: "quay.io", Mirror: "mirror.local/quay"},
		}},
		RequiredMetadata: &RequiredMetadataSpec{Kinds: []KindRequirement{{
			Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Resource: "configmaps", Labels: []string{"team"},
		}}},
		NamespaceProtection: &ProtectionSpec{},
	}
}

// normalized returns a copy of c with every spec defaulted, or all the problems of its specs, each
// named by its field (imageMirrors.mirrors[0].mirror, ...). c itself is left as it is.
func (c Config) normalized() (Config, error) {
	var out Config
	var errs field.ErrorList
	if c.ImageMirrors != nil {
		spec := MirrorSpec{Mirrors: slices.Clone(c.ImageMirrors.Mirrors)}
		spec.Default()
		errs = append(errs, spec.Validate(field.NewPath("imageMirrors"))...)
		out.ImageMirrors = &spec
	}
	if c.RequiredMetadata != nil {
		spec := c.RequiredMetadata.clone()
		spec.Default()
		errs = append(errs, spec.Validate(field.NewPath("requiredMetadata"))...)
		out.RequiredMetadata = &spec
	}
	if c.NamespaceProtection != nil {
		spec := *c.NamespaceProtection
		spec.Default()
		errs = append(errs, spec.Validate(field.NewPath("namespaceProtection"))...)
		out.NamespaceProtection = &spec
	}
	if len(errs) > 0 {
		return Config{}, fieldErrorsAsError(errs)
	}
	return out, nil
}

// Register defaults and validates cfg, then registers every enabled webhook in r: image mirrors
// (mutating, CREATE and UPDATE of pods and of workloads' pod templates, UPDATE of
// pods/ephemeralcontainers), required labels (validating, CREATE and UPDATE of each configured
// kind) and namespace protection (validating, DELETE of namespaces). Each webhook is served on
// "/<family>/<generated path>", e.g. "/image-mirrors/mutate-core-v1-pod", so two families can
// handle the same kind. A configuration problem is returned before anything is registered.
func Register(r *webhook.Registry, cfg Config) error {
	cfg, err := cfg.normalized()
	if err != nil {
		return fmt.Errorf("built-in webhooks: %w", err)
	}
	var hooks []webhook.Webhook
	if cfg.ImageMirrors != nil {
		hooks = append(hooks, mirrorWebhooks(cfg.ImageMirrors)...)
	}
	if cfg.RequiredMetadata != nil {
		hooks = append(hooks, requiredMetadataWebhooks(cfg.RequiredMetadata)...)
	}
	if cfg.NamespaceProtection != nil {
		hooks = append(hooks, protectionWebhook(cfg.NamespaceProtection))
	}
	for _, h := range hooks {
		if err := r.Register(h); err != nil {
			return fmt.Errorf("built-in webhooks: %w", err)
		}
	}
	return nil
}

// memberName names the member of family that handles resource (which may be
// "resource/subresource") in group.
func memberName(resource, group, family string) string {
	name := strings.ReplaceAll(resource, "/", "-")
	if group != "" {
		name += "." + group
	}
	return name + "." + family
}

// memberPath is where the member of family for gvk and resource is served: the framework's
// generated path under a directory named after the family, with the subresource appended.
func memberPath(family string, t webhook.Type, gvk schema.GroupVersionKind, resource string) string {
	dir, _, _ := strings.Cut(family, ".")
	path := "/" + dir + webhook.Path(t, gvk)
	if _, sub, ok := strings.Cut(resource, "/"); ok {
		path += "-" + sub
	}
	return path
}

// fieldErrorsAsError reports field errors one per line, so that a long list stays readable in a
// terminal or a pod's logs.
func fieldErrorsAsError(errs field.ErrorList) error {
	all := make([]error, len(errs))
	for i, e := range errs {
		all[i] = e
	}
	return errors.Join(all...)
}
