package operator

import (
	"fmt"

	cachev1 "github.com/admitkit/admit/examples/operator/api/v1"
	cachev2 "github.com/admitkit/admit/examples/operator/api/v2"
	"github.com/admitkit/admit/webhook/conversion"
)

// sizes maps v1's size names to v2's replicas and memory.
func sizes() map[string]cachev2.CacheSpec {
	one, three := int32(1), int32(3)
	return map[string]cachev2.CacheSpec{
		"small":  {Replicas: &one, Memory: "512Mi"},
		"medium": {Replicas: &three, Memory: "2Gi"},
		"large":  {Replicas: &three, Memory: "8Gi"},
	}
}

// NewConverter converts Caches between v1 and v2 through v2, the hub.
func NewConverter() (*conversion.Hub[cachev2.Cache], error) {
	hub := conversion.NewHub[cachev2.Cache]("Cache")
	if err := conversion.AddHubVersion(hub, cachev2.GroupVersion().String()); err != nil {
		return nil, err
	}
	err := conversion.AddVersion(hub, cachev1.GroupVersion().String(),
		func(v1 *cachev1.Cache, hub *cachev2.Cache) error {
			spec, ok := sizes()[v1.Spec.Size]
			if !ok {
				return fmt.Errorf("spec.size %q: not small, medium or large", v1.Spec.Size)
			}
			spec.Engine, spec.Image = v1.Spec.Engine, v1.Spec.Image
			hub.Spec = spec
			return nil
		},
		func(hub *cachev2.Cache, v1 *cachev1.Cache) error {
			v1.Spec.Engine, v1.Spec.Image = hub.Spec.Engine, hub.Spec.Image
			// The smallest size that holds the object, so that a v1 client reading it back and
			// writing it again never shrinks it.
			v1.Spec.Size = "large"
			for _, name := range []string{"small", "medium", "large"} {
				s := sizes()[name]
				if hub.Spec.Memory == s.Memory && hub.Spec.Replicas != nil && *hub.Spec.Replicas == *s.Replicas {
					v1.Spec.Size = name
					break
				}
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	return hub, nil
}
