package operator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	cachev1 "github.com/admitkit/admit/examples/operator/api/v1"
	cachev2 "github.com/admitkit/admit/examples/operator/api/v2"
)

// CRDName is the CustomResourceDefinition's name.
const CRDName = "caches." + cachev2.Group

// NewScheme returns a scheme with both versions of Cache: the webhooks read the group,
// version and kind of their Go types from it.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{cachev1.AddToScheme, cachev2.AddToScheme} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building the Cache scheme: %w", err)
		}
	}
	return s, nil
}
