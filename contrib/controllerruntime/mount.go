package controllerruntime

import (
	"errors"
	"fmt"

	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/admitkit/admit/webhook"
)

// Mount registers every admission and conversion webhook of registry on server, each on the
// path it has in the Registry (and in the configurations the Registry writes). Register the
// webhooks before mounting: ones added later are not served. controller-runtime refuses a path
// twice; Mount reports which.
func Mount(server ctrlwebhook.Server, registry *webhook.Registry) (err error) {
	if server == nil || registry == nil {
		return errors.New("mounting an admit registry: the server and the registry are required")
	}
	var paths []string
	for _, w := range registry.Webhooks() {
		paths = append(paths, w.Path)
	}
	for _, c := range registry.Conversions() {
		paths = append(paths, c.Path)
	}
	if len(paths) == 0 {
		return errors.New("mounting an admit registry: it has no webhooks yet; register them first")
	}
	// controller-runtime panics on a path registered twice; report it as an error instead.
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("mounting an admit registry: %v", v)
		}
	}()
	for _, path := range paths {
		server.Register(path, registry)
	}
	return nil
}
