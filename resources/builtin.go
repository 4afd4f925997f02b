package resources

import (
	_ "embed" // for the built-in data
	"fmt"
)

// builtinJSON is written by `go run ./hack/gen-resources` from a real kube-apiserver. A string,
// not a byte slice, so that nothing can change it.
//
//go:embed kube-1.36.json
var builtinJSON string

// Builtin returns a Mapper of the resources kube-apiserver 1.36 serves with its default feature
// gates and API versions (see the package documentation for what that leaves out). Each call
// parses the embedded data afresh; callers keep the Mapper they get.
func Builtin() (*Mapper, error) {
	m, err := FromJSON([]byte(builtinJSON))
	if err != nil {
		return nil, fmt.Errorf("built-in Kubernetes 1.36 resources: %w", err)
	}
	return m, nil
}
