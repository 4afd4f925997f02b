package audit

import (
	"github.com/admitkit/admit/review"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// Overlay is the proposal as applying changes to the cluster would leave it: base with each
// configuration, policy or binding of changes in place of base's of the same kind and name, and
// those base does not have added.
func Overlay(base, changes review.Admission) review.Admission {
	return review.Admission{
		Mutating:   replaceByKey(base.Mutating, changes.Mutating, func(c *admissionregistrationv1.MutatingWebhookConfiguration) string { return c.Name }),
		Validating: replaceByKey(base.Validating, changes.Validating, func(c *admissionregistrationv1.ValidatingWebhookConfiguration) string { return c.Name }),
		Policies:   replaceByKey(base.Policies, changes.Policies, func(p review.Input) string { return p.Object.GetKind() + "/" + p.Object.GetName() }),
	}
}

// replaceByKey is base without the items changes has a key of, then changes.
func replaceByKey[T any](base, changes []T, key func(T) string) []T {
	replaced := make(map[string]bool, len(changes))
	for _, c := range changes {
		replaced[key(c)] = true
	}
	var out []T
	for _, b := range base {
		if !replaced[key(b)] {
			out = append(out, b)
		}
	}
	return append(out, changes...)
}
