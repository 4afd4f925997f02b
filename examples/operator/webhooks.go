package operator

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	cachev2 "github.com/admitkit/admit/examples/operator/api/v2"
	"github.com/admitkit/admit/webhook"
)

// EnvDefaultImage names the environment variable with the image a Cache gets when it names
// none; the Deployment of the webhook server sets it, so changing it needs no rebuild.
const EnvDefaultImage = "CACHE_DEFAULT_IMAGE"

// Engines a Cache can run; the first is the default.
func engines() []string { return []string{"redis", "memcached"} }

// Defaults fills in what a Cache may leave out.
type Defaults struct {
	// Image is the default image, read from EnvDefaultImage at startup.
	Image string
}

// DefaultsFromEnv reads the defaults through lookup (os.LookupEnv in the server).
func DefaultsFromEnv(lookup func(string) (string, bool)) (Defaults, error) {
	image, ok := lookup(EnvDefaultImage)
	image = strings.TrimSpace(image)
	if !ok || image == "" {
		return Defaults{}, fmt.Errorf("%s is not set: the image a Cache gets when it names none", EnvDefaultImage)
	}
	if !strings.Contains(image, ":") && !strings.Contains(image, "@") {
		return Defaults{}, fmt.Errorf("%s=%q: pin a tag or a digest", EnvDefaultImage, image)
	}
	return Defaults{Image: image}, nil
}

// Default implements webhook.Defaulter.
func (d Defaults) Default(_ context.Context, _ *webhook.Request, c *cachev2.Cache) ([]string, error) {
	var warnings []string
	if c.Spec.Engine == "" {
		c.Spec.Engine = engines()[0]
	}
	if c.Spec.Image == "" {
		c.Spec.Image = d.Image
		warnings = append(warnings, fmt.Sprintf("spec.image defaulted to %s", d.Image))
	}
	if c.Spec.Replicas == nil {
		one := int32(1)
		c.Spec.Replicas = &one
	}
	return warnings, nil
}

// Limits validates a Cache.
type Limits struct{}

// validate returns every problem of spec, each with its field path.
func (Limits) validate(c *cachev2.Cache) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if e := c.Spec.Engine; e != "" && e != engines()[0] && e != engines()[1] {
		errs = append(errs, field.NotSupported(spec.Child("engine"), e, engines()))
	}
	if r := c.Spec.Replicas; r != nil && (*r < 1 || *r > 9) {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *r, "must be between 1 and 9"))
	}
	if c.Spec.Memory == "" {
		errs = append(errs, field.Required(spec.Child("memory"), "the memory per replica, such as 512Mi"))
	} else if q, err := resource.ParseQuantity(c.Spec.Memory); err != nil {
		errs = append(errs, field.Invalid(spec.Child("memory"), c.Spec.Memory, "must be a quantity such as 512Mi"))
	} else if q.Cmp(resource.MustParse("64Gi")) > 0 {
		errs = append(errs, field.Invalid(spec.Child("memory"), c.Spec.Memory, "must be at most 64Gi"))
	}
	if strings.HasSuffix(c.Spec.Image, ":latest") {
		errs = append(errs, field.Invalid(spec.Child("image"), c.Spec.Image, "pin a version: :latest changes under a running cache"))
	}
	return errs
}

// ValidateCreate implements webhook.Validator.
func (l Limits) ValidateCreate(_ context.Context, _ *webhook.Request, c *cachev2.Cache) ([]string, error) {
	return nil, webhook.Invalid(l.validate(c))
}

// ValidateUpdate implements webhook.Validator. The engine is immutable, and memory cannot
// shrink: the data would not fit. Every problem is reported at once.
func (l Limits) ValidateUpdate(_ context.Context, _ *webhook.Request, old, c *cachev2.Cache) ([]string, error) {
	errs := l.validate(c)
	errs = append(errs, apivalidation.ValidateImmutableField(c.Spec.Engine, old.Spec.Engine, field.NewPath("spec", "engine"))...)
	before, errBefore := resource.ParseQuantity(old.Spec.Memory)
	after, errAfter := resource.ParseQuantity(c.Spec.Memory)
	if errBefore == nil && errAfter == nil && after.Cmp(before) < 0 {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "memory"), fmt.Sprintf("cannot shrink from %s to %s", old.Spec.Memory, c.Spec.Memory)))
	}
	return nil, webhook.Invalid(errs)
}

// ValidateDelete implements webhook.Validator; a Cache may always be deleted.
func (Limits) ValidateDelete(context.Context, *webhook.Request, *cachev2.Cache) ([]string, error) {
	return nil, nil
}
