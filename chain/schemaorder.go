package chain

import (
	"slices"
	"strconv"
	"strings"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// A custom resource's schema is validated with Go maps walked in the runtime's random order:
// the properties of an object, the keys of a map. kube-apiserver gives a custom resource's
// several schema errors in any order from one request to the next; admit promises the same
// answer for the same input, so it gives them in one of the orders the apiserver can give, the
// walk with every map's keys in order:
//
//   - a node's own errors (type, enum, bounds) before the errors of what it holds, as the
//     validators run;
//   - the errors of its properties (or map keys) property by property, by name, each property's
//     errors together, an array's items by index;
//   - then its required properties that are missing, in the order its schema lists them, as
//     the object validator checks them after the properties.

// orderedValidator gives a schema validator's errors in that order.
type orderedValidator struct {
	apiservervalidation.SchemaValidator
}

// ordered wraps v; nil stays nil.
func ordered(v apiservervalidation.SchemaValidator) apiservervalidation.SchemaValidator {
	if v == nil {
		return nil
	}
	return orderedValidator{v}
}

func (v orderedValidator) Validate(value any, options ...apiservervalidation.ValidationOption) *validate.Result {
	return inOrder(v.SchemaValidator.Validate(value, options...))
}

func (v orderedValidator) ValidateUpdate(value, old any, options ...apiservervalidation.ValidationOption) *validate.Result {
	return inOrder(v.SchemaValidator.ValidateUpdate(value, old, options...))
}

// inOrder sorts a result's errors and warnings into the walk's order. A result holding an error
// of another kind than a field's (none that schemas give today) is left as it is.
func inOrder(r *validate.Result) *validate.Result {
	if r != nil {
		sortErrors(r.Errors)
		sortErrors(r.Warnings)
	}
	return r
}

func sortErrors(errs []error) {
	keys := make(map[error][]string, len(errs))
	for _, err := range errs {
		v, ok := err.(*openapierrors.Validation)
		if !ok {
			return
		}
		keys[err] = walkKey(v)
	}
	slices.SortStableFunc(errs, func(a, b error) int { return compareKeys(keys[a], keys[b]) })
}

// walkKey places an error in the walk: its path's segments; a missing required property after
// every property of its object ("\xff" sorts after any name), the missing ones of one object
// keeping their order among themselves (the stable sort keeps it).
func walkKey(v *openapierrors.Validation) []string {
	segments := strings.Split(strings.TrimPrefix(v.Name, "."), ".")
	if v.Name == "" || v.Name == "." {
		segments = nil
	}
	if v.Code() == openapierrors.RequiredFailCode && len(segments) > 0 {
		segments[len(segments)-1] = "\xff"
	}
	return segments
}

// compareKeys orders walk keys segment by segment — an array's indexes as numbers — a node
// before what it holds.
func compareKeys(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		x, errX := strconv.Atoi(a[i])
		y, errY := strconv.Atoi(b[i])
		if errX == nil && errY == nil {
			return x - y
		}
		return strings.Compare(a[i], b[i])
	}
	return len(a) - len(b)
}
