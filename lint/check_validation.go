package lint

import (
	"fmt"
	"strings"
)

// checkInvalid (A01) reports what kube-apiserver's create-time validation refuses, field by
// field, and a second configuration of a kind with a name already taken.
func checkInvalid(a *analysis) []finding {
	var out []finding
	first := map[[2]string]*configuration{}
	for _, c := range a.all {
		for _, err := range c.validate() {
			out = append(out, finding{
				config: c, webhook: c.webhookAt(err.Field), field: err.Field, message: err.ErrorBody(),
				hint: "fix the field: kubectl apply would fail with this message",
			})
		}
		key := [2]string{c.kind, c.name}
		if earlier, taken := first[key]; taken && c.name != "" {
			out = append(out, finding{
				config: c, field: "metadata.name",
				message: fmt.Sprintf("a %s named %q is already defined at %s: applying both, the second replaces the first, and lint checks only the last", c.kind, c.name, earlier.source),
				hint:    "give each configuration its own name, or merge their webhooks into one",
			})
			continue
		}
		first[key] = c
	}
	return out
}

// checkAPIServerWarnings (A02) reports the warnings kube-apiserver sends on create, except
// those about virtual resources, which B06 reports with more context.
func checkAPIServerWarnings(a *analysis) []finding {
	var out []finding
	for _, c := range a.all {
		for _, warning := range c.warnings() {
			path, message, ok := strings.Cut(warning, ": ")
			if !ok {
				path, message = "", warning
			}
			out = append(out, finding{
				config: c, webhook: c.webhookAt(path), field: path, message: message,
				hint: "kubectl shows this warning when the configuration is applied; change the field so it has the effect you meant",
			})
		}
	}
	return out
}
